"""The room's live view for this browser (services/poll/live.py): read in one row, changed only by the
presenter; the view as the room keeps it (a page and its link's settings, a label such as "Step 3 of 8:
…"), and back into controls for a student who follows. Store errors become a sentence, not a traceback.
The store's modules (SQLAlchemy) are imported when a room is first used, not by a page without one."""

from __future__ import annotations

import threading
import time

import streamlit as st

from services.poll.codes import PollError
from ui.poll import participant
from ui.poll.db import store
from ui.poll.link import Link
from ui.shell import url
from ui.shell.state import Controls

OWN = ("present", "sidebar")  # the viewer's own settings: never sent to the hall
FRESH_S = 0.25  # a room's row read by one session of this process serves the others this long
_rows: dict[str, tuple[float, object]] = {}  # room code -> (when read, Live): shared by this process's sessions
_lessons: dict[str, tuple[int, str | None]] = {}  # room code -> (counter, lesson TOML), read again when it moves
_asked: dict[str, tuple[int, list]] = {}  # room code -> (counter, its questions): the same for everyone
_counts: dict[str, tuple[int, dict]] = {}  # room code -> (counter, counts once revealed: frozen by then)
_paces: dict[str, tuple[int, object]] = {}  # room code -> (counter, its student-paced range or None)
_experiments: dict[str, tuple[int, object]] = {}  # room code -> (counter, its class experiment or None)
_MINE = "_room_mine"  # (counter, {question: choice}) this student's, in the session
_guard = threading.Lock()


def _live():
    from services.poll import live

    return live


def watch(code: str):
    """The room's live view, a services.poll.live.Live (one row); PollError if the room is gone or the
    database did not answer. A hall's checks on one process share a read for FRESH_S: a hundred students
    cost the database a few reads a second, not a hundred."""
    now = time.monotonic()
    with _guard:
        kept = _rows.get(code)
    if kept is not None and now - kept[0] < FRESH_S:
        return kept[1]
    row = _live().watch(store(), code)
    with _guard:
        _rows[code] = (now, row)
    return row


def current(code: str):
    """The room's live view, or None where it cannot be read (the poll's box says why)."""
    try:
        return watch(code)
    except PollError:
        return None


def lesson_text(code: str, now) -> str | None:
    """The room's lesson as TOML, read again (once for the process) only when the room's counter moved."""
    try:
        return _by_rev(_lessons, code, now.rev, lambda: _live().lesson(store(), code)[1])
    except PollError:
        return None


def here(page: str, controls: Controls, label: str = "") -> dict:
    """This view as the room keeps it: the page, the link's settings (not the viewer's own), a label."""
    params = {k: v for k, v in url.to_params(controls).items() if k not in OWN}
    return {"page": page, "params": params, **({"label": label} if label else {})}


def forget(code: str) -> None:
    """The presenter changed the room through the poll's store: this process reads its row again."""
    with _guard:
        _rows.pop(code, None)


def controls_of(view: dict) -> tuple[Controls, list[str]]:
    """The controls a room's view means, read as a link is read (ui.shell.url.from_params)."""
    return url.from_params(view.get("params") or {})


def same(a: dict | None, b: dict | None) -> bool:
    """Two views show the same page with the same settings (labels aside)."""
    return a is not None and b is not None and a["page"] == b["page"] and a["params"] == b["params"]


def update(link: Link, **changes):
    """The presenter changes the room (lesson=, step=, view=: services.poll.live.update); the session then
    knows the change as its own (no rerun for it, and its own move is followed). None, with the reason
    said on the page, when it could not be done."""
    try:
        now = _live().update(store(), link.room, link.key, **changes)
    except (PollError, ValueError) as err:
        participant.say(str(err))
        return None
    with _guard:
        _rows[link.room] = (time.monotonic(), now)  # this process's sessions see the change at once
    participant.set_seen(now.rev)
    participant.set_followed(now.moves)
    return now


