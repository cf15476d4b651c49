"""A room's change is pushed to the sessions that watch it (ui/poll/push.py): who is asked, when, and how
often, with the store and Streamlit's runtime replaced by plain functions. The push through a real server
is tested by tests/test_lesson_hall.py (a hall's steps arrive well within the fallback timer)."""

from __future__ import annotations

import pytest

from services.poll.codes import PollError
from ui.poll import follow, push


@pytest.fixture(autouse=True)
def empty():
    with push._guard:
        saved = {code: dict(s) for code, s in push._watched.items()}
        push._watched.clear()
    yield
    with push._guard:
        push._watched.clear()
        push._watched.update(saved)


class Runtime:
    """Sessions that are idle unless named busy; each rerun asked is recorded, and `later` are busy by the
    time the server's loop gets to them."""

    def __init__(self, busy=(), later=()):
        self.busy, self.later, self.asked = set(busy), set(later), []

    def rerun(self, sid, busy):
        if sid in self.busy:
            return False
        self.asked.append(sid)
        if sid in self.later:
            busy()
        return True


def test_only_the_sessions_that_have_not_seen_the_change_are_asked_and_only_once():
    push.note("ROOM", "a", 3)
    push.note("ROOM", "b", 4)
    rt = Runtime()
    assert push.tick(lambda code: 4, rt.rerun) == (1, 0) and rt.asked == ["a"]
    assert push.tick(lambda code: 4, rt.rerun) == (0, 0) and rt.asked == ["a"]  # asked once per change
    push.note("ROOM", "a", 4)  # its check ran
    assert push.tick(lambda code: 5, rt.rerun) == (2, 0) and sorted(rt.asked) == ["a", "a", "b"]


def test_a_busy_session_is_asked_again_on_the_next_pass():
    push.note("ROOM", "a", 1)
    rt = Runtime(busy={"a"})
    assert push.tick(lambda code: 2, rt.rerun) == (0, 1) and push.watched("ROOM") == {"a": 1}
    rt.busy.clear()
    rt.later.add("a")  # idle when asked, running by the time the loop got to it
    assert push.tick(lambda code: 2, rt.rerun) == (1, 0) and push.watched("ROOM") == {"a": 1}
    rt.later.clear()
    assert push.tick(lambda code: 2, rt.rerun) == (1, 0) and push.watched("ROOM") == {"a": 2}
    assert rt.asked == ["a", "a"]


def test_a_check_that_ran_meanwhile_is_not_undone():
    push.note("ROOM", "a", 1)

    def rerun(sid, busy):
        push.note("ROOM", sid, 7)  # the session's own run read a newer counter first
        busy()
        return True

    push.tick(lambda code: 2, rerun)
    assert push.watched("ROOM") == {"a": 7}


def test_a_room_that_is_gone_reaches_its_watchers_once():
    push.note("ROOM", "a", 5)
    rt = Runtime()

    def gone(code):
        raise PollError("room ROOM is closed")

    assert push.tick(gone, rt.rerun) == (1, 0) and push.tick(gone, rt.rerun) == (0, 0)
    assert push.watched("ROOM") == {"a": push.GONE} and follow.GONE == push.GONE


def test_a_browser_watches_one_room_and_ended_sessions_are_dropped():
    push.note("OLD", "a", 1)
    push.note("NEW", "a", 9)
    push.note("NEW", "b", 9)
    assert push.watched("OLD") == {} and push.watched("NEW") == {"a": 9, "b": 9}
    push.prune(lambda sid: sid == "b")
    assert push.watched("NEW") == {"b": 9} and "OLD" not in push._watched
    push.prune(lambda sid: False)
    assert push._watched == {}


def test_rooms_are_read_once_a_pass_whatever_the_hall_and_the_hall_is_asked_in_turns():
    for i in range(10):
        push.note("ROOM", f"s{i}", 1)
    reads, rt = [], Runtime()
    assert push.tick(lambda code: reads.append(code) or 2, rt.rerun, slots=lambda: 4) == (4, 6)
    assert reads == ["ROOM"] and rt.asked == ["s0", "s1", "s2", "s3"]
    assert push.tick(lambda code: 2, rt.rerun, slots=lambda: 0) == (0, 6)  # all slots taken: nobody asked
    assert push.tick(lambda code: 2, rt.rerun, slots=lambda: 4) == (4, 2)
    assert push.tick(lambda code: 2, rt.rerun) == (2, 0) and sorted(rt.asked) == [f"s{i}" for i in range(10)]


def test_without_a_server_nothing_is_pushed_and_the_timer_is_short():
    assert not push.available()  # no Streamlit runtime in this process
    push.saw("ROOM", 1)  # outside a script run: nobody to push to
    assert push.watched("ROOM") == {} and push._thread is None
    assert follow.WATCH_EVERY_S == follow.WATCH_ALONE_S < follow.WATCH_PUSHED_S
