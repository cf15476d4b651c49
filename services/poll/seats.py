"""A student's seat in a room, as the store keeps it (issue 51): the seat id from the student's link
(ui/poll/link.py), checked, and the anonymous handle the room gives it on its first beat or answer
("student 17": the next number in the room). The app asks for no name and stores none.

Helpers on an open transaction, for services/poll/store.py (an answer) and services/poll/presence.py
(a beat)."""

from __future__ import annotations

import sqlalchemy as sa

from services.poll.codes import parse_token
from services.poll.schema import presence, rooms

_HANDLE = sa.select(presence.c.handle).where(
    (presence.c.code == sa.bindparam("code")) & (presence.c.seat == sa.bindparam("seat"))
)


def checked(seat: str) -> str:
    """A seat id as a link gives it (random URL-safe characters), or PollError: never HTML, never a name."""
    return parse_token(seat, "seat id")


def name(handle: int) -> str:
    """A handle as the presenter reads it: made from the room's number, never from anything typed."""
    return f"student {int(handle)}"


def handle(conn, code: str, seat: str, now: float) -> int:
    """The seat's handle in the room, given now (the room's next number) if it has none yet."""
    found = conn.execute(_HANDLE, {"code": code, "seat": seat}).scalar()
    if found is not None:
        return int(found)
    # PostgreSQL: one first beat of the room at a time takes the next number (SQLite: the write lock does)
    conn.execute(sa.select(rooms.c.code).where(rooms.c.code == code).with_for_update())
    found = conn.execute(_HANDLE, {"code": code, "seat": seat}).scalar()  # a second tab of the same seat
    if found is not None:
        return int(found)
    number = conn.execute(
        sa.select(sa.func.coalesce(sa.func.max(presence.c.handle), 0) + 1).where(presence.c.code == code)
    ).scalar_one()
    conn.execute(presence.insert().values(code=code, seat=seat, handle=number, first_at=now, seen_at=now))
    return int(number)
