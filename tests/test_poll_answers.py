"""Issue 32: a poll question keeps every right answer (keys tied within the page's own rule are all right),
as a JSON list in poll_questions.answer; a database written before (one value per row) is migrated. On
SQLite and on PostgreSQL (the fixtures of test_poll)."""

from __future__ import annotations

import csv
import io

import pytest
import sqlalchemy as sa

from services.poll import store as ps
from tests.test_poll import OPTIONS, make, pg_url  # noqa: F401 - fixtures


def test_several_right_answers_are_kept_graded_and_downloaded(make):  # noqa: F811
    s = make()
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, ["c", "a"])
    q = s.questions(room.code)[0]
    assert q.answers == ("a", "c")  # in option order
    assert q.right("a") and q.right("c") and not q.right("b") and not q.right(None)
    assert q.answer_label() == "first; or third"
    for seat, choice in (("seat-00001", "a"), ("seat-00002", "b"), ("seat-00003", "c")):
        s.answer(room.code, seat, "q1", choice)
    rows = list(csv.DictReader(io.StringIO(s.csv(room.code, room.key))))
    assert sorted((r["choice"], r["right"]) for r in rows) == [("a", "1"), ("b", "0"), ("c", "1")]
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, ["a", "c"])  # the same answers: answers kept
    assert s.counts(room.code) == {"q1": {"a": 1, "b": 1, "c": 1}}
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, ["a"])  # fewer right answers: afresh
    assert s.counts(room.code) == {}
    for bad in ([], ["a", "zzz"]):
        with pytest.raises(ps.PollError, match="right answer"):
            s.ask(room.code, room.key, "q1", "?", OPTIONS, bad)


def test_a_database_with_one_answer_per_question_is_migrated(make, monkeypatch):  # noqa: F811
    monkeypatch.setattr(ps, "MIGRATIONS", ps.MIGRATIONS[:1])  # the schema before issue 32
    old = make()
    room = ps.Room("K7QF", "k" * 22)
    with old.engine.begin() as conn:  # rows as the old app wrote them (its code had no presence to purge)
        conn.execute(
            sa.text("INSERT INTO poll_rooms (code, key_sha256, created_at, expires_at) VALUES (:c, :k, :t, :e)"),
            dict(c=room.code, k=ps.digest(room.key), t=old.clock(), e=old.clock() + 3600),
        )
        insert = sa.text(
            "INSERT INTO poll_questions (code, qid, prompt, options, answer, asked_at) "
            "VALUES (:code, :qid, :prompt, :options, :answer, :at)"
        )
        conn.execute(
            insert,
            dict(code=room.code, qid="q1", prompt="Which one?", options=ps.json.dumps(OPTIONS), answer="b", at=1.0),
        )
        conn.execute(
            insert,
            dict(
                code=room.code,
                qid="q2",
                prompt="Odd",
                options=ps.json.dumps([['a\\"x', "odd"], ["b", "b"]]),
                answer='a\\"x',
                at=2.0,
            ),
        )
        conn.execute(
            sa.text("INSERT INTO poll_answers (code, seat, qid, choice, answered_at) VALUES (:c, :s, 'q1', 'b', 3.0)"),
            dict(c=room.code, s="seat-00001"),
        )
    monkeypatch.undo()
    new = make()  # the app, upgraded, starts on it
    assert new.schema_version() == len(ps.MIGRATIONS) >= 2  # every migration since, applied
    by_qid = {q.qid: q for q in new.questions(room.code)}
    assert by_qid["q1"].answers == ("b",) and by_qid["q1"].right("b")
    assert by_qid["q2"].answers == ('a\\"x',)  # a quote and a backslash survive
    (answered,) = csv.DictReader(io.StringIO(new.csv(room.code, room.key)))
    assert (answered["question"], answered["prompt"], answered["choice"], answered["right"]) == (
        "q1",
        "Which one?",
        "b",
        "1",
    )
    assert answered["student"] == "" and answered["page"] == ""  # answered before handles and pages were kept
