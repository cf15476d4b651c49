"""A room's live view in the poll's store (issue 35), on SQLite and on PostgreSQL like every rule of the
store: one migration adds it to an existing database; only the presenter key moves a room; every change
moves the counter a student's page reads in one row; every replica reads the same."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from test_poll import OPTIONS, make, pg_url  # noqa: F401  (the fixtures: a store factory on each database)

from services.poll import live, schema
from services.poll import store as ps

VIEW = {"page": "softmax", "params": {"preset": "day33", "beta": "4"}}


def test_a_version_2_database_is_migrated_and_keeps_its_rooms(make, monkeypatch):
    """A database made by the code of schema version 2 (SQLite and PostgreSQL) is brought to the newest: its rooms
    and questions stay readable, and every later migration's columns and tables are there (the lesson's live view,
    eyes up, the drawn question's kind, frozen row and countdown, presence with its handle and change counter)."""
    monkeypatch.setattr(ps, "MIGRATIONS", schema.MIGRATIONS[:2])
    old = make()
    assert old.schema_version() == 2
    room = ps.Room("K7QF", "k" * 22)
    with old.engine.begin() as conn:  # a room and a question made by the code of version 2
        conn.execute(
            schema.rooms.insert().values(
                code=room.code, key_sha256=ps.digest(room.key), created_at=old.clock(), expires_at=old.clock() + 3600
            )
        )
        conn.execute(
            sa.text(
                "INSERT INTO poll_questions (code, qid, prompt, options, answer, asked_at) "
                "VALUES (:code, 'softmax', 'Which?', :options, :answer, 1.0)"
            ),
            {"code": room.code, "options": '[["a", "first"], ["b", "second"]]', "answer": '["b"]'},
        )
    old.close()
    monkeypatch.setattr(ps, "MIGRATIONS", schema.MIGRATIONS)
    new = make()
    assert new.schema_version() == len(schema.MIGRATIONS) >= 6
    now = live.watch(new, room.code)
    assert (now.rev, now.moves, now.step, now.view, now.lesson) == (0, 0, None, None, False)
    (q,) = new.questions(room.code)
    assert (q.qid, q.kind, q.frozen, q.closes_at) == ("softmax", "choice", None, None)
    inspect = sa.inspect(new.engine)

    def columns(table: str) -> set[str]:
        return {c["name"] for c in inspect.get_columns(table)}

    assert {"rev", "moves", "lesson", "lesson_step", "view", "changed_at", "hold"} <= columns("poll_rooms")
    assert {"kind", "frozen", "closes_at"} <= columns("poll_questions")
    assert {"seat", "handle", "page", "step", "furthest", "follows", "seen_at", "changes"} <= columns("poll_presence")
    assert new.is_presenter(room.code, room.key)


def test_only_the_presenter_key_moves_the_room(make):
    store = make()
    room = store.create_room()
    with pytest.raises(ps.NotPresenter):
        live.update(store, room.code, "x" * 22, view=VIEW)
    with pytest.raises(ps.NoRoom):
        live.update(store, "ZZZZ", room.key, view=VIEW)
    assert live.watch(store, room.code).moves == 0


def test_a_lesson_its_step_and_the_view_are_one_row_for_every_replica(make):
    one, two = make(), make()  # two replicas on one database
    room = one.create_room()
    started = live.update(one, room.code, room.key, lesson="title = 'x'", step=1, view=VIEW)
    assert (started.rev, started.moves, started.step, started.lesson) == (1, 1, 1, True)
    seen = live.watch(two, room.code)
    assert seen == started and seen.view == VIEW
    assert live.lesson(two, room.code) == (1, "title = 'x'")
    edited = live.update(two, room.code, room.key, lesson="title = 'y'")  # an edit is news, not a move
    assert (edited.rev, edited.moves, edited.step) == (2, 1, 1)
    detour = live.update(one, room.code, room.key, step=None, view={"page": "model", "params": {}})
    assert (detour.moves, detour.step, detour.view["page"]) == (2, None, "model")
    ended = live.update(one, room.code, room.key, lesson=None, step=None)
    assert not ended.lesson and ended.view["page"] == "model" and live.lesson(one, room.code)[1] is None


def test_every_poll_change_moves_the_counter(make):
    store = make()
    room = store.create_room()
    revs = [live.watch(store, room.code).rev]
    store.ask(room.code, room.key, "q1", "Which?", OPTIONS, "b")
    revs.append(live.watch(store, room.code).rev)
    store.ask(room.code, room.key, "q1", "Which?", OPTIONS, "b")  # asked again, exactly so: no news
    revs.append(live.watch(store, room.code).rev)
    store.answer(room.code, "seat1234", "q1", "a")  # an answer is the presenter's news only
    revs.append(live.watch(store, room.code).rev)
    store.reveal(room.code, room.key, "q1")
    revs.append(live.watch(store, room.code).rev)
    store.reset(room.code, room.key, "q1")
    revs.append(live.watch(store, room.code).rev)
    assert revs == [0, 1, 1, 1, 2, 3]
    store.close_room(room.code, room.key)
    with pytest.raises(ps.NoRoom, match="closed"):
        live.watch(store, room.code)


def test_a_lesson_or_a_view_too_large_is_refused(make):
    store = make()
    room = store.create_room()
    with pytest.raises(ValueError, match="100,000 bytes"):
        live.update(store, room.code, room.key, lesson="x" * (live.MAX_LESSON + 1))
    with pytest.raises(ValueError, match="4,000 bytes"):
        live.update(store, room.code, room.key, view={"page": "x", "params": {"text": "y" * 5000}})
    assert live.watch(store, room.code).rev == 0
