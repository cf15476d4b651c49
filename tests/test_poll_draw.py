"""Draw your prediction (issue 51): the drawn question's store (SQLite and PostgreSQL, the fixtures of
test_poll), its refusals, export, and the class summary against hand-computed numbers."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from services.poll import drawn, export
from services.poll.codes import NoRoom, NotPresenter, PollError
from tests.test_poll import Clock, make, pg_url  # noqa: F401 - fixtures

TRUE = [0.5, 0.3, 0.2]
FROZEN = drawn.freeze(
    TRUE, ["the", "cat", "sat"], layer=0, head=1, query=2, query_label="sat", beta=1.0, columns=[0, 1, 2]
)
S1, S2 = "seat-00001", "seat-00002"


def drawn_room(store):
    room = store.create_room()
    drawn.ask(store, room.code, room.key, "softmax:draw", "Draw row 2", FROZEN, "softmax", {"head": 1})
    return room


# ------------------------------------------------------------------------------------ pure parts
def test_tv_and_summary_against_hand_computed_numbers():
    assert drawn.tv([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]) == pytest.approx(0.3)
    assert drawn.tv(TRUE, TRUE) == 0.0
    rows = [[0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.4, 0.4, 0.2], [1.0, 0.0, 0.0]]
    s = drawn.summary(TRUE, rows)
    # TVs: 0; 0.3; ½(0.1 + 0.1 + 0) = 0.1; ½(0.5 + 0.3 + 0.2) = 0.5
    assert s.tvs == pytest.approx([0.0, 0.3, 0.1, 0.5])
    assert s.n == 4 and s.within == pytest.approx(0.5)  # 0 and 0.1 are within 0.2
    assert s.median_tv == pytest.approx(0.2)  # (0.1 + 0.3) / 2
    assert s.mean == pytest.approx([0.525, 0.25, 0.225])
    # key 0 sorted: 0.2, 0.4, 0.5, 1.0; linear interpolation at 0.75 and 2.25 -> 0.35 and 0.625
    assert s.q1[0] == pytest.approx(0.35) and s.q3[0] == pytest.approx(0.625)
    assert drawn.summary(TRUE, []) is None
    assert drawn.summary(TRUE, [[0.3, 0.3, 0.4]]).within == 1.0  # TV exactly 0.2 counts as within


def test_freeze_refuses_more_than_16_keys_and_a_forced_row():
    with pytest.raises(PollError, match="at most 16 bars"):
        drawn.freeze(
            [1 / 17] * 17,
            list("abcdefghijklmnopq"),
            layer=0,
            head=0,
            query=16,
            query_label="q",
            beta=1,
            columns=range(17),
        )
    with pytest.raises(PollError, match="nothing to draw"):
        drawn.freeze([1.0], ["a"], layer=0, head=0, query=0, query_label="a", beta=1, columns=[0])
    ok = drawn.freeze(
        [1 / 16] * 16,
        [str(i) for i in range(16)],
        layer=1,
        head=2,
        query=15,
        query_label="x",
        beta=2.0,
        columns=range(16),
    )
    assert len(ok["row"]) == 16 and ok["layer"] == 1 and ok["head"] == 2 and ok["beta"] == 2.0


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ([0.5, 0.3], "3 expected, 2 given"),
        ([0.5, 0.3, 0.3], "sum to 1"),
        ([0.5, 0.5, math.nan], "finite"),
        ([0.5, 0.5, math.inf], "finite"),
        ([1.5, -0.5, 0.0], "between 0 and 1"),
        (["0.5", 0.3, 0.2], "must be a number"),
        ([True, 0.0, 0.0], "must be a number"),
        ("abc", "list of weights"),
        ("0.5", "list of weights"),
        ({"a": 1}, "list of weights"),
    ],
)
def test_vector_refuses_bad_rows(raw, why):
    with pytest.raises(PollError, match=why):
        drawn.vector(raw, 3)


def test_vector_accepts_a_row_within_the_tolerance():
    assert drawn.vector([0.5, 0.3, 0.2 + 5e-7], 3) == pytest.approx(TRUE, abs=1e-6)
    assert drawn.vector("[0.5, 0.3, 0.2]", 3) == pytest.approx(TRUE)


# ------------------------------------------------------------------------------------ the store
def test_a_drawn_question_is_frozen_answered_counted_and_exported(make):  # noqa: F811
    s = make()
    room = drawn_room(s)
    q = s.questions(room.code)[0]
    assert q.kind == "draw" and q.frozen["row"] == pytest.approx(TRUE) and q.frozen["keys"] == ["the", "cat", "sat"]
    assert q.frozen["head"] == 1 and q.frozen["query"] == 2 and q.options == ()
    s.answer(room.code, S1, "softmax:draw", [0.4, 0.4, 0.2], q.asked_at)
    s.answer(room.code, S2, "softmax:draw", json.dumps([0.0, 0.0, 1.0]), q.asked_at)
    s.answer(room.code, S2, "softmax:draw", [1.0, 0.0, 0.0], q.asked_at)  # changed until the reveal
    counts = s.counts(room.code)["softmax:draw"]
    assert sum(counts.values()) == 2
    assert sorted(drawn.from_counts(counts)) == [[0.4, 0.4, 0.2], [1.0, 0.0, 0.0]]
    assert json.loads(s.my_answers(room.code, S1)["softmax:draw"]) == [0.4, 0.4, 0.2]
    rows = list(csv.DictReader(io.StringIO(s.csv(room.code, room.key))))
    by = {r["student"]: r for r in rows}
    assert json.loads(by["student 1"]["choice"]) == [0.4, 0.4, 0.2] and by["student 1"]["right"] == "1"  # TV 0.1
    assert by["student 2"]["right"] == "0"  # TV 0.5
    summary = list(csv.DictReader(io.StringIO(export.summary_csv(s, room.code, room.key))))
    assert summary[0]["answered"] == "2" and summary[0]["right"] == "1"


def test_bad_drawn_answers_are_refused_and_change_nothing(make):  # noqa: F811
    s = make()
    room = drawn_room(s)
    q = s.questions(room.code)[0]
    s.answer(room.code, S1, "softmax:draw", TRUE, q.asked_at)
    for bad in ([0.5, 0.3], [0.6, 0.3, 0.2], [math.nan, 0.5, 0.5], "not a row", [0.5, "0.3", 0.2], "b"):
        with pytest.raises(PollError):
            s.answer(room.code, S1, "softmax:draw", bad, q.asked_at)
        with pytest.raises(PollError):
            s.answer(room.code, S2, "softmax:draw", bad, q.asked_at)
    assert json.loads(s.my_answers(room.code, S1)["softmax:draw"]) == TRUE
    assert s.my_answers(room.code, S2) == {}
    assert sum(s.counts(room.code)["softmax:draw"].values()) == 1


def test_drawn_answers_to_a_reset_revealed_or_closed_question_are_refused(make):  # noqa: F811
    s = make(clock=Clock())
    room = drawn_room(s)
    q = s.questions(room.code)[0]
    s.clock.now += 5
    s.reset(room.code, room.key, "softmax:draw")
    with pytest.raises(PollError, match="reset"):
        s.answer(room.code, S1, "softmax:draw", TRUE, q.asked_at)  # the row drawn before the reset
    fresh = s.questions(room.code)[0]
    s.answer(room.code, S1, "softmax:draw", TRUE, fresh.asked_at)
    s.reveal(room.code, room.key, "softmax:draw")
    with pytest.raises(PollError, match="revealed"):
        s.answer(room.code, S1, "softmax:draw", [1.0, 0.0, 0.0], fresh.asked_at)
    assert json.loads(s.my_answers(room.code, S1)["softmax:draw"]) == TRUE
    s.close_room(room.code, room.key)
    with pytest.raises(NoRoom):
        s.answer(room.code, S2, "softmax:draw", TRUE, fresh.asked_at)


def test_only_the_presenter_asks_a_drawn_question(make):  # noqa: F811
    s = make()
    room = s.create_room()
    with pytest.raises(NotPresenter):
        drawn.ask(s, room.code, "x" * 22, "softmax:draw", "Draw", FROZEN, "softmax", {})
    assert s.questions(room.code) == []


def test_a_row_sent_to_a_choice_question_is_refused(make):  # noqa: F811
    s = make()
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Which one?", [("a", "first"), ("b", "second")], "b")
    for bad in ([0.5, 0.5], {"a": 1}, 3):
        with pytest.raises(PollError, match="not one of the question's options"):
            s.answer(room.code, S1, "q1", bad)
    assert s.counts(room.code) == {}
