"""Pacing and the countdown in a class-poll room (issue 51).

Pacing: a room that follows a lesson is presenter-paced (followers are moved with the presenter) unless the
presenter sets a range of its steps [a, b] (poll_rooms.pace_from, pace_to): then a following student moves
between steps a and b on their own, and the presenter's moves within the range do not move them. The range
ends when the presenter clears it (followers are brought back to the presenter's step: a move), moves the room
outside it or to a view outside the lesson (services/poll/live.py's update: followers come along, as without a
range), or ends the lesson. The room must be at a step inside the range when it is set.

The countdown: a question may close at a time (poll_questions.closes_at); the store refuses an answer after
it (services/poll/store.py's answer, on the store's clock). Set by the presenter when asking (seconds from now,
MIN_S to MAX_S, 0 for none); a reset question has none until it is set again.

Every change moves the room's counter, so every student's page learns of it. Functions of a Store, as
live.py's; only the presenter key changes a room (NotPresenter, and nothing changes)."""

from __future__ import annotations

import tomllib

import sqlalchemy as sa

from services.poll.codes import MAX_S, MIN_S, PollError
from services.poll.schema import questions, rooms
from services.poll.store import Store

_code = sa.bindparam("code")
PACE = sa.select(rooms.c.pace_from, rooms.c.pace_to).where(rooms.c.code == _code)


def steps_of(lesson: str | None) -> int:
    """How many steps a room's lesson (its TOML, checked when it was set) has; 0 without one."""
    if not lesson:
        return 0
    try:
        found = tomllib.loads(lesson).get("steps")
    except tomllib.TOMLDecodeError:
        return 0
    return len(found) if isinstance(found, list) else 0


def _number(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PollError("A step range is two whole step numbers, such as 2 and 4.")
    return value


def set_range(store: Store, code: str, key: str, first: int, last: int) -> None:
    """Students may move between steps `first` and `last` (from 1) of the room's lesson on their own. Refused
    (PollError, nothing changes) without the key, without a lesson, for a range outside the lesson or
    reversed, or one that does not hold the room's step."""
    first, last = _number(first), _number(last)
    with store._tx() as conn:
        store._room(conn, code, key)
        row = conn.execute(sa.select(rooms.c.lesson, rooms.c.lesson_step).where(rooms.c.code == code)).one()
        n = steps_of(row.lesson)
        if n == 0:
            raise PollError("The room follows no lesson: start one before letting students move on their own.")
        if first > last:
            raise PollError(f"Steps {first} to {last} are reversed: give the first step, then a later one.")
        if not 1 <= first <= last <= n:
            raise PollError(f"Steps {first} to {last} are not all in the lesson: it has steps 1 to {n}.")
        if row.lesson_step is None or not first <= row.lesson_step <= last:
            at = "a view outside the lesson" if row.lesson_step is None else f"step {row.lesson_step}"
            raise PollError(f"The room is at {at}: move it to a step from {first} to {last} first.")
        conn.execute(rooms.update().where(rooms.c.code == code).values(pace_from=first, pace_to=last))
        store._bump(conn, code)


def clear_range(store: Store, code: str, key: str) -> None:
    """Presenter-paced again: every follower is brought back to the presenter's step (a move)."""
    with store._tx() as conn:
        store._room(conn, code, key)
        conn.execute(
            rooms.update().where(rooms.c.code == code).values(pace_from=None, pace_to=None, moves=rooms.c.moves + 1)
        )
        store._bump(conn, code)


def pace(store: Store, code: str) -> tuple[int, int] | None:
    """The room's range (first, last), or None when presenter-paced (NoRoom if the room is gone)."""
    with store._tx(write=False) as conn:
        store._room(conn, code)
        row = conn.execute(PACE, {"code": code}).first()
    return None if row is None or row.pace_from is None or row.pace_to is None else (row.pace_from, row.pace_to)


def kept_when(step, lesson) -> dict:
    """live.update's values for the range when the room moves to `step` (an int; None: a view outside the
    lesson) and/or its lesson changes (TOML; None: ended); anything else: unchanged. The range is kept only
    while the step is inside it and the lesson still has its steps."""
    keep = sa.true()
    if step is None or lesson is None:
        keep = sa.false()
    elif isinstance(step, int):
        keep = sa.and_(rooms.c.pace_from <= step, rooms.c.pace_to >= step)
    if isinstance(lesson, str):
        keep = sa.and_(keep, rooms.c.pace_to <= steps_of(lesson))
    return {
        "pace_from": sa.case((keep, rooms.c.pace_from), else_=None),
        "pace_to": sa.case((keep, rooms.c.pace_to), else_=None),
    }


# ------------------------------------------------------------------------------------------------ countdown
def countdown(store: Store, code: str, key: str, qid: str, seconds) -> float | None:
    """The question closes `seconds` from now (0: no countdown); when it closes (the store's clock), or None.
    Refused without the key, for a question not asked or revealed, or seconds outside MIN_S to MAX_S."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds != seconds:
        raise PollError(f"A countdown is a number of seconds, {MIN_S} to {MAX_S} (0 for none).")
    if seconds != 0 and not MIN_S <= seconds <= MAX_S:
        raise PollError(f"A countdown takes {MIN_S} to {MAX_S} seconds (0 for none), not {seconds:g}.")
    this = (questions.c.code == code) & (questions.c.qid == qid)
    closes = None if seconds == 0 else store.clock() + float(seconds)
    with store._tx() as conn:
        store._owned(conn, code, key, qid)
        if conn.execute(sa.select(questions.c.revealed).where(this)).scalar():
            raise PollError("That question's answer is revealed: it takes no answers, so no countdown.")
        conn.execute(questions.update().where(this).values(closes_at=closes))
        store._bump(conn, code)
    return closes
