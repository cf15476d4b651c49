"""Draw your prediction in real Chromium (issue 51): the presenter asks on the Softmax weights page; a student's
page hides the weights while the question is open; the student drags a bar with the mouse and moves another with
the arrow keys (the bars still sum to 1) and submits once; a phone's tap sets a bar and submits; a third student
uses the keyboard alone (End, Tab, Enter); the store holds the three rows; the presenter reveals and sees the
overlay with 3 answers and their median distance; the student's weights come back. axe-core finds no
serious issue on the student's drawn question or on the presenter's overlay.

Skipped without Chromium and Playwright unless REQUIRE_BROWSER=1 (CI)."""

from __future__ import annotations

import re
import statistics

import pytest
from axe_playwright_python.sync_playwright import Axe

from harness import browser as bs
from services.poll import drawn
from services.poll.store import Store
from tests.test_poll_browser import LAPTOP, PHONE, browser, open_room, wait_text  # noqa: F401 - fixture
from ui.poll import drawq

pytestmark = pytest.mark.browser

SHOTS = bs.ARTIFACTS / "poll-draw"
SERIOUS = ("critical", "serious")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(server, the poll's SQLite file): the server process inherits the file's path."""
    with bs.poll_server(tmp_path_factory.mktemp("poll-draw"), "poll-draw-browser.log") as (srv, db):
        yield srv, db


def serious(page, selector: str) -> list[dict]:
    """axe-core's WCAG A/AA violations of serious or critical impact inside `selector`."""
    result = Axe().run(
        page,
        context={"include": [[selector]]},
        options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}},
    )
    return [
        {"rule": v["id"], "impact": v["impact"], "html": n["html"][:160]}
        for v in result.response["violations"]
        if v["impact"] in SERIOUS
        for n in v["nodes"]
    ]


def values(sliders) -> list[float]:
    return [float(sliders.nth(i).get_attribute("aria-valuenow")) / 100 for i in range(sliders.count())]


