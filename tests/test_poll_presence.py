"""Issue 51, the hall: a heartbeat row per (room, seat) with a time-out, at most one write per student per
10 s while they stay (a move at once), the count of students in the room now (from the store: right across
replicas), each seat as the anonymous handle the room gives; bad input refused with nothing else changed.
SQLite and PostgreSQL (the fixtures of test_poll)."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from services.poll import presence
from services.poll import store as ps
from tests.test_poll import OPTIONS, Clock, make, pg_url  # noqa: F401 - fixtures


def rows(s: ps.Store, table: str, code: str) -> int:
    """Rows of a room in a table, counted on the engine (not through the store: no sweep of expired rooms)."""
    with s.engine.connect() as conn:
        return conn.execute(sa.text(f"SELECT COUNT(*) FROM {table} WHERE code = :c"), {"c": code}).scalar()


def test_each_seat_gets_the_rooms_next_handle_once(make):
    s = make()
    room, other = s.create_room(), s.create_room()
    assert presence.beat(s, room.code, "seat-00001", "softmax", 2, True) == 1
    assert presence.beat(s, room.code, "seat-00002", "softmax", 2, True) == 2
    s._beats.clear()  # the same seat beating again (a reload, another replica): the same handle
    assert presence.beat(s, room.code, "seat-00001", "scores", 3, False) == 1
    assert presence.beat(s, other.code, "seat-00002", "softmax", None, True) == 1  # numbers are per room
    assert [seat.name for seat in presence.hall(s, room.code, room.key)] == ["student 1", "student 2"]


def test_an_answer_without_a_beat_gets_a_handle_too(make):
    s = make()
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b")
    s.answer(room.code, "seat-00009", "q1", "a")
    assert presence.beat(s, room.code, "seat-00009", "softmax", None, True) == 1


def test_the_count_is_the_room_now_and_a_closed_tab_times_out(make):
    clock = Clock()
    one = make(clock=clock)
    two = make(clock=clock)  # another replica on the same database
    room = one.create_room()
    for i, s in enumerate((one, two, one)):
        presence.beat(s, room.code, f"seat-0000{i}", "softmax", 1, True)
    assert presence.count(one, room.code) == presence.count(two, room.code) == 3
    clock.now += presence.TIMEOUT_S - 1
    presence.beat(two, room.code, "seat-00001", "softmax", 1, True)  # still there; the others closed their tabs
    assert presence.count(one, room.code) == 3
    clock.now += 2
    assert presence.count(one, room.code) == 1
    assert [seat.handle for seat in presence.hall(two, room.code, room.key)] == [2]


def test_a_beat_from_the_same_place_is_written_once_per_ten_seconds_and_a_move_at_once(make):
    """Presence costs one light write per student per 10 s while they stay; a move (another page or step,
    following or not) is written at the beat that says it, so the hall view shows it at its next refresh."""
    clock = Clock()
    s = make(clock=clock)
    room = s.create_room()
    writes = []
    sa.event.listen(s.engine, "before_cursor_execute", lambda *a: writes.append(a[2]) if "poll_presence" in a[2] else 0)
    presence.beat(s, room.code, "seat-00001", "softmax", 1, True)
    updates = sum(w.lstrip().startswith(("UPDATE", "INSERT")) for w in writes)
    assert updates == 2  # its first beat: the row and its handle, then where it is
    for _ in range(4):  # a run every 2 s from the same place
        writes.clear()
        clock.now += 2.0
        presence.beat(s, room.code, "seat-00001", "softmax", 1, True)
        assert writes == []  # not even a read
    for place in (("softmax", 2, True), ("scores", 2, True), ("scores", 2, False)):  # moved: written at once
        writes.clear()
        clock.now += 0.5
        presence.beat(s, room.code, "seat-00001", *place)
        assert sum(w.lstrip().startswith("UPDATE") for w in writes) == 1
        seat = presence.hall(s, room.code, room.key)[0]
        assert (seat.page, seat.step, seat.follows, seat.seen_at) == (*place, clock.now)
    writes.clear()
    clock.now += presence.BEAT_EVERY_S - 0.5
    presence.beat(s, room.code, "seat-00001", "scores", 2, False)
    assert writes == []
    clock.now += 0.5
    presence.beat(s, room.code, "seat-00001", "scores", 2, False)  # 10 s since the last write: still here
    assert presence.hall(s, room.code, room.key)[0].seen_at == clock.now


def test_the_hall_keeps_the_furthest_step_and_is_the_presenters(make):
    clock = Clock()
    s = make(clock=clock)
    room = s.create_room()
    for step in (1, 4, 2, None):
        presence.beat(s, room.code, "seat-00001", "softmax", step, step != 2)
        clock.now += presence.BEAT_EVERY_S
    seat = presence.hall(s, room.code, room.key)[0]
    assert (seat.step, seat.furthest, seat.follows) == (None, 4, True)
    with pytest.raises(ps.NotPresenter):
        presence.hall(s, room.code, "x" * 22)
    with pytest.raises(ps.NotPresenter):
        presence.hall(s, room.code, s.create_room().key)


@pytest.mark.parametrize(
    "seat, page, step",
    [
        ("<b>seat</b>", "softmax", 1),
        ("seat-<script>", "softmax", 1),
        ("", "softmax", 1),
        ("seat-00001", "<img src=x onerror=alert(1)>", 1),
        ("seat-00001", "Softmax", 1),
        ("seat-00001", "softmax", 0),
        ("seat-00001", "softmax", "2"),
        ("seat-00001", "softmax", True),
    ],
)
def test_a_seat_page_or_step_no_link_gives_is_refused_and_nothing_is_written(make, seat, page, step):
    s = make()
    room = s.create_room()
    presence.beat(s, room.code, "seat-00002", "scores", 1, True)
    with pytest.raises(ps.PollError) as refused:
        presence.beat(s, room.code, seat, page, step, True)
    assert "<" not in str(refused.value)  # the message repeats none of it
    assert rows(s, "poll_presence", room.code) == 1
    assert [(x.name, x.page) for x in presence.hall(s, room.code, room.key)] == [("student 1", "scores")]


def test_an_answer_from_a_seat_with_html_is_refused(make):
    s = make()
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b")
    with pytest.raises(ps.PollError, match="seat id"):
        s.answer(room.code, "<i>seat0001</i>", "q1", "a")
    assert s.counts(room.code) == {} and rows(s, "poll_presence", room.code) == 0


def test_a_closed_or_unknown_room_takes_no_beat(make):
    s = make()
    room = s.create_room()
    s.close_room(room.code, room.key)
    with pytest.raises(ps.NoRoom, match="closed"):
        presence.beat(s, room.code, "seat-00001", "softmax", 1, True)
    with pytest.raises(ps.NoRoom):
        presence.beat(s, "ZZZZ", "seat-00001", "softmax", 1, True)
    assert rows(s, "poll_presence", room.code) == 0


def test_first_beats_at_once_on_two_replicas_get_distinct_handles(make):
    one, two = make(), make()
    room = one.create_room()
    got, errors = [], []

    def join(s, i):
        try:
            got.append(presence.beat(s, room.code, f"seat-{i:05d}", "softmax", 1, True))
        except Exception as err:  # noqa: BLE001 - the test reports it
            errors.append(err)

    threads = [threading.Thread(target=join, args=((one, two)[i % 2], i)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and sorted(got) == list(range(1, 17))
    assert presence.count(two, room.code) == 16


def test_the_glance_moves_with_every_change_the_hall_view_shows_and_only_then(make):
    """presence.glance: one statement whose mark moves when a student arrives or leaves, moves, switches
    following, or answers, and when a question is asked, revealed or reset or eyes up switched (the room's
    counter); a beat from the same place (a student who stays) or a glance from another replica leaves it."""
    from services.poll import hallview

    clock = Clock()
    s, other = make(clock=clock), make(clock=clock)
    room = s.create_room()
    marks = []

    def moved() -> bool:
        marks.append(presence.glance(other, room.code).mark)
        return len(marks) < 2 or marks[-1] != marks[-2]

    presence.beat(s, room.code, "seat-00001", "softmax", 1, True)
    assert moved() and presence.glance(s, room.code).count == 1
    for change in (
        lambda: presence.beat(s, room.code, "seat-00002", "softmax", 1, True),  # arrives
        lambda: presence.beat(s, room.code, "seat-00001", "softmax", 2, True),  # another step
        lambda: presence.beat(s, room.code, "seat-00001", "scores", 2, True),  # another page
        lambda: presence.beat(s, room.code, "seat-00001", "scores", 2, False),  # explores
        lambda: s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b"),
        lambda: s.answer(room.code, "seat-00002", "q1", "a"),
        lambda: s.answer(room.code, "seat-00002", "q1", "b"),  # changed: shown once revealed
        lambda: s.reveal(room.code, room.key, "q1"),
        lambda: hallview.hold(s, room.code, room.key, True),
        lambda: s.reset(room.code, room.key, "q1"),
    ):
        clock.now += 1.0
        change()
        assert moved()
    for _ in range(3):  # the same place, a beat written every BEAT_EVERY_S: nothing the hall shows
        clock.now += presence.BEAT_EVERY_S
        for seat, place in (("seat-00001", ("scores", 2, False)), ("seat-00002", ("softmax", 1, True))):
            presence.beat(s, room.code, seat, *place)
        assert not moved()
    clock.now += presence.TIMEOUT_S - 1
    presence.beat(s, room.code, "seat-00002", "softmax", 1, True)
    assert not moved()
    clock.now += 2  # seat 1 closed its tab: timed out
    assert moved() and presence.glance(s, room.code).count == 1
    s.close_room(room.code, room.key)
    with pytest.raises(ps.NoRoom):
        presence.glance(s, room.code)
