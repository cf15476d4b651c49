"""The presenter's hall view and eyes up (issue 51), in the store.

The hall: the students in the room now (a beat within presence.TIMEOUT_S), each by the handle the room gives,
where each is, following or exploring, and whether each has answered the open question (yes or no: never
what until the presenter reveals it; then each answer's option, or "a drawn row", and whether it is right).
One statement a read (the presenter's refresh reads it only when presence.glance moved): the room's row
(its key checked here), the open question, the presence rows and their answers, joined.

Eyes up: the room's `hold` (migration 5). Switching it moves the room's counter, so every student's page
learns of it as it learns of a move (services/poll/live.py's one-row check) and draws the hold card.
Only the presenter key changes it (NotPresenter otherwise, nothing changed). Functions of a Store."""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass

import sqlalchemy as sa

from services.poll import drawn
from services.poll.codes import NoRoom, NotPresenter, PollError, digest
from services.poll.presence import TIMEOUT_S, Seat
from services.poll.schema import answers, presence, questions, rooms
from services.poll.store import Store


@dataclass(frozen=True)
class Here:
    seat: Seat
    answered: bool  # has answered the open question (False when none is open)
    said: str | None = None  # once revealed: the answer's option label, or "a drawn row" (None before)
    right: bool | None = None  # once revealed: whether it is right (a drawn row: within drawn.TV_WITHIN)


@dataclass(frozen=True)
class Hall:
    seats: tuple[Here, ...]  # by handle
    qid: str | None  # the open question: the one asked for this page or step, else the latest asked
    revealed: bool  # its answer is revealed
    hold: bool  # eyes up is on

    @property
    def count(self) -> int:
        return len(self.seats)

    @property
    def following(self) -> int:
        return sum(h.seat.follows for h in self.seats)

    @property
    def answered(self) -> int:
        return sum(h.answered for h in self.seats)

    @property
    def right(self) -> int:
        """Answers that are right (0 before the reveal: nobody's answer is read then)."""
        return sum(bool(h.right) for h in self.seats)


def _statement():
    """The hall's one statement, built once (bound: :code, :qid, :since): a statement built per call costs
    SQLAlchemy more than the read itself (services/poll/reads.py)."""
    q, a, r = questions.c, answers.c, rooms.c
    code = sa.bindparam("code")
    first = sa.case((q.qid == sa.bindparam("qid"), 0), else_=1)  # this page's question first, then the latest
    chosen = (
        sa.select(q.qid, q.revealed, q.options, q.answer, q.frozen)
        .where(q.code == code)
        .order_by(first, q.asked_at.desc())
        .limit(1)
        .subquery()
    )
    here = presence.alias("here")
    h = here.c
    return (
        sa.select(
            r.key_sha256,
            r.expires_at,
            r.closed,
            r.hold,
            chosen.c.qid,
            chosen.c.revealed,
            chosen.c.options,
            chosen.c.answer,
            chosen.c.frozen,
            h.handle,
            h.page,
            h.step,
            h.furthest,
            h.follows,
            h.seen_at,
            a.seat.is_not(None).label("answered"),
            sa.case((chosen.c.revealed == 1, a.choice), else_=None).label("choice"),  # what: once revealed
        )
        .select_from(
            rooms.outerjoin(chosen, sa.true())
            .outerjoin(here, (h.code == r.code) & (h.seen_at > sa.bindparam("since")))
            .outerjoin(answers, (a.code == r.code) & (a.seat == h.seat) & (a.qid == chosen.c.qid))
        )
        .where(r.code == code)
        .order_by(h.handle)
    )


HALL = _statement()


def read(store: Store, code: str, key: str, qid: str | None = None) -> Hall:
    """The hall now, for the presenter (NotPresenter without the room's key; NoRoom if it is gone), in one
    statement. qid: the question of the presenter's page or step (else the latest asked is the open one)."""
    with store._tx(write=False) as conn:
        rows = conn.execute(HALL, {"code": code, "qid": qid or "", "since": store.clock() - TIMEOUT_S}).all()
    first = rows[0] if rows else None
    if first is None or first.expires_at <= store.clock():
        raise NoRoom.gone(code, store.ttl_s)
    if not hmac.compare_digest(first.key_sha256, digest(key)):
        raise NotPresenter(f"Only the presenter of room {code} can do that.")
    if first.closed:
        raise NoRoom.closed(code)
    labels = dict(map(tuple, json.loads(first.options))) if first.revealed and first.options else {}
    answer, frozen = first.answer, first.frozen
    seats = tuple(  # the rows unpacked by position: by name, each cell costs a lookup (a hundred rows a refresh)
        Here(
            Seat(int(handle), page, step, furthest, bool(follows), seen_at),
            bool(answered),
            *(_NOT_YET if choice is None else _revealed(choice, labels, answer, frozen)),
        )
        for *_, handle, page, step, furthest, follows, seen_at, answered, choice in rows
        if handle is not None
    )
    return Hall(seats, first.qid, bool(first.revealed), bool(first.hold))


_NOT_YET = (None, None)  # no answer, or not revealed: nothing of what was said


def _revealed(choice: str, labels: dict, answer: str, frozen: str | None) -> tuple[str, bool]:
    """A revealed answer: its option's label (a drawn row: "a drawn row") and whether it is right."""
    return ("a drawn row" if frozen else str(labels.get(choice, choice))), drawn.is_right(choice, answer, frozen)


def hold(store: Store, code: str, key: str, on: bool) -> bool:
    """Eyes up on or off; whether it changed (switching it to what it is already changes nothing and moves no
    counter). The room's counter moves with it, so students' pages learn of it. NotPresenter without the
    room's key, NoRoom if it is gone: nothing changes then."""
    if not isinstance(on, bool):
        raise PollError("Eyes up is on or off.")
    value = int(on)
    with store._tx() as conn:
        store._room(conn, code, key)
        changed = conn.execute(
            rooms.update()
            .where((rooms.c.code == code) & (rooms.c.hold != value))
            .values(hold=value, rev=rooms.c.rev + 1, changed_at=store.clock())
            .returning(rooms.c.code)
        ).first()
    return changed is not None
