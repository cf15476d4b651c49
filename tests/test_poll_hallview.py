"""Issue 51, the presenter's hall view and eyes up, in the store (services/poll/hallview.py): who is in the room
now, where, following or exploring, who answered the open question (never what), read in one statement and
only with the presenter key; eyes up set only with the key, moving the room's counter so students' pages learn
of it; a forged call changes nothing. SQLite and PostgreSQL (the fixtures of test_poll)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from services.poll import hallview, live, presence
from services.poll.codes import NoRoom, NotPresenter, PollError
from tests.test_poll import OPTIONS, Clock, make, pg_url  # noqa: F401 - fixtures


def test_the_hall_says_who_is_where_and_who_answered_the_open_question(make):
    clock = Clock()
    one, two = make(clock=clock), make(clock=clock)  # two replicas on one database
    room = one.create_room()
    presence.beat(one, room.code, "seat-00001", "softmax", 2, True)
    presence.beat(two, room.code, "seat-00002", "scores", None, False)
    presence.beat(one, room.code, "seat-00003", "softmax", 2, True)
    empty = hallview.read(two, room.code, room.key, "softmax@2")
    assert (empty.count, empty.following, empty.qid, empty.answered) == (3, 2, None, 0)
    one.ask(room.code, room.key, "softmax@2", "Which key?", OPTIONS, "b")
    clock.now += 1
    one.ask(room.code, room.key, "scores", "Which spread?", OPTIONS, "a")  # the latest asked
    two.answer(room.code, "seat-00003", "softmax@2", "c")
    two.answer(room.code, "seat-00001", "scores", "a")
    hall = hallview.read(one, room.code, room.key, "softmax@2")  # this step's question, not the latest
    assert hall.qid == "softmax@2" and not hall.revealed
    got = [(h.seat.name, h.seat.page, h.seat.step, h.seat.follows, h.answered) for h in hall.seats]
    assert got == [
        ("student 1", "softmax", 2, True, False),
        ("student 2", "scores", None, False, False),
        ("student 3", "softmax", 2, True, True),
    ]
    assert (hall.count, hall.following, hall.answered) == (3, 2, 1)
    latest = hallview.read(two, room.code, room.key, "exercise")  # not asked: the latest asked is the open one
    assert latest.qid == "scores" and [h.answered for h in latest.seats] == [True, False, False]
    assert all(h.said is None and h.right is None for h in latest.seats)  # what: never before the reveal
    one.reveal(room.code, room.key, "scores")
    shown = hallview.read(one, room.code, room.key, None)
    assert shown.revealed and [(h.said, h.right) for h in shown.seats] == [("first", True), (None, None), (None, None)]
    assert shown.right == 1 and hallview.read(one, room.code, room.key, "softmax@2").right == 0  # not revealed


def test_a_revealed_drawn_question_says_a_drawn_row_and_whether_it_is_close(make):
    from services.poll import drawn
    from tests.test_poll_draw import FROZEN

    s = make()
    room = s.create_room()
    for seat in ("seat-00001", "seat-00002"):
        presence.beat(s, room.code, seat, "softmax", None, True)
    drawn.ask(s, room.code, room.key, "softmax:draw", "Draw row 2", FROZEN, "softmax", {"head": 1})
    s.answer(room.code, "seat-00001", "softmax:draw", [0.45, 0.35, 0.2])  # TV 0.05 from the true row
    s.answer(room.code, "seat-00002", "softmax:draw", [0.0, 0.0, 1.0])  # TV 0.8
    assert [h.said for h in hallview.read(s, room.code, room.key, None).seats] == [None, None]
    s.reveal(room.code, room.key, "softmax:draw")
    hall = hallview.read(s, room.code, room.key, None)
    assert [(h.said, h.right) for h in hall.seats] == [("a drawn row", True), ("a drawn row", False)]


def test_the_hall_counts_only_who_is_here_now(make):
    clock = Clock()
    s = make(clock=clock)
    room = s.create_room()
    presence.beat(s, room.code, "seat-00001", "softmax", 1, True)
    clock.now += presence.TIMEOUT_S - 1
    presence.beat(s, room.code, "seat-00002", "softmax", 1, True)
    assert hallview.read(s, room.code, room.key).count == 2
    clock.now += 2  # the first closed their tab
    hall = hallview.read(s, room.code, room.key)
    assert [h.seat.handle for h in hall.seats] == [2] and hall.count == presence.count(s, room.code) == 1


def test_the_hall_is_one_statement(make):
    s = make()
    room = s.create_room()
    for i in range(5):
        presence.beat(s, room.code, f"seat-0000{i}", "softmax", 1, True)
    s.ask(room.code, room.key, "softmax", "Which key?", OPTIONS, "b")
    s._swept = s.clock()  # no sweep of expired rooms in this read
    seen = []
    sa.event.listen(s.engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
    assert hallview.read(s, room.code, room.key, "softmax").count == 5
    assert len([q for q in seen if q.lstrip().upper().startswith("SELECT")]) == 1


def test_only_the_presenter_reads_the_hall(make):
    s = make()
    room, other = s.create_room(), s.create_room()
    presence.beat(s, room.code, "seat-00001", "softmax", 1, True)
    with pytest.raises(NotPresenter):
        hallview.read(s, room.code, other.key)
    with pytest.raises(NotPresenter):
        hallview.read(s, room.code, "")
    with pytest.raises(NoRoom):
        hallview.read(s, "ZZZZ", room.key)
    s.close_room(room.code, room.key)
    with pytest.raises(NoRoom, match="closed"):
        hallview.read(s, room.code, room.key)


def test_eyes_up_moves_the_counter_once_and_only_with_the_key(make):
    s = make()
    room = s.create_room()
    before = live.watch(s, room.code)
    assert not before.hold
    assert hallview.hold(s, room.code, room.key, True)
    on = live.watch(s, room.code)
    assert on.hold and on.rev == before.rev + 1 and on.moves == before.moves  # a change, not a move
    assert not hallview.hold(s, room.code, room.key, True)  # on already: nothing changes, no counter moved
    assert live.watch(s, room.code).rev == on.rev
    assert hallview.hold(s, room.code, room.key, False)
    off = live.watch(s, room.code)
    assert not off.hold and off.rev == on.rev + 1


@pytest.mark.parametrize("key", ["", "not-the-key", "A" * 22, None])
def test_a_forged_eyes_up_is_refused_and_changes_nothing(make, key):
    s = make()
    room, mine = s.create_room(), s.create_room()  # the forger's own room: its key is a real key, of another room
    before = live.watch(s, room.code)
    with pytest.raises(PollError):
        hallview.hold(s, room.code, mine.key if key is None else key, True)
    after = live.watch(s, room.code)
    assert (after.hold, after.rev, after.changed_at) == (False, before.rev, before.changed_at)


@pytest.mark.parametrize("value", [1, "yes", None, 0.5])
def test_eyes_up_is_on_or_off(make, value):
    s = make()
    room = s.create_room()
    with pytest.raises(PollError, match="on or off"):
        hallview.hold(s, room.code, room.key, value)
    assert not live.watch(s, room.code).hold


def test_a_closed_room_takes_no_eyes_up(make):
    s = make()
    room = s.create_room()
    s.close_room(room.code, room.key)
    with pytest.raises(NoRoom):
        hallview.hold(s, room.code, room.key, True)


def test_the_halls_sentence_counts_from_its_numbers():
    """ui/poll/hallview.summary: who is here, following or exploring, answered of those here; nobody here says
    so without an '0 of 0'; once revealed, how many were right."""
    from ui.poll.hallview import summary

    def seat(handle, follows, answered, right=None):
        return hallview.Here(presence.Seat(handle, "softmax", 2, 2, follows, 0.0), answered, None, right)

    nobody = hallview.Hall((), "softmax", False, False)
    assert summary(nobody) == "Nobody is in the room now."
    one = hallview.Hall((seat(1, True, True),), "softmax", False, False)
    assert summary(one) == "1 in the room now: 1 follows, 0 explore; 1 of 1 has answered the question “the top key”."
    three = hallview.Hall(
        (seat(1, True, True, True), seat(2, False, True, False), seat(3, True, False)), "softmax", True, False
    )
    assert summary(three) == (
        "3 in the room now: 2 follow, 1 explores; 2 of 3 have answered the question “the top key” (revealed: 1 right)."
    )
