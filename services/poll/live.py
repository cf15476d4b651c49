"""A room's live view (issue 35): the lesson it follows (its TOML file), the step it is at, the view every
following student is shown (a page and its link's settings, as JSON), and a counter that every change
moves: a question asked, revealed or reset, the room closed (services/poll/store.py), a move, a lesson
edited (here). A student's page learns of any change by reading one short row (watch), and reads the
lesson's text only when the counter moved.

Only the presenter key changes a room; every write is one transaction and moves the counter. Functions of
a Store, on its engine and its room check (the same SQLite file or PostgreSQL for every replica)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import sqlalchemy as sa

from services.poll.codes import NoRoom
from services.poll.schema import rooms
from services.poll.store import Store

MAX_LESSON = 100_000  # bytes of a lesson's TOML (an uploaded file's limit)
MAX_VIEW = 4_000  # bytes of a view's JSON (a link's settings)
MAX_LABEL = 200  # characters of its label
KEEP = object()  # update(): leave this column as it is

_code = sa.bindparam("code")
WATCH = sa.select(
    rooms.c.rev,
    rooms.c.moves,
    rooms.c.lesson_step,
    rooms.c.view,
    rooms.c.lesson.is_not(None),
    rooms.c.changed_at,
    rooms.c.closed,
    rooms.c.expires_at,
    rooms.c.hold,
).where(rooms.c.code == _code)
LESSON = sa.select(rooms.c.rev, rooms.c.lesson).where(rooms.c.code == _code)


@dataclass(frozen=True)
class Live:
    rev: int  # every change so far
    moves: int  # every move of the view so far
    step: int | None  # the lesson's step, from 1 (None: no lesson, or a view outside it)
    view: dict | None  # {"page": path, "params": {key: value}}: what followers are shown
    lesson: bool  # the room follows a lesson
    changed_at: float | None  # when the last change was made (the store's clock)
    hold: bool = False  # eyes up: following students see the hold card (services/poll/hallview.py)


def watch(store: Store, code: str) -> Live:
    """The room's live view in one read of one row (NoRoom if the room is wrong, expired or closed)."""
    with store._tx(write=False) as conn:
        row = conn.execute(WATCH, {"code": code}).first()
    if row is None or row.expires_at <= store.clock():
        raise NoRoom.gone(code, store.ttl_s)
    if row.closed:
        raise NoRoom.closed(code)
    return Live(
        int(row.rev),
        int(row.moves),
        row.lesson_step,
        json.loads(row.view) if row.view else None,
        bool(row[4]),
        row.changed_at,
        bool(row.hold),
    )


def lesson(store: Store, code: str) -> tuple[int, str | None]:
    """(the counter, the room's lesson as TOML or None)."""
    with store._tx(write=False) as conn:
        store._room(conn, code)
        row = conn.execute(LESSON, {"code": code}).first()
    return int(row.rev), row.lesson


def view_json(page: str, params: dict[str, str], label: str = "") -> dict:
    """A view as the room keeps it: a page, its link's settings, a label for a student who does not follow
    ("Step 3 of 8: …"); checked for size (a link's settings, not a document)."""
    view = {
        "page": str(page),
        "params": {str(k): str(v) for k, v in params.items()},
        **({"label": str(label)[:MAX_LABEL]} if label else {}),
    }
    if len(json.dumps(view)) > MAX_VIEW:
        raise ValueError(f"a view's settings may take at most {MAX_VIEW:,} bytes")
    return view


def update(store: Store, code: str, key: str, *, lesson=KEEP, step=KEEP, view=KEEP) -> Live:
    """The presenter changes the room: its lesson (TOML, or None to end it), its step (from 1, or None),
    the view followers are shown (a move: the move counter goes up). NotPresenter without the room's key.
    A step outside the room's student-paced range, a view outside the lesson or the lesson's end ends it."""
    values: dict = {"rev": rooms.c.rev + 1, "changed_at": store.clock()}
    if lesson is not KEEP:
        if lesson is not None and len(lesson.encode()) > MAX_LESSON:
            raise ValueError(f"a lesson may take at most {MAX_LESSON:,} bytes")
        values["lesson"] = lesson
    if step is not KEEP:
        values["lesson_step"] = step
    if view is not KEEP:
        values["view"] = (
            None if view is None else json.dumps(view_json(view["page"], view["params"], view.get("label", "")))
        )
        values["moves"] = rooms.c.moves + 1
    if step is not KEEP or lesson is not KEEP:  # a student-paced range ends outside it (services/poll/pace.py)
        from services.poll import pace

        values.update(pace.kept_when(step, lesson))
    with store._tx() as conn:
        store._room(conn, code, key)
        conn.execute(rooms.update().where(rooms.c.code == code).values(**values))
    return watch(store, code)


# ------------------------------------------------------------------ counts hidden until the reveal (issue 51)
def show_counts(store: Store, code: str, key: str, on: bool) -> None:
    """The presenter's switch: the answers' counts shown live (on) or only once revealed (off, the default).
    NotPresenter without the room's key (nothing changes)."""
    with store._tx() as conn:
        store._room(conn, code, key)
        conn.execute(rooms.update().where(rooms.c.code == code).values(live_counts=int(bool(on))))


def counts_live(store: Store, code: str) -> bool:
    """Whether the room shows its counts before the reveal (NoRoom if it is gone)."""
    with store._tx(write=False) as conn:
        store._room(conn, code)
        return bool(conn.execute(sa.select(rooms.c.live_counts).where(rooms.c.code == code)).scalar())


def shown_counts(store: Store, code: str) -> dict[str, dict[str, int]]:
    """{question: {choice: students}} of the questions whose counts may be shown: the revealed ones, or
    every one while the presenter shows counts live."""
    revealed = {q.qid for q in store.questions(code) if q.revealed}
    every = counts_live(store, code)
    return {qid: n for qid, n in store.counts(code).items() if every or qid in revealed}
