"""Pacing and the countdown in the poll's store (issue 51), on SQLite and on PostgreSQL: the presenter sets and
clears a range of the lesson's steps students move between on their own (refused without the key, outside the
lesson, reversed, or without the room's step); a move outside it or out of the lesson ends it; every change
moves the room's counter. A question's countdown: an answer after it is refused on the store's clock (a clock
the test moves), with the time it closed."""

from __future__ import annotations

import pytest
from test_poll import OPTIONS, Clock, make, pg_url  # noqa: F401  (the fixtures: a store factory on each database)

from services.poll import live, pace, presence
from services.poll import store as ps

STEP = '[[steps]]\ntitle = "S{n}"\npage = "softmax"\ntext = "t"\nnote = ""\n'
LESSON = 'title = "L"\nsummary = "s"\n' + "".join(STEP.format(n=n) for n in range(1, 6))  # five steps
SEAT = "seat-aaaaaaaa"


def view(n: int) -> dict:
    return {"page": "softmax", "params": {"beta": str(n)}}


def lesson_room(store, at: int = 2):
    room = store.create_room()
    live.update(store, room.code, room.key, lesson=LESSON, step=at, view=view(at))
    return room


def test_steps_of_a_lesson():
    assert pace.steps_of(LESSON) == 5
    assert pace.steps_of(None) == pace.steps_of("not = [toml") == pace.steps_of('title = "x"') == 0


def test_the_presenter_sets_and_clears_a_range_and_followers_learn_of_it(make):
    s = make()
    room = lesson_room(s)
    before = live.watch(s, room.code)
    assert pace.pace(s, room.code) is None
    pace.set_range(s, room.code, room.key, 2, 4)
    after = live.watch(s, room.code)
    assert pace.pace(make(), room.code) == (2, 4)  # another replica reads it
    assert after.rev == before.rev + 1 and after.moves == before.moves  # news, but no move
    pace.clear_range(s, room.code, room.key)
    cleared = live.watch(s, room.code)
    assert pace.pace(s, room.code) is None
    assert (cleared.rev, cleared.moves) == (after.rev + 1, after.moves + 1)  # followers brought back: a move


@pytest.mark.parametrize(
    ("first", "last", "says"),
    [
        (4, 2, "reversed"),
        (0, 3, "not all in the lesson: it has steps 1 to 5"),
        (2, 6, "not all in the lesson"),
        (3, 5, "The room is at step 2: move it to a step from 3 to 5 first"),
        ("2", 4, "two whole step numbers"),
        (True, 4, "two whole step numbers"),
    ],
)
def test_a_bad_range_is_refused_in_words_and_changes_nothing(make, first, last, says):
    s = make()
    room = lesson_room(s)
    pace.set_range(s, room.code, room.key, 1, 3)
    rev = live.watch(s, room.code).rev
    with pytest.raises(ps.PollError, match=says):
        pace.set_range(s, room.code, room.key, first, last)
    assert pace.pace(s, room.code) == (1, 3) and live.watch(s, room.code).rev == rev


def test_a_forged_range_is_refused(make):
    s = make()
    room = lesson_room(s)
    with pytest.raises(ps.NotPresenter):
        pace.set_range(s, room.code, "x" * 22, 1, 3)
    pace.set_range(s, room.code, room.key, 1, 3)
    with pytest.raises(ps.NotPresenter):
        pace.clear_range(s, room.code, "x" * 22)
    assert pace.pace(s, room.code) == (1, 3)


def test_a_room_without_a_lesson_has_no_range(make):
    s = make()
    room = s.create_room()
    with pytest.raises(ps.PollError, match="follows no lesson"):
        pace.set_range(s, room.code, room.key, 1, 1)


