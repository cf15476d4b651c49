"""Issue 51, questions the lecturer controls and the export: counts hidden until the reveal unless the
presenter shows them live; closing deletes the room's answers and presence at once; an expired room is
deleted on ordinary use of the store; the presenter's three CSV files (answers with the student's handle and
the question's page and settings, a summary per question, the progress per student), read back with the csv
module; forged presenter actions and stale answers refused, nothing else changed. SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import threading
import time

import pytest
import sqlalchemy as sa

from services.poll import export, live, presence, sweeper
from services.poll import store as ps
from tests.test_poll import OPTIONS, Clock, make, pg_url  # noqa: F401 - fixtures
from tests.test_poll_presence import rows

FORGED = ("", "x" * 22)


def table(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def room_with_answers(s: ps.Store, clock: Clock) -> ps.Room:
    room = s.create_room()
    s.ask(room.code, room.key, "softmax@2", "Which key?", OPTIONS, "b", settings={"beta": "2", "row": "3"})
    clock.now += 1
    s.ask(room.code, room.key, "scores", "What spreads?", OPTIONS, ["a", "c"], page="scores")
    for i, (step, follows) in enumerate(((2, True), (5, False), (3, True))):
        presence.beat(s, room.code, f"seat-0000{i}", "softmax", step, follows)
    for i, (choice, after) in enumerate((("b", 4.0), ("a", 2.0), ("b", 9.0))):
        clock.now += after
        s.answer(room.code, f"seat-0000{i}", "softmax@2", choice)
    s.answer(room.code, "seat-00007", "scores", "c")  # a student who answered before their first beat
    return room


# ------------------------------------------------------------------------------------ counts until the reveal
def test_counts_are_hidden_until_the_reveal_unless_shown_live(make):
    s = make()
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b")
    s.ask(room.code, room.key, "q2", "And this?", OPTIONS, "a")
    s.answer(room.code, "seat-00001", "q1", "a")
    s.answer(room.code, "seat-00001", "q2", "a")
    assert not live.counts_live(s, room.code) and live.shown_counts(s, room.code) == {}
    s.reveal(room.code, room.key, "q2")
    assert live.shown_counts(s, room.code) == {"q2": {"a": 1}}
    for bad in FORGED:
        with pytest.raises(ps.NotPresenter):
            live.show_counts(s, room.code, bad, True)
    assert live.shown_counts(s, room.code) == {"q2": {"a": 1}}
    live.show_counts(s, room.code, room.key, True)
    assert live.counts_live(s, room.code)
    assert live.shown_counts(s, room.code) == {"q1": {"a": 1}, "q2": {"a": 1}}
    live.show_counts(s, room.code, room.key, False)
    assert live.shown_counts(s, room.code) == {"q2": {"a": 1}}


# ------------------------------------------------------------------------------------ closing and expiry
def test_closing_deletes_answers_and_presence_at_once(make):
    clock = Clock()
    s = make(clock=clock)
    room, other = room_with_answers(s, clock), s.create_room()
    presence.beat(s, other.code, "seat-00001", "softmax", 1, True)
    for bad in FORGED:
        with pytest.raises(ps.NotPresenter):
            s.close_room(room.code, bad)
    assert rows(s, "poll_answers", room.code) == 4 and presence.count(s, room.code) == 4
    s.close_room(room.code, room.key)
    assert rows(s, "poll_answers", room.code) == rows(s, "poll_presence", room.code) == 0
    assert table(s.csv(room.code, room.key)) == [] and table(export.progress_csv(s, room.code, room.key)) == []
    assert presence.count(s, other.code) == 1  # another room keeps its own


def test_an_expired_room_is_deleted_on_ordinary_use_without_a_new_room(make):
    clock = Clock()
    s = make(clock=clock, ttl_s=600)
    old = room_with_answers(s, clock)
    clock.now += 300
    young = s.create_room()  # creating a room purges (as before): the old one is not expired yet
    clock.now += 301  # the old room expired; nobody creates a room from now on
    assert rows(s, "poll_answers", old.code) == 4 and rows(s, "poll_presence", old.code) == 4  # nobody used it
    assert s.is_presenter(young.code, young.key)  # an ordinary use
    for name in ("poll_rooms", "poll_questions", "poll_answers", "poll_presence"):
        assert rows(s, name, old.code) == 0, name
    assert rows(s, "poll_rooms", young.code) == 1


def test_expired_rooms_are_swept_at_most_once_a_minute_per_store(make):
    clock = Clock()
    s = make(clock=clock, ttl_s=100)
    first = s.create_room()
    clock.now += 50
    second = s.create_room()
    clock.now += 51  # first expired; the store swept 51 s ago (the second's creation)
    presence.count(s, second.code)
    assert rows(s, "poll_rooms", first.code) == 1  # not swept again yet
    clock.now += ps.SWEEP_EVERY_S - 51
    presence.count(s, second.code)
    assert rows(s, "poll_rooms", first.code) == 0
    clock.now += 100  # the second expired too
    replica = make(clock=clock, ttl_s=100)  # a new store (another replica) sweeps on its first use
    assert rows(s, "poll_rooms", second.code) == 1
    with pytest.raises(ps.NoRoom):
        replica.check(second.code)
    assert rows(s, "poll_rooms", second.code) == 0


def test_a_room_nobody_uses_is_deleted_by_the_stores_sweeper(make):
    """After the lecture nobody opens the app: the server's sweeper thread deletes the expired room anyway (the
    store is never used here: the rows are counted on the engine itself, which sweeps nothing), and it ends with
    its store."""
    clock = Clock()
    s = make(clock=clock, ttl_s=600)
    old = room_with_answers(s, clock)
    clock.now += 601  # the room expired; nobody uses the store from now on

    def left(name: str) -> int:
        with s.engine.connect() as conn:
            return conn.execute(
                sa.select(sa.func.count()).select_from(sa.table(name)).where(sa.column("code") == old.code)
            ).scalar()

    assert left("poll_answers") == 4 and left("poll_presence") == 4
    thread = sweeper.sweep_in_background(s, every_s=0.05)
    deadline = time.monotonic() + 10
    while left("poll_rooms") and time.monotonic() < deadline:
        time.sleep(0.05)
    for name in ("poll_rooms", "poll_questions", "poll_answers", "poll_presence"):
        assert left(name) == 0, name
    s.close()
    thread.join(timeout=5)
    assert not thread.is_alive()


def test_a_server_asks_for_the_sweeper_once_and_only_where_a_database_is(monkeypatch, tmp_path):
    from ui.poll import db

    started = []
    monkeypatch.setattr(db.internals, "can_push", lambda: True)  # as in a Streamlit server's session
    monkeypatch.setattr(db, "_started", threading.Event())
    monkeypatch.setattr(db, "_open_if_there", lambda: started.append(1))
    db.sweep_later(after_s=0.01)
    db.sweep_later(after_s=0.01)
    time.sleep(0.3)
    assert started == [1]
    monkeypatch.setattr(db.internals, "can_push", lambda: False)  # AppTest, a bare script: never
    monkeypatch.setattr(db, "_started", threading.Event())
    db.sweep_later(after_s=0.01)
    time.sleep(0.2)
    assert started == [1]
    opened = []
    monkeypatch.undo()
    monkeypatch.setattr(db, "store", lambda: opened.append(1))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("ATTENTION_LAB_POLL_DB", str(tmp_path / "none.sqlite3"))
    db._open_if_there()  # no rooms' database: nothing to sweep, none made
    assert opened == []
    (tmp_path / "none.sqlite3").write_bytes(b"")
    db._open_if_there()
    assert opened == [1]


# ------------------------------------------------------------------------------------ bad input
def test_answers_to_a_closed_or_reset_question_are_refused_and_change_nothing(make):
    s = make()
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b")
    s.answer(room.code, "seat-00001", "q1", "a")
    seen = s.questions(room.code)[0].asked_at
    s.answer(room.code, "seat-00001", "q1", "b", asked_at=seen)  # the question as the student saw it
    s.reset(room.code, room.key, "q1")
    s.answer(room.code, "seat-00002", "q1", "c")
    with pytest.raises(ps.PollError, match="reset"):
        s.answer(room.code, "seat-00001", "q1", "a", asked_at=seen)  # drawn before the reset
    assert s.counts(room.code) == {"q1": {"c": 1}}
    s.reveal(room.code, room.key, "q1")
    with pytest.raises(ps.PollError, match="revealed"):
        s.answer(room.code, "seat-00002", "q1", "a")
    s.close_room(room.code, room.key)
    with pytest.raises(ps.NoRoom, match="closed"):
        s.answer(room.code, "seat-00003", "q1", "b")
    assert rows(s, "poll_answers", room.code) == 0


def test_every_export_is_the_presenters(make):
    clock = Clock()
    s = make(clock=clock)
    room = room_with_answers(s, clock)
    for make_csv in (export.answers_csv, export.summary_csv, export.progress_csv):
        for bad in (*FORGED, s.create_room().key):
            with pytest.raises(ps.NotPresenter):
                make_csv(s, room.code, bad)


# ------------------------------------------------------------------------------------ the CSV files
def test_answers_csv_names_students_by_handle_and_questions_by_page_and_settings(make):
    clock = Clock()
    s = make(clock=clock)
    room = room_with_answers(s, clock)
    text = s.csv(room.code, room.key)
    assert text.splitlines()[0] == ",".join(export.ANSWERS)
    got = [(r["question"], r["page"], r["settings"], r["student"], r["choice"], r["right"]) for r in table(text)]
    assert got == [
        ("softmax@2", "softmax", "beta=2&row=3", "student 1", "b", "1"),
        ("softmax@2", "softmax", "beta=2&row=3", "student 2", "a", "0"),
        ("softmax@2", "softmax", "beta=2&row=3", "student 3", "b", "1"),
        ("scores", "scores", "", "student 4", "c", "1"),
    ]
    assert [r["seconds_after_asked"] for r in table(text)] == ["5.0", "7.0", "16.0", "15.0"]
    assert "seat-0000" not in text and room.key not in text


def test_summary_csv_has_a_row_per_question(make):
    clock = Clock()
    s = make(clock=clock)
    room = room_with_answers(s, clock)
    s.ask(room.code, room.key, "exercise", "Nobody answers", OPTIONS, "a")
    got = table(export.summary_csv(s, room.code, room.key))
    assert [(r["question"], r["answered"], r["right"], r["median_seconds"]) for r in got] == [
        ("softmax@2", "3", "2", "7.0"),
        ("scores", "1", "1", "15.0"),
        ("exercise", "0", "0", ""),
    ]
    assert got[0]["prompt"] == "Which key?" and got[0]["settings"] == "beta=2&row=3"


def test_progress_csv_has_the_furthest_step_per_student(make):
    clock = Clock()
    s = make(clock=clock)
    room = room_with_answers(s, clock)
    clock.now += presence.BEAT_EVERY_S
    presence.beat(s, room.code, "seat-00001", "scores", 1, True)  # went back to step 1
    got = table(export.progress_csv(s, room.code, room.key))
    assert [(r["student"], r["furthest_step"], r["last_step"], r["last_page"], r["follows"]) for r in got] == [
        ("student 1", "2", "2", "softmax", "yes"),
        ("student 2", "5", "1", "scores", "yes"),
        ("student 3", "3", "3", "softmax", "yes"),
        ("student 4", "", "", "", "yes"),
    ]


def test_downloads_are_utf8_with_a_mark_spreadsheets_read(make):
    s = make()
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Does ÷√d narrow β's row?", OPTIONS, "b")
    s.answer(room.code, "seat-00001", "q1", "b")
    data = export.for_download(s.csv(room.code, room.key))
    assert data.startswith(b"\xef\xbb\xbf")
    assert table(data.decode("utf-8-sig"))[0]["prompt"] == "Does ÷√d narrow β's row?"
