"""Pacing and the countdown in real Chromium (issue 51 item 3): a presenter and three students (two laptops and a
phone), each in a browser context of their own. The presenter lets the hall move between steps 1 and 3; the
first student moves with PageDown, PageUp and a focused button's Enter, cannot go past step 3 (the key does
nothing, the button is disabled), and the student's page with those controls passes axe-core with no serious or
critical issue (so does it with a countdown running); the third moves to step 3 by keyboard, the phone stays,
and the presenter's hall view shows each on their own step. The presenter then sets a 10 s countdown and moves
to step 4 (outside the range: it ends, the students are brought along); step 4's question shows the time left,
counted down in the student's browser and on the projector, and an answer after it is refused with the time it
closed.

Skipped without Chromium and Playwright unless REQUIRE_BROWSER=1 (CI)."""

from __future__ import annotations

import json
import re
import time

import pytest
from test_a11y import FAILING, audit, tolerated
from test_lessons_browser import browser, heading, server, wait_step  # noqa: F401  (fixtures)
from test_poll_browser import LAPTOP, PHONE, wait_text
from test_poll_hallview_browser import HALL, open_hall

from harness import browser as bs

pytestmark = pytest.mark.browser

SHOTS = bs.ARTIFACTS / "pacing"


def test_a_student_moves_within_the_range_by_keyboard_and_a_late_answer_is_refused(browser, server):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    contexts = []
    page_in = bs.opener(browser, contexts, errors, instrumented=True)

    try:
        lecturer = page_in(LAPTOP)
        lecturer.goto(server.url + "/?present=1")
        lecturer.get_by_role("button", name="Start a class poll").click(timeout=60_000)
        panel = lecturer.locator(".st-key-poll_panel")
        wait_text(panel, r"Room [A-Z2-9]{4}", timeout=60)
        lessons = lecturer.locator(".st-key-hall_panel")
        lessons.get_by_role("button", name="Start it").click()
        wait_step(lecturer, 1)
        join = wait_text(panel.locator("[data-testid='stCode']"), r"room=", timeout=30).strip()
        student = page_in(LAPTOP)
        student.goto(join)
        wait_step(student, 1, timeout=90)
        others = []  # two more: a phone that stays where it is, a laptop that moves on its own to step 3
        for options in (PHONE, LAPTOP):
            other = page_in(options)
            other.goto(join)
            wait_step(other, 1, timeout=90)
            others.append(other)

        bs.wait_ready(lecturer)
        for widget, value in (("pace_from", "1"), ("pace_to", "3")):
            field = lessons.locator(f".st-key-{widget} input")
            field.fill(value)
            field.press("Tab")
            bs.wait_ready(lecturer)
        lessons.get_by_role("button", name="Let students move on their own").click()
        wait_text(lessons, r"Students move on their own between steps 1 and 3", timeout=30)
        lessons.screenshot(path=str(SHOTS / "presenter-range.png"))

        bar = student.locator(".st-key-lesson_bar")
        wait_text(bar, r"You move on your own between steps 1 and 3", timeout=30)
        bs.wait_ready(student)
        student.keyboard.press("PageDown")
        wait_step(student, 2)
        bs.wait_ready(student)
        nxt = student.locator(".st-key-pace_next button").first
        nxt.focus()  # a button reached by keyboard: Enter presses it
        student.keyboard.press("Enter")
        wait_step(student, 3)
        bs.wait_ready(student)
        assert student.locator(".st-key-pace_next button").first.is_disabled()
        student.keyboard.press("PageDown")  # past the range: nothing happens
        time.sleep(2)
        bs.wait_ready(student)
        wait_step(student, 3)
        student.screenshot(path=str(SHOTS / "student-paced.png"), full_page=True)
        found = [f for f in audit(student) if f["impact"] in FAILING and not tolerated(f)]
        (SHOTS / "axe-student-paced.json").write_text(json.dumps(found, indent=1))
        assert found == [], found
        student.keyboard.press("PageUp")
        wait_step(student, 2)
        assert heading(lecturer) == "Inputs X"  # the presenter stayed at step 1
        mover = others[1]
        bs.wait_ready(mover)
        for number in (2, 3):
            mover.keyboard.press("PageDown")
            wait_step(mover, number)
            bs.wait_ready(mover)
        hall = open_hall(lecturer)  # the hall view shows where each is: steps 2, 1 and 3, all following
        wait_text(hall, r"3 in the room now: 3 follow, 0 explore", timeout=30)
        rows = hall.locator("table tbody tr")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            steps = [
                re.search(r"step (\d+)", rows.nth(i).locator("td").nth(1).inner_text()) for i in range(rows.count())
            ]
            if [int(m.group(1)) if m else None for m in steps] == [2, 1, 3]:
                break
            time.sleep(0.2)
        shown = [rows.nth(i).inner_text() for i in range(rows.count())]
        assert [int(re.search(r"step (\d+)", r).group(1)) for r in shown] == [2, 1, 3], shown
        lecturer.screenshot(path=str(SHOTS / "presenter-hall-paced.png"), full_page=True)
        hall_summary = lecturer.locator("[data-testid='stExpander'] summary", has_text=HALL).first
        hall_summary.click()  # shut again: the rest of this test is the projector's

        # The countdown: 10 s on the next question; the room to step 4 (outside the range: the range ends).
        field = panel.locator(".st-key-poll_countdown input")
        field.fill("10")
        field.press("Tab")
        bs.wait_ready(lecturer)
        # Tab left the field for the next control, the eyes-up switch; Streamlit's shortcuts (PageDown) act only
        # while no form control has the focus, as for a lecturer who clicks the page or presses Escape first.
        lecturer.evaluate("document.activeElement.blur()")
        for number in (2, 3, 4):
            lecturer.keyboard.press("PageDown")
            wait_step(lecturer, number)
            bs.wait_ready(lecturer)
        wait_step(student, 4)
        for other in others:  # the range ended: everyone who follows is brought to the presenter's step
            wait_step(other, 4)
        box = student.locator(".st-key-poll_box")
        wait_text(box, r"what happens to the spread", timeout=30)
        timer = box.locator(".countdown")  # in the component's shadow root (Playwright's CSS reaches it)
        left = int(re.search(r"closes in (\d+) s", wait_text(timer, r"closes in \d+ s", timeout=10)).group(1))
        assert 1 <= left <= 10
        wait_text(panel.locator(".countdown"), r"closes in \d+ s|is closed", timeout=10)  # the projector sees it too
        student.screenshot(path=str(SHOTS / "student-countdown.png"), full_page=True)
        found = [f for f in audit(student) if f["impact"] in FAILING and not tolerated(f)]
        assert found == [], found  # the running countdown too
        wait_text(timer, r"This question is closed: answers are no longer taken", timeout=15)
        box.get_by_text(re.compile(r"^it shrinks to 1/√")).first.click()
        said = wait_text(box, r"This question closed at \d\d:\d\d:\d\d UTC", timeout=30)
        assert "answers are no longer taken" in said
        student.screenshot(path=str(SHOTS / "student-late.png"), full_page=True)
        assert re.search(r"answered\s*0", panel.inner_text())
        assert errors == []
    finally:
        for context in contexts:
            context.close()