def test_a_student_draws_a_row_and_the_presenter_sees_the_overlay(browser, served):  # noqa: F811
    server, db = served
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    contexts = []
    page_in = bs.opener(browser, contexts, errors)

    try:
        lecturer = page_in(LAPTOP)
        panel, join, code = open_room(lecturer, server.url + "/softmax?present=1&cell=2,1")
        panel.get_by_role("button", name="Ask: draw where row 2's weight goes").click()
        wait_text(panel, r"answered\s*0")

        student = page_in(LAPTOP)
        student.goto(join)
        box = student.locator(".st-key-poll_box")
        wait_text(box, rf"You are in room {code}", timeout=60)
        sliders = box.get_by_role("slider")
        sliders.first.wait_for(timeout=30_000)
        n = sliders.count()
        assert n >= 3
        assert values(sliders) == pytest.approx([1 / n] * n, abs=1e-3)
        # the weights are hidden: no map, and the page says why
        wait_text(student.locator("[data-testid='stAlert']"), re.escape(drawq.HIDDEN[:40]))
        assert student.locator(".amap").count() == 0
        student.screenshot(path=str(SHOTS / "student-open.png"), full_page=True)
        assert serious(student, ".st-key-poll_box") == []

        # the mouse: bar 0 dragged to about 70 %
        track = sliders.nth(0)
        track.scroll_into_view_if_needed()
        b = track.bounding_box()
        assert b["height"] >= 24  # a touch target
        student.mouse.move(b["x"] + 0.1 * b["width"], b["y"] + b["height"] / 2)
        student.mouse.down()
        student.mouse.move(b["x"] + 0.5 * b["width"], b["y"] + b["height"] / 2, steps=5)
        student.mouse.move(b["x"] + 0.7 * b["width"], b["y"] + b["height"] / 2, steps=5)
        student.mouse.up()
        after_mouse = values(sliders)
        assert after_mouse[0] == pytest.approx(0.7, abs=0.02)
        assert sum(after_mouse) == pytest.approx(1.0, abs=3e-3)  # aria-valuenow: 0.1 % steps
        assert after_mouse[1] == pytest.approx(after_mouse[2], abs=1e-3)  # the others shared the rest evenly
        # the keyboard: bar 1 up by 5 steps of 0.01
        sliders.nth(1).focus()
        for _ in range(5):
            student.keyboard.press("ArrowRight")
        after_keys = values(sliders)
        assert after_keys[1] == pytest.approx(after_mouse[1] + 0.05, abs=2e-3)
        assert sum(after_keys) == pytest.approx(1.0, abs=3e-3)
        assert sliders.nth(1).get_attribute("aria-valuetext").startswith(f"{box.locator('.key').nth(1).inner_text()}:")
        box.get_by_role("button", name="Submit my row").click()

        # a phone: a tap on a bar sets it (touch), every bar a target at least 24 px high; a tap submits it
        phone = page_in(PHONE)
        phone.goto(join)
        bars = phone.locator(".st-key-poll_box").get_by_role("slider")
        bars.first.wait_for(timeout=60_000)
        bars.nth(0).scroll_into_view_if_needed()
        t = bars.nth(0).bounding_box()
        assert all(bars.nth(i).bounding_box()["height"] >= 24 for i in range(bars.count()))
        phone.touchscreen.tap(t["x"] + 0.3 * t["width"], t["y"] + t["height"] / 2)
        tapped = values(bars)
        assert tapped[0] == pytest.approx(0.3, abs=0.03) and sum(tapped) == pytest.approx(1.0, abs=3e-3)
        phone.screenshot(path=str(SHOTS / "student-phone.png"))
        phone_box = phone.locator(".st-key-poll_box")
        phone_box.get_by_role("button", name="Submit my row").tap()
        wait_text(phone_box.locator(".status"), r"Your row is in")

        # a third student, by keyboard alone: the last bar to 1 (End), then Tab to Submit and Enter
        third = page_in(LAPTOP)
        third.goto(join)
        third_box = third.locator(".st-key-poll_box")
        keys = third_box.get_by_role("slider")
        keys.first.wait_for(timeout=60_000)
        keys.nth(n - 1).focus()
        third.keyboard.press("End")
        assert values(keys) == pytest.approx([0.0] * (n - 1) + [1.0], abs=1e-3)
        submit = third_box.get_by_role("button", name="Submit my row")
        submit.focus()
        third.keyboard.press("Enter")
        wait_text(third_box.locator(".status"), r"Your row is in")

        wait_text(panel, r"answered\s*3")
        stored = Store(db)
        try:
            q = stored.questions(code)[0]
            rows = drawn.from_counts(stored.counts(code)[q.qid])
        finally:
            stored.close()
        assert len(rows) == 3 and all(sum(row) == pytest.approx(1.0, abs=1e-6) for row in rows)
        for sent in (after_keys, tapped, [0.0] * (n - 1) + [1.0]):
            assert any(row == pytest.approx(sent, abs=2e-3) for row in rows), (sent, rows)

        panel.get_by_role("button", name="Reveal the answer").click()
        text = wait_text(panel, r"3 answers\.")
        tv = statistics.median(drawn.tv(row, q.frozen["row"]) for row in rows)
        assert f"median distance is {tv:.2f}" in text
        overlay = lecturer.locator(f".st-key-{drawq.OVERLAY}")
        overlay.locator("canvas, svg").first.wait_for(timeout=30_000)
        overlay.scroll_into_view_if_needed()
        overlay.screenshot(path=str(SHOTS / "presenter-overlay.png"))
        assert serious(lecturer, f".st-key-{drawq.OVERLAY}") == []

        student.locator(".amap").first.wait_for(timeout=30_000)  # the weights are back after the reveal
        wait_text(box, r"The true row")
        student.screenshot(path=str(SHOTS / "student-revealed.png"), full_page=True)
        assert errors == []
    finally:
        for context in contexts:
            context.close()
