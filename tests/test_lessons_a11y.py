"""Every step of the three shipped lessons in headless Chromium, on the 1280 × 800 desktop and the 390 × 844
phone (issue 35): opened by its link (?lesson=NAME&step=N), it draws its page with no exception, no page
error and no console error, shows its lesson bar, and passes axe-core's WCAG 2.0/2.1 A and AA audit with no
serious or critical violation (the rules and the viewports of tests/test_a11y.py, one server and browser
per viewport). A summary by rule goes to test-artifacts/a11y/lesson-<viewport>-<lesson>.json."""

from __future__ import annotations

import json
import time
from collections import Counter

import pytest
from test_a11y import FAILING, OUT, audit, site_tab, tolerated  # noqa: F401  (site_tab: the per-viewport fixture)
from test_browser import Tab

from harness import browser as bs
from ui.lessons import shipped
from ui.shell import site

pytestmark = pytest.mark.browser


def arrive(tab: Tab, title: str, step: str, timeout: float = 60) -> None:
    """The link's first run switches to the step's page: wait for that page, drawn and still."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        heading = tab.page.locator("[data-testid='stMain'] h1")
        bar = tab.page.locator(".st-key-lesson_bar")
        if (
            heading.count()
            and heading.first.inner_text().strip() == title
            and bar.count()
            and step in bar.first.inner_text()
        ):
            bs.wait_ready(tab.page, timeout=60)
            return
        time.sleep(0.1)
    raise AssertionError(f"{title!r} with {step!r} did not arrive")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", shipped.names())
def test_every_step_draws_and_passes_axe(site_tab, name):
    viewport, context, server = site_tab
    lesson = shipped.load(name)
    started, found = time.monotonic(), []
    tab = Tab(context, server)
    try:
        for number, step in enumerate(lesson.steps, start=1):
            tab.open(f"/?lesson={name}&step={number}")
            arrive(tab, site.by_path(step.page).title, f"Step {number} of {len(lesson.steps)}")
            found += [{"step": number, **item} for item in audit(tab.page)]
        tab.assert_clean()
    finally:
        tab.close()
    counts = Counter(f"{f['rule']} ({f['impact']})" for f in found)
    failing = [f for f in found if f["impact"] in FAILING and not tolerated(f)]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"lesson-{viewport}-{name}.json").write_text(
        json.dumps(
            {"seconds": round(time.monotonic() - started, 1), "counts": dict(counts), "violations": found}, indent=1
        )
    )
    assert not failing, "\n".join(
        f"step {f['step']}: {f['rule']} ({f['impact']}) at {f['target']}: {f['html']}" for f in failing[:40]
    )
