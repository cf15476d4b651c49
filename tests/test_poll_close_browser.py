"""Issue 51 items 4 and 5 in real Chromium: a presenter (laptop) and three students (a laptop and two phones), each
in their own browser context. Each student reads what the room keeps about them where they join; the
presenter's bars stay hidden until **Show the counts live**; the three downloads are files a spreadsheet opens
(UTF-8, a header row) with each student's anonymous handle, the question's page and settings, a summary per
question and each student's progress; **Close the room…** offers the downloads again above the confirmation, and
closing deletes the room's answers and presence at once (read in the store the server writes) while every
student's page says the room is closed.

Skipped without Chromium and Playwright unless REQUIRE_BROWSER=1 (CI)."""

from __future__ import annotations

import csv
import io
import re

import pytest
import sqlalchemy as sa

from harness import browser as bs
from harness.server import poll_server
from services.poll import presence
from services.poll.schema import ROOM_TABLES, rooms
from services.poll.store import Store
from tests.test_poll_browser import LAPTOP, PHONE, browser, open_room, wait_text  # noqa: F401 - fixture
from tests.test_poll_hallview_browser import serious
from ui.poll import closing

pytestmark = pytest.mark.browser

SHOTS = bs.ARTIFACTS / "poll"
STUDENTS = (("laptop", LAPTOP, "0: AI"), ("phone-1", PHONE, "1: builds"), ("phone-2", PHONE, "1: builds"))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with poll_server(tmp_path_factory.mktemp("poll-close"), "poll-close-browser.log") as (srv, db):
        yield srv, db


def download(page, button) -> tuple[bytes, str]:
    """The file a download button gives (its bytes, its name)."""
    with page.expect_download(timeout=30_000) as got:
        button.click()
    made = got.value
    with open(made.path(), "rb") as handle:
        return handle.read(), made.suggested_filename


def rows_of(data: bytes) -> list[dict]:
    text = data.decode("utf-8-sig")  # UTF-8 (a byte-order mark, if any, for spreadsheets)
    return list(csv.DictReader(io.StringIO(text)))


def test_counts_live_downloads_and_closing(browser, served):  # noqa: F811
    server, db = served
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    contexts: list = []
    page_in = bs.opener(browser, contexts, errors)
    try:
        lecturer = page_in(LAPTOP)
        panel, join, code = open_room(lecturer, server.url + "/softmax?present=1")
        panel.get_by_role("button", name=re.compile("Ask this page's question")).click()
        wait_text(panel, r"answered\s*0")
        assert closing.kept(24 * 3600) in panel.inner_text().replace("\n", " ")  # what the room keeps, said

        students = []
        for name, options, choice in STUDENTS:
            page = page_in(options)
            page.goto(join)
            box = page.locator(".st-key-poll_box")
            text = wait_text(box, rf"You are in room {code}", timeout=60)
            assert closing.kept_for_student(24 * 3600)[:60] in text.replace("\n", " "), name
            box.get_by_text(choice, exact=True).click()
            students.append((name, page, box))
        wait_text(panel, r"answered\s*3")
        bars = panel.locator("[data-testid='stVegaLiteChart']")
        assert bars.count() == 0 and "appear when you reveal" in panel.inner_text()  # hidden by default
        panel.get_by_text("Show the counts live").click()
        bars.first.wait_for(timeout=20_000)  # the bars, before any reveal
        assert "appear when you reveal" not in panel.inner_text()

        files = {}
        for label in ("Answers", "Summary per question", "Progress per student"):
            button = panel.get_by_role("button", name=re.compile(rf"^\W*{label}"))
            files[label] = download(lecturer, button.first)
        data, name = files["Answers"]
        assert name == f"attention-lab-poll-{code}-answers.csv"
        answers = rows_of(data)
        assert len(answers) == 3 and {"student", "page", "settings", "choice", "right"} <= set(answers[0])
        assert sorted(r["student"] for r in answers) == ["student 1", "student 2", "student 3"]
        assert {r["page"] for r in answers} == {"softmax"}
        summary = rows_of(files["Summary per question"][0])
        assert len(summary) == 1 and summary[0]["answered"] == "3"
        progress = rows_of(files["Progress per student"][0])
        assert sorted(r["student"] for r in progress) == ["student 1", "student 2", "student 3"]

        panel.get_by_role("button", name=re.compile("Close the room")).click()
        confirm = wait_text(lecturer.locator("[data-testid='stMain']"), r"Download what you want to keep first")
        assert "Summary per question" in confirm
        lecturer.screenshot(path=str(SHOTS / "presenter-closing.png"), full_page=True)
        assert serious(lecturer, ".st-key-poll_panel") == []  # the bars, the downloads, the confirmation
        lecturer.get_by_role("button", name="Close and delete").click()
        lecturer.get_by_role("button", name="Start a class poll").wait_for(timeout=20_000)  # the room is gone here
        store = Store(db)
        try:
            with store.engine.connect() as conn:  # the rows themselves (the store's own reads refuse a closed room)
                for table in ROOM_TABLES:  # answers, presence (the handles), the class experiment's: at once
                    found = conn.execute(sa.select(sa.func.count()).where(table.c.code == code)).scalar()
                    assert found == 0, table.name
                assert conn.execute(sa.select(rooms.c.closed).where(rooms.c.code == code)).scalar() == 1
            with pytest.raises(presence.NoRoom):
                presence.count(store, code)
        finally:
            store.close()
        for name, page, _ in students:
            wait_text(page.locator("[data-testid='stMain']"), r"closed", timeout=30)
            page.screenshot(path=str(SHOTS / f"student-closed-{name}.png"), full_page=True)
        assert errors == []
    finally:
        for context in contexts:
            context.close()
