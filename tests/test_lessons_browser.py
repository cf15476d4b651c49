"""A lesson run live in real Chromium (issue 35): a presenter (laptop) and three students (a laptop, a
390 × 844 phone, and a laptop that switches following off), each in a browser context of their own. A bad
lesson file is refused and changes nothing; the presenter starts the Day 33 lesson and moves through five
steps with PageDown (one with a question); every following student's page shows each step's page and
settings without a click, then the question and the revealed answer; the student who does not follow stays
and sees where the presenter is. The presenter's address bar and page text never show the key, and a
reload keeps the presenter's rights (the key is in the session and a first-party cookie).

Skipped without Chromium and Playwright unless REQUIRE_BROWSER=1 (CI)."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, unquote, urlparse

import pytest
from test_lessons_app import step_settings
from test_poll_browser import LAPTOP, PHONE, wait_text

from harness import browser as bs
from ui.lessons import shipped
from ui.poll import keep
from ui.shell import site

pytestmark = pytest.mark.browser

SHOTS = bs.ARTIFACTS / "lessons"
LESSON = shipped.load("self-attention")
BAD = b'title = "x"\nsummary = "y"\n[[steps]]\ntitle = "z"\npage = "scores"\ntext = "<b>hi</b>"\n'


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with bs.poll_server(tmp_path_factory.mktemp("lessons"), "lessons-browser.log") as (srv, db):
        yield srv


@pytest.fixture(scope="module")
def browser(playwright):
    instance = playwright.chromium.launch(executable_path=bs.chromium_path(), args=bs.CHROMIUM_FLAGS, headless=True)
    yield instance
    instance.close()


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def view_settings(page) -> dict[str, str]:
    return {k: v for k, v in query(page).items() if k not in ("room", "seat", "present", "sidebar", "lesson", "step")}


def heading(page) -> str:
    found = page.locator("[data-testid='stMain'] h1")
    return found.first.inner_text().strip() if found.count() else ""


def wait_step(page, number: int, timeout: float = 45) -> None:
    """The page shows the step: its page's heading, its settings, its bar (nobody clicked)."""
    step = LESSON.at(number)
    want = (site.by_path(step.page).title, step_settings(step))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        bar = page.locator(".st-key-lesson_bar")
        said = bar.first.inner_text() if bar.count() else ""
        if (heading(page), view_settings(page)) == want and f"Step {number} of {len(LESSON.steps)}" in said:
            bs.wait_ready(page, timeout=30)
            return
        time.sleep(0.1)
    raise AssertionError(f"step {number} did not arrive: {heading(page)!r} {view_settings(page)} (want {want})")


def test_a_presenter_and_three_students_take_a_lesson(browser, server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    contexts = []
    page_in = bs.opener(browser, contexts, errors, instrumented=True)

    try:
        lecturer = page_in(LAPTOP)
        lecturer.goto(server.url + "/?present=1")
        lecturer.get_by_role("button", name="Start a class poll").click(timeout=60_000)
        panel = lecturer.locator(".st-key-poll_panel")
        code = re.search(r"Room ([A-Z2-9]{4})", wait_text(panel, r"Room [A-Z2-9]{4}", timeout=60)).group(1)
        lessons = lecturer.locator(".st-key-hall_panel")
        lessons.locator("input[type='file']").set_input_files(
            files=[{"name": "bad.toml", "mimeType": "text/plain", "buffer": BAD}]
        )
        wait_text(lessons, r"was not loaded; nothing changed", timeout=30)
        assert "HTML is not allowed" in lessons.inner_text()
        lessons.get_by_role("button", name="Start it").click()
        wait_step(lecturer, 1)
        join = wait_text(panel.locator("[data-testid='stCode']"), r"room=", timeout=30).strip()

        students = []
        for name, options in (("laptop", LAPTOP), ("phone", PHONE), ("explorer", LAPTOP)):
            page = page_in(options)
            page.goto(join)
            wait_step(page, 1, timeout=90)
            students.append((name, page))
        explorer = students[2][1]
        explorer.locator(".st-key-room_follow label").first.click()
        wait_text(explorer.locator(".st-key-poll_box"), r"Follow the presenter")
        bs.wait_ready(explorer)
        followers = [page for name, page in students if name != "explorer"]

        for number in range(2, 6):  # five steps: 1 to 5
            bs.wait_ready(lecturer)
            lecturer.keyboard.press("PageDown")
            wait_step(lecturer, number)
            for page in followers:
                wait_step(page, number)
            if number == 4:  # the question of the spread after ÷√d
                for page in followers:
                    box = page.locator(".st-key-poll_box")
                    wait_text(box, r"what happens to the spread", timeout=30)
                    box.get_by_text(re.compile(r"^it shrinks to 1/√")).first.click()
                wait_text(panel, rf"answered\s*{len(followers)}", timeout=30)
                panel.get_by_role("button", name="Reveal the answer").click()
                for name, page in students[:2]:
                    said = wait_text(page.locator(".st-key-poll_box"), r"Right answer", timeout=30)
                    assert "Yours: it shrinks to 1/√" in said.replace("\n", " ")
                    page.screenshot(path=str(SHOTS / f"student-{name}-revealed.png"), full_page=True)
        for page in followers:  # step 5 opens the next question
            wait_text(page.locator(".st-key-poll_box"), r"which key will take the most weight", timeout=30)
        assert heading(explorer) == "Inputs X"  # stayed where it was
        said = wait_text(explorer.locator(".st-key-poll_box"), r"The presenter is on Step 5 of 8", timeout=30)
        assert LESSON.at(5).title in said
        lecturer.screenshot(path=str(SHOTS / "presenter.png"), full_page=True)

        key = unquote(next(c["value"] for c in lecturer.context.cookies() if c["name"] == keep.COOKIE)).split(".")[1]
        assert len(key) >= 16
        for page in (lecturer, *[p for _, p in students]):
            assert key not in page.url and key not in page.locator("body").inner_text()
        lecturer.reload()
        wait_step(lecturer, 5)
        wait_text(panel, r"Room " + code)
        assert lecturer.get_by_role("button", name=re.compile("Next")).count() and key not in lecturer.url
        assert errors == []
    finally:
        for context in contexts:
            context.close()