def test_a_move_inside_keeps_the_range_outside_or_away_ends_it(make):
    s = make()
    room = lesson_room(s)
    pace.set_range(s, room.code, room.key, 2, 4)
    live.update(s, room.code, room.key, step=4, view=view(4))
    assert pace.pace(s, room.code) == (2, 4)
    live.update(s, room.code, room.key, step=5, view=view(5))
    assert pace.pace(s, room.code) is None
    live.update(s, room.code, room.key, step=3, view=view(3))
    pace.set_range(s, room.code, room.key, 3, 3)
    live.update(s, room.code, room.key, step=None, view=view(9))  # a view outside the lesson
    assert pace.pace(s, room.code) is None
    live.update(s, room.code, room.key, step=2, view=view(2))
    pace.set_range(s, room.code, room.key, 1, 5)
    live.update(s, room.code, room.key, lesson=LESSON.replace(STEP.format(n=5), ""))  # an edit: 4 steps left
    assert pace.pace(s, room.code) is None
    live.update(s, room.code, room.key, step=2, view=view(2))
    pace.set_range(s, room.code, room.key, 1, 2)
    live.update(s, room.code, room.key, lesson=LESSON)  # an edit that keeps the steps keeps the range
    assert pace.pace(s, room.code) == (1, 2)
    live.update(s, room.code, room.key, lesson=None, step=None)  # the lesson ends
    assert pace.pace(s, room.code) is None


def test_a_paced_students_step_is_in_the_hall(make):
    s = make()
    room = lesson_room(s)
    pace.set_range(s, room.code, room.key, 2, 4)
    presence.beat(s, room.code, SEAT, "softmax", 3, True)
    (seat,) = presence.hall(s, room.code, room.key)
    assert (seat.step, seat.furthest, seat.follows) == (3, 3, True)


# ------------------------------------------------------------------------------------------------ countdown
def test_an_answer_after_the_countdown_is_refused_with_the_time(make):
    clock = Clock()
    s = make(clock=clock)
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b")
    closes = pace.countdown(s, room.code, room.key, "q1", 30)
    assert closes == pytest.approx(clock.now + 30, abs=1e-6)
    (q,) = s.questions(room.code)
    assert q.closes_at == pytest.approx(closes, abs=1e-6)
    clock.now += 29.5
    s.answer(room.code, SEAT, "q1", "a")
    clock.now += 1.0
    with pytest.raises(ps.PollError, match=r"This question closed at 13:47:10 UTC"):  # 1_000_030 s: 1970-01-12 13:47:10
        s.answer(room.code, SEAT, "q1", "c")
    assert s.counts(room.code) == {"q1": {"a": 1}}  # the late change did nothing


def test_a_countdown_of_zero_is_none_and_a_reset_clears_it(make):
    clock = Clock()
    s = make(clock=clock)
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b")
    pace.countdown(s, room.code, room.key, "q1", 10)
    pace.countdown(s, room.code, room.key, "q1", 0)
    clock.now += 100
    s.answer(room.code, SEAT, "q1", "a")
    pace.countdown(s, room.code, room.key, "q1", 10)
    s.reset(room.code, room.key, "q1")
    clock.now += 100
    assert s.questions(room.code)[0].closes_at is None
    s.answer(room.code, SEAT, "q1", "b")
    assert s.counts(room.code) == {"q1": {"b": 1}}


@pytest.mark.parametrize("seconds", [5, 601, -10, "30", float("nan"), True])
def test_a_countdown_out_of_bounds_is_refused(make, seconds):
    s = make()
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b")
    with pytest.raises(ps.PollError, match="seconds"):
        pace.countdown(s, room.code, room.key, "q1", seconds)
    assert s.questions(room.code)[0].closes_at is None


def test_a_forged_or_stray_countdown_is_refused(make):
    s = make()
    room = s.create_room()
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b")
    rev = live.watch(s, room.code).rev
    with pytest.raises(ps.NotPresenter):
        pace.countdown(s, room.code, "x" * 22, "q1", 30)
    with pytest.raises(ps.PollError, match="has not been asked"):
        pace.countdown(s, room.code, room.key, "q9", 30)
    s.reveal(room.code, room.key, "q1")
    with pytest.raises(ps.PollError, match="revealed"):
        pace.countdown(s, room.code, room.key, "q1", 30)
    assert s.questions(room.code)[0].closes_at is None and live.watch(s, room.code).rev == rev + 1
