"""The class poll in real Chromium: a presenter (laptop) and three students (a laptop and two phones),
each in their own browser context. Join by the link the presenter's screen shows, answer, the
presenter's count moves without a click, the reveal reaches every student without a click (their page's
one-row room check sees it); the presenter key is in a cookie of the presenter's browser, not the URL.

Skipped without Chromium and Playwright unless REQUIRE_BROWSER=1 (CI)."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, unquote, urlparse

import pytest

from harness import browser as bs

pytestmark = pytest.mark.browser

SHOTS = bs.ARTIFACTS / "poll"
LAPTOP = {"viewport": {"width": 1400, "height": 1000}}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "has_touch": True, "is_mobile": True}
STUDENTS = (("laptop", LAPTOP, "0: AI"), ("phone-1", PHONE, "1: builds"), ("phone-2", PHONE, "1: builds"))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with bs.poll_server(tmp_path_factory.mktemp("poll"), "poll-browser.log") as (srv, db):
        yield srv


@pytest.fixture(scope="module")
def browser(playwright):
    instance = playwright.chromium.launch(executable_path=bs.chromium_path(), args=bs.CHROMIUM_FLAGS, headless=True)
    yield instance
    instance.close()


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def wait_text(locator, pattern: str, timeout: float = 20) -> str:
    """Wait until the locator's text matches (the page refreshes itself: no reload, no click)."""
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        if locator.count():
            text = locator.first.inner_text()
            if re.search(pattern, text):
                return text
        time.sleep(0.1)
    raise AssertionError(f"{pattern!r} did not appear within {timeout} s; last text: {text[:300]!r}")


def open_room(lecturer, url: str):
    """The presenter opens `url` and starts a class poll: (its panel, the join link, the room code)."""
    lecturer.goto(url)
    lecturer.get_by_role("button", name="Start a class poll").click(timeout=60_000)
    panel = lecturer.locator(".st-key-poll_panel")
    join = wait_text(panel.locator("[data-testid='stCode']"), r"room=", timeout=60).strip()
    return panel, join, re.search(r"room=([A-Z2-9]{4})", join).group(1)


def test_presenter_and_three_students(browser, server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    contexts = []
    page_in = bs.opener(browser, contexts, errors)

    try:
        lecturer = page_in(LAPTOP)
        panel, join, code = open_room(lecturer, server.url + "/softmax?present=1")
        wait_text(panel, r"Room [A-Z2-9]{4}")
        kept = {c["name"]: c["value"] for c in lecturer.context.cookies()}
        key = unquote(kept["attention_lab_presenter"]).split(".")[1]  # kept by the browser, never in the URL
        assert key not in join and "present" not in join and "key" not in query(lecturer)
        assert panel.locator("img").count() >= 1  # the QR code, drawn by the app
        assert "join link" in (panel.locator("img").first.get_attribute("alt") or "")  # axe's image-alt: named
        panel.get_by_role("button", name=re.compile("Ask this page's question")).click()
        wait_text(panel, r"answered\s*0")

        students = []
        for name, options, choice in STUDENTS:
            page = page_in(options)
            page.goto(join)
            box = page.locator(".st-key-poll_box")
            wait_text(box, rf"You are in room {code}", timeout=60)
            box.get_by_text(choice, exact=True).click()
            students.append((name, page, box, choice))
        for name, page, _, _ in students:
            seen = query(page)
            assert seen.get("room") == code and "seat" in seen and "key" not in seen, name
        assert len({query(page)["seat"] for _, page, _, _ in students}) == 3

        wait_text(panel, r"answered\s*3")  # live: the lecturer clicked nothing since
        lecturer.screenshot(path=str(SHOTS / "presenter-live.png"), full_page=True)
        panel.get_by_role("button", name="Reveal the answer").click()
        wait_text(panel, r"Revealed")
        for name, page, box, choice in students:
            text = wait_text(box, r"Right answer", timeout=20)  # the student clicked nothing either
            assert f"Yours: {choice}" in text.replace("\n", " ").replace("  ", " "), (name, text)
            page.screenshot(path=str(SHOTS / f"student-{name}.png"), full_page=True)
        assert errors == []
    finally:
        for context in contexts:
            context.close()
