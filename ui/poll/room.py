"""The room's live view for this browser (services/poll/live.py): read in one row, changed only by the
presenter; the view as the room keeps it (a page and its link's settings, a label such as "Step 3 of 8:
…"), and back into controls for a student who follows. Store errors become a sentence, not a traceback.
The store's modules (SQLAlchemy) are imported when a room is first used, not by a page without one."""
from __future__ import annotations

import streamlit as st

from services.poll.codes import PollError
from ui.poll import place
from ui.poll.link import Link
from ui.poll.db import store
from ui.shell import url
from ui.shell.state import Controls

OWN = ("present", "sidebar")       # the viewer's own settings: never sent to the hall
_LESSON = "_room_lesson"           # (the counter when read, the room's lesson TOML) for this session


def _live():
    from services.poll import live

    return live


def watch(code: str):
    """The room's live view, a services.poll.live.Live (one row); PollError if the room is gone or the
    database did not answer."""
    return _live().watch(store(), code)


def current(code: str):
    """The room's live view, or None where it cannot be read (the poll's box says why)."""
    try:
        return watch(code)
    except PollError:
        return None


def lesson_text(code: str, now) -> str | None:
    """The room's lesson as TOML, read again only when the room's counter moved since this session read it."""
    kept = st.session_state.get(_LESSON)
    if kept is not None and kept[0] == now.rev:
        return kept[1]
    try:
        rev, text = _live().lesson(store(), code)
    except PollError:
        return None
    st.session_state[_LESSON] = (rev, text)
    return text


def here(page: str, controls: Controls, label: str = "") -> dict:
    """This view as the room keeps it: the page, the link's settings (not the viewer's own), a label."""
    params = {k: v for k, v in url.to_params(controls).items() if k not in OWN}
    return {"page": page, "params": params, **({"label": label} if label else {})}


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
        place.say(str(err))
        return None
    place.set_seen(now.rev)
    place.set_followed(now.moves)
    return now


def ask(link: Link, qid: str, asked) -> None:
    """The presenter opens a question for the hall (a lesson step's: keyed by `qid`)."""
    try:
        store().ask(link.room, link.key, qid, asked.prompt, asked.options, asked.answers)
    except PollError as err:
        place.say(str(err))