def ask(link: Link, qid: str, asked, here: dict | None = None) -> None:
    """The presenter opens a question for the hall (a lesson step's: keyed by `qid`), at the view `here` (its
    page and settings, kept for the export), with the countdown the presenter's panel sets (0: none)."""
    at = {"page": here["page"], "settings": here["params"]} if here else {}
    try:
        store().ask(link.room, link.key, qid, asked.prompt, asked.options, asked.answers, **at)
        count_down(link, qid)
    except PollError as err:
        participant.say(str(err))
    forget(link.room)
    seen(link.room)


def count_down(link: Link, qid: str) -> None:
    """Start the countdown the presenter's panel sets (0: none) on the question just asked (a picked or a drawn
    one); PollError if the store refuses."""
    seconds = st.session_state.get(participant.COUNTDOWN) or 0
    if seconds:
        _pace().countdown(store(), link.room, link.key, qid, seconds)


def seen(code: str) -> None:
    """The presenter's own change is known to this session: its check asks no second run for it (which would
    lose a message said in the callback)."""
    now = current(code)
    if now is not None:
        participant.set_seen(now.rev)  # as update() does


def _pace():
    from services.poll import pace

    return pace


def pace(code: str, rev: int | None) -> tuple[int, int] | None:
    """The room's student-paced range of lesson steps (None: presenter-paced, or the room cannot be read),
    read once per process per change of the room."""
    try:
        return _by_rev(_paces, code, rev, lambda: _pace().pace(store(), code))
    except PollError:
        return None


def set_pace(link: Link, first: int | None, last: int | None = None) -> bool:
    """The presenter sets the range (first, last) or clears it (None); False, with the reason said on the
    page, when it was refused."""
    try:
        if first is None:
            _pace().clear_range(store(), link.room, link.key)
        else:
            _pace().set_range(store(), link.room, link.key, first, last)
    except PollError as err:
        participant.say(str(err))
        return False
    finally:
        forget(link.room)
        seen(link.room)
    return True


def _by_rev(kept: dict, code: str, rev: int | None, read):
    """What `read` gives for the room at this counter, read once per process (every change moves it)."""
    with _guard:
        hit = kept.get(code)
    if rev is not None and hit is not None and hit[0] == rev:
        return hit[1]
    value = read()
    if rev is not None:
        with _guard:
            kept[code] = (rev, value)
    return value


def questions(code: str, rev: int | None) -> list:
    """The room's questions (PollError if the room is gone), once per process per change of the room."""
    return _by_rev(_asked, code, rev, lambda: store().questions(code))


def experiment(code: str, rev: int | None):
    """The room's class experiment (services/poll/experiment.Experiment, or None), once per process per change of
    the room (starting or cancelling one moves its counter)."""
    from services.poll import experiment as cx

    return _by_rev(_experiments, code, rev, lambda: cx.current(store(), code))


def counts(code: str, rev: int | None) -> dict:
    """The answers' counts of a room whose questions are revealed (answers no longer change)."""
    return _by_rev(_counts, code, rev, lambda: store().counts(code))


def mine(code: str, seat: str, rev: int | None) -> dict[str, str]:
    """This student's answers, read again only when the room changed (a reset) or on a new session."""
    kept = st.session_state.get(_MINE)
    if rev is not None and kept is not None and kept[0] == rev:
        return kept[1]
    found = store().my_answers(code, seat)
    st.session_state[_MINE] = (rev, found)
    return found


def answered(qid: str, choice: str) -> None:
    """The student's own answer, stored: kept for the next run without reading it back."""
    kept = st.session_state.get(_MINE)
    if kept is not None:
        st.session_state[_MINE] = (kept[0], {**kept[1], qid: choice})


def kept_answer(qid: str) -> str | None:
    """This student's answer to `qid` as last read from the store or given (None: none)."""
    kept = st.session_state.get(_MINE)
    return None if kept is None else kept[1].get(qid)
