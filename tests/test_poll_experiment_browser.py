"""Issue 52 in real Chromium, with real workers: the presenter (laptop) starts a class experiment from the room's
panel, three students (phones, separate browser contexts) press Train my run on their Learn page, the server's own
worker subprocesses (services/jobrunner.py) train the runs from the DBOS queue, each student sees their run number
and, once it is done, where it sits among the hall's, and the presenter's box counts the runs and draws the overlay
(the sentence, the curves, the exports). A press whose seat has no run in the store after 15 s is pressed again,
as a student would (at most one of the three); a seat with a run whose page does not say so fails the test.
axe-core finds no serious or critical issue in either box. The times are
printed (pytest -s).

Skipped without Chromium and Playwright unless REQUIRE_BROWSER=1 (CI)."""

from __future__ import annotations

import re
import sqlite3
import time
from urllib.parse import parse_qs, unquote, urlencode, urlparse

import pytest

from harness import browser as bs
from tests.test_poll_browser import LAPTOP, PHONE, browser, open_room  # noqa: F401 - fixture
from tests.test_poll_hallview_browser import serious, wait_text
from ui.poll import classrun
from ui.poll import experiment as box

pytestmark = pytest.mark.browser

SHOTS = bs.ARTIFACTS / "poll"
TITLE = "Class experiment: every student trains a run"


def idle(page) -> None:
    """The page's script not running (a click lands on the elements drawn, not on ones a run is replacing)."""
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=30_000)
    page.wait_for_timeout(300)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(the server, its rooms' SQLite file)."""
    with bs.poll_server(tmp_path_factory.mktemp("poll"), "poll-experiment-browser.log") as (srv, db):
        yield srv, db


def run_of(db, code: str, seat: str) -> int | None:
    """The run number the store gave this seat (None: its press never reached the callback), read on the file."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        found = conn.execute("SELECT k FROM poll_runs WHERE code = ? AND seat = ?", (code, seat)).fetchone()
    return None if found is None else found[0]


def press(page, run_box, keyboard: bool) -> None:
    """Train my run by the keyboard's path (focus, Enter) or a tap."""
    train = run_box.get_by_role("button", name="Train my run")
    if keyboard:
        train.focus()
        page.keyboard.press("Enter")
    else:
        train.click()


@pytest.mark.timeout(600)
def test_a_class_experiment_from_start_to_overlay(browser, served):
    server, db = served
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    contexts = []
    page_in = bs.opener(browser, contexts, errors)
    try:
        lecturer = page_in(LAPTOP)
        panel, join, code = open_room(lecturer, server.url + "/learn?present=1")
        panel.locator("[data-testid='stExpander'] summary", has_text=TITLE).first.click()
        mine = lecturer.locator(f".st-key-{box.BOX}")
        wait_text(mine, r"Start the experiment", timeout=30)
        idle(lecturer)
        mine.get_by_role("button", name="Start the experiment").click()
        wait_text(mine, r"Experiment 1:.*induction, 480 steps", timeout=30)
        started = time.monotonic()
        students = []
        for _ in range(3):
            page = page_in(PHONE)
            page.goto(join)
            run_box = page.locator(f".st-key-{classrun.BOX}")
            wait_text(run_box, r"The class experiment", timeout=60)
            idle(page)
            keyboard = len(students) % 2 == 1  # the second student by the keyboard's path, the others by a tap
            press(page, run_box, keyboard)
            students.append((page, run_box, keyboard))
        missed, shown = [], []
        for i, (page, run_box, keyboard) in enumerate(students, start=1):
            seat = parse_qs(urlparse(page.url).query)["seat"][0]
            try:
                try:
                    wait_text(run_box, r"You are run (\d+): seed \1", timeout=15)
                except AssertionError:
                    if run_of(db, code, seat) is not None:
                        raise  # claimed, and the page never said so: the server's own fault
                    # No run for this seat: the press never reached the server's callback (once in CI, stop 65, the
                    # first phone's tap; not reproduced here). A student sees the button still there and presses
                    # again: so does the test, once at most, and says so.
                    missed.append(f"student {i} ({'keyboard' if keyboard else 'tap'})")
                    idle(page)
                    press(page, run_box, keyboard)
                    wait_text(run_box, r"You are run (\d+): seed \1", timeout=30)
            except AssertionError as err:  # what the page and the server said, for a run on another machine
                page.screenshot(path=str(SHOTS / f"experiment-student-{i}-stuck.png"), full_page=True)
                said = page.locator("[data-testid='stMain']").inner_text()[-1500:]
                raise AssertionError(
                    f"{err}\nthe store's run for this seat: {run_of(db, code, seat)}\nthe student's page:\n{said}\n"
                    f"the server's log:\n{server.log()}"
                ) from err
            k = int(re.search(r"You are run (\d+): seed \1", run_box.inner_text()).group(1))
            assert k == run_of(db, code, seat), (i, k)  # the page's run number is the store's for this seat
            shown.append(k)
        assert sorted(shown) == [1, 2, 3] and len(missed) <= 1, (shown, missed)
        print(f"\nclass experiment: first presses that did not reach the server, pressed again: {missed or 'none'}")
        for _, run_box, _ in students:
            wait_text(run_box, r"Your run (formed|did not form)", timeout=120)
        print(f"\nclass experiment: 3 runs of induction done {time.monotonic() - started:.1f} s after the first click")
        said = students[-1][1].inner_text()
        assert re.search(r"the hall's (median is step [\d,]+|runs appear here)|none of the hall's", said), said
        wait_text(mine, r"done\s*3", timeout=30)
        wait_text(mine, r"(?i)(of 3 runs|all 3 runs|none of the 3 runs) formed an induction head", timeout=30)
        assert mine.locator("[data-testid='stVegaLiteChart']").count() >= 2
        assert mine.get_by_role("button", name=re.compile("Runs \\(CSV\\)")).count() == 1
        lecturer.screenshot(path=str(SHOTS / "experiment-presenter.png"), full_page=True)
        kept = {c["name"]: c["value"] for c in lecturer.context.cookies()}
        key = unquote(kept["attention_lab_presenter"]).split(".")[1]
        phone = page_in(PHONE)  # the presenter's own phone, by the presenter's link
        phone.goto(join + "&" + urlencode({"key": key, "present": "1"}))
        summary = phone.locator(".st-key-poll_panel [data-testid='stExpander'] summary", has_text=TITLE).first
        summary.wait_for(timeout=60_000)
        idle(phone)
        summary.focus()  # the keyboard's path, as for Train my run
        phone.keyboard.press("Enter")
        on_phone = phone.locator(f".st-key-{box.BOX}")
        wait_text(on_phone, r"(?i)(of 3 runs|all 3 runs|none of the 3 runs) formed an induction head", timeout=60)
        on_phone.locator("[data-testid='stVegaLiteChart']").last.scroll_into_view_if_needed()  # the overlay's end
        wider = phone.evaluate("""() => { const main = document.querySelector("[data-testid='stMain']");
                                          return main.scrollWidth - main.clientWidth; }""")
        phone.screenshot(path=str(SHOTS / "experiment-presenter-phone.png"))
        assert wider <= 0, f"the presenter's phone scrolls sideways: {wider} px"
        assert serious(phone, f".st-key-{box.BOX}") == []
        students[0][0].screenshot(path=str(SHOTS / "experiment-student.png"), full_page=True)
        assert serious(lecturer, f".st-key-{box.BOX}") == []
        assert serious(students[0][0], f".st-key-{classrun.BOX}") == []
        assert errors == []
    finally:
        for context in contexts:
            context.close()
