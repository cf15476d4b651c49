"""Who is in a class-poll room now (issue 51): a heartbeat row per (room, seat) with a time-out, so a closed
tab leaves the count within TIMEOUT_S. A beat stores the page and lesson step the student is on, the furthest
step they reached and whether they follow the presenter or explore. A beat that says the student moved (another
page or step, following or not) is written at once, so the hall view is right at its next refresh; one that
says nothing new costs at most one light write per student per BEAT_EVERY_S (the store instance remembers the
last beat it wrote: a younger one with the same place is not written).
The count and the hall are read from the store, so every replica gives the same answer.

Each seat is shown as the handle the room gives it ("student 17", services/poll/seats.py); the rows are
deleted when the room closes or expires (services/poll/store.py). Functions of a Store, as live.py's."""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlalchemy as sa

from services.poll import seats
from services.poll.codes import NoRoom, PollError
from services.poll.schema import presence, rooms
from services.poll.store import Store

BEAT_EVERY_S = 10.0  # at most one write per student this often while they stay where they are
TIMEOUT_S = 35.0  # a seat not heard of for this long is no longer in the room (more than three beats' gap)
MAX_STEP = 10_000
_PAGE = re.compile(r"[a-z0-9_-]{0,64}")  # a page's URL path (ui/shell/site.py; "" is the first page)
_KEPT = 20_000  # beats remembered per store before the old ones are forgotten


@dataclass(frozen=True)
class Seat:
    handle: int
    page: str | None
    step: int | None  # the lesson step at the last beat (None: not on the room's step)
    furthest: int | None  # the furthest lesson step seen
    follows: bool  # following the presenter, or exploring on their own
    seen_at: float

    @property
    def name(self) -> str:
        return seats.name(self.handle)


def _step(step) -> int | None:
    if step is None:
        return None
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= MAX_STEP:
        raise PollError("a lesson step is a number from 1")
    return step


def beat(store: Store, code: str, seat: str, page: str, step: int | None, follows: bool) -> int:
    """This seat is in the room, on `page` at lesson `step`, following or not; its handle. PollError (NoRoom
    for a closed or expired room) for a seat id or page no link gives: nothing is written then."""
    seat, step = seats.checked(seat), _step(step)
    if not isinstance(page, str) or not _PAGE.fullmatch(page):
        raise PollError("that is not one of the app's pages")
    now, where = store.clock(), (page, step, bool(follows))
    kept = store._beats.get((code, seat))
    if kept is not None and 0 <= now - kept[0] < BEAT_EVERY_S and kept[2] == where:
        return kept[1]  # beaten lately from the same place: no write
    p = presence.c
    furthest = p.furthest if step is None else sa.case((p.furthest >= step, p.furthest), else_=step)
    moved = sa.or_(p.page.is_distinct_from(page), p.step.is_distinct_from(step), p.follows != int(bool(follows)))
    with store._tx() as conn:
        store._room(conn, code)
        handle = seats.handle(conn, code, seat, now)
        conn.execute(
            presence.update()
            .where((p.code == code) & (p.seat == seat))
            .values(
                page=page,
                step=step,
                furthest=furthest,
                follows=int(bool(follows)),
                seen_at=now,
                changes=p.changes + sa.case((moved, 1), else_=0),  # what the hall view shows of it changed
            )
        )
    if len(store._beats) > _KEPT:
        store._beats = {k: v for k, v in store._beats.items() if now - v[0] < BEAT_EVERY_S}
    store._beats[(code, seat)] = (now, handle, where)
    return handle


def _here(code: str, now: float):
    return (presence.c.code == code) & (presence.c.seen_at > now - TIMEOUT_S)


@dataclass(frozen=True)
class Glance:
    count: int  # students in the room now
    mark: tuple[int, ...]  # (the room's counter, students, the sums of their seats' changes and handles)


def _glance():
    """The glance's one statement, built once (bound: :code, :since): the room's row and its seats now."""
    r, p = rooms.c, presence.c
    return (
        sa.select(
            r.expires_at,
            r.closed,
            r.rev,
            sa.func.count(p.seat),
            sa.func.coalesce(sa.func.sum(p.changes), 0),
            sa.func.coalesce(sa.func.sum(p.handle), 0),
        )
        .select_from(rooms.outerjoin(presence, (p.code == r.code) & (p.seen_at > sa.bindparam("since"))))
        .where(r.code == sa.bindparam("code"))
        .group_by(r.code, r.expires_at, r.closed, r.rev)
    )


GLANCE = _glance()


def glance(store: Store, code: str) -> Glance:
    """How many students are in the open room now (beat within TIMEOUT_S), and a mark that moves with every
    change the hall view shows: a question asked, revealed or reset, eyes up (the room's counter), a student
    arriving or leaving (the count and the handles' sum), a student's page, step or mode, an answer given (their
    seat's counter). Equal marks, the same hall (but see ui/poll/hallview.FULL_EVERY_S). One statement; NoRoom if
    the room is gone."""
    now = store.clock()
    with store._tx(write=False) as conn:
        row = conn.execute(GLANCE, {"code": code, "since": now - TIMEOUT_S}).first()
    if row is None or row[0] <= now:
        raise NoRoom.gone(code, store.ttl_s)
    if row[1]:
        raise NoRoom.closed(code)
    return Glance(int(row[3]), tuple(int(v) for v in row[2:]))


def count(store: Store, code: str) -> int:
    """How many students are in the open room now (beat within TIMEOUT_S); NoRoom if it is gone."""
    return glance(store, code).count


def hall(store: Store, code: str, key: str) -> list[Seat]:
    """The students in the room now, by handle: where each is and whether they follow (presenter only)."""
    now, p = store.clock(), presence.c
    with store._tx(write=False) as conn:
        store._room(conn, code, key)
        rows = conn.execute(
            sa.select(p.handle, p.page, p.step, p.furthest, p.follows, p.seen_at)
            .where(_here(code, now))
            .order_by(p.handle)
        ).all()
    return [Seat(int(r.handle), r.page, r.step, r.furthest, bool(r.follows), r.seen_at) for r in rows]
