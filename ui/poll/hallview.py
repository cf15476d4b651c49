"""The presenter's hall view (issue 51): on the presenter's own screen, never the projector's: a box drawn
only while the presenter opens it (ui/shell/lazy.py), as "Continue on another device" is. It shows how many
students are in the room now, each by the anonymous handle the room gives ("student 17"), the page and
lesson step each is on, whether each follows or explores, and for the open question whether each has
answered (yes or no; what, and whether it is right, only once the presenter revealed it).

The box and its caption are drawn by the panel's whole run; the hall inside it by the presenter panel's own
refresh (ui/poll/panel.py, every HALL_EVERY_S): no timer of its own. While open it costs that refresh one
glance at the store (services/poll/presence.glance: the room's counter, who is here and a counter per seat of
what the hall shows of it, in one statement that stands in for the panel's own count query), and only when the
glance moved the hall's one statement (services/poll/hallview.py) and the table's text; the refresh writes the
text into a placeholder the whole run drew, at every refresh (the browser drops what a fragment's run wrote that
its next run does not write again). Nothing while closed; it is right on every replica. It stays open
when the lesson moves the presenter to another page (ui/shell/lazy.py keeps it). Where each student is comes
from their last beat (services/poll/presence.py: one every BEAT_EVERY_S at most). Every cell is escaped text."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import streamlit as st

from services.poll.codes import PollError
from ui.poll import questions
from ui.poll.db import store
from ui.poll.link import Link
from ui.prose.text import md_escape
from ui.shell import lazy, site

BOX = "poll_hall"  # the box's key
# The table fits a 390 px phone in presenter view: its headers break between words, not inside one (the app's
# tables may break a long header anywhere: ui/shell/frame.py), and a handle stays on one line. Static CSS.
_CSS = (
    "<style>.st-key-poll_hall table { font-size: 0.8em; }"
    ".st-key-poll_hall table th { overflow-wrap: normal; }"
    ".st-key-poll_hall table td:first-child { white-space: nowrap; }</style>"
)
HALL_EVERY_S = 1.0  # the presenter's panel refreshes this often, the hall view with it (the issue: within 3 s)
SOON_EVERY_S = 0.5  # ... and this often for SOON_S after the room moved (a Next, a question asked): students are
SOON_S = 4.0  # arriving then (within ~2.5 s even after a replica died), and the hall is right one refresh later
MOVED = "poll_hall_moved"  # (the room's counter as this presenter last saw it, time.monotonic() when it changed)
TITLE = "The hall: who is where, who answered"
SHOWN = "poll_hall_shown"  # (a warning?, its text): what the box's placeholder holds now
SEEN = "poll_hall_seen"  # (the glance's mark with the question, time.monotonic()) at the last whole read
# Equal marks, the same hall, but for one case: in the same refresh one student leaves and another arrives
# whose seats' counters and handles sum alike. A whole read at least this often bounds how long that lasts.
FULL_EVERY_S = 15.0


@dataclass(frozen=True)
class Same:
    """The hall has not changed since the box's placeholder was filled: nothing to read whole or to make again
    (show sends the text made before)."""

    count: int  # who is in the room now


def read(link: Link, qid: str | None):
    """While the box is open, the hall now (read before the panel draws: its count is the panel's), or Same when
    the store's glance says nothing in it changed since the box was filled (at most FULL_EVERY_S ago); a sentence
    when the store refused; None while the box is shut. qid: this page's or step's question, if asked."""
    if not lazy.is_open(BOX, keep=True):
        return None
    from services.poll import hallview, presence

    try:
        look = presence.glance(store(), link.room)
        mark, seen, now = (qid, look.mark), st.session_state.get(SEEN), time.monotonic()
        if seen is not None and seen[0] == mark and now - seen[1] < FULL_EVERY_S and st.session_state.get(SHOWN):
            return Same(look.count)
        hall = hallview.read(store(), link.room, link.key, qid)
    except PollError as err:
        return str(err)
    st.session_state[SEEN] = (mark, now)
    return hall


def soon(rev: int | None) -> bool:
    """Whether the room moved (its counter changed since this presenter's last look) less than SOON_S ago: the
    panel then refreshes every SOON_EVERY_S, else every HALL_EVERY_S (ui/poll/panel.py)."""
    seen = st.session_state.get(MOVED)
    if seen is None or seen[0] != rev:
        seen = (rev, time.monotonic())
        st.session_state[MOVED] = seen
    return time.monotonic() - seen[1] < SOON_S


def settled() -> bool:
    """SOON_S have passed since the room last moved (the quick refresh asks for a whole run to slow down)."""
    seen = st.session_state.get(MOVED)
    return seen is not None and time.monotonic() - seen[1] >= SOON_S


def count_of(hall) -> int | None:
    """How many are in the room, from a hall read or a Same (None: none read)."""
    return None if hall is None or isinstance(hall, str) else hall.count


def box():
    """The box, drawn by the panel's whole run (the refresh redraws neither it nor its caption), and while it is
    open the placeholder the refresh fills (show); None while shut."""
    st.session_state[SHOWN] = None  # a whole run draws the box anew: its placeholder is empty
    box = lazy.opened(TITLE, BOX, icon=":material/groups:", keep=True)
    if box is None:
        return None
    with box:
        st.caption(
            "For your own screen, not the projector: it shows who has not answered yet. It updates itself every "
            f"{'second' if HALL_EVERY_S == 1 else f'{HALL_EVERY_S:g} s'}, every {SOON_EVERY_S:g} s for "
            f"{SOON_S:g} s after the room moves; where each student is, as their page last reported it."
        )
        return st.empty()


def show(slot, hall) -> None:
    """The hall `read` gave into the box's placeholder (from the panel's refresh), at every refresh: the browser
    drops what a fragment's run wrote outside the fragment when its next run does not write it again (the table
    vanished a second after it was drawn). A hall that has not changed (Same) is sent as the text made for it
    before, not made again."""
    if slot is None or hall is None:
        return
    if isinstance(hall, Same):
        said = st.session_state.get(SHOWN)
        if said is None:
            return
    else:
        text = (
            hall
            if isinstance(hall, str)
            else f"**{md_escape(summary(hall))}**" + (f"\n\n{table(hall)}" if hall.seats else "")
        )
        said = (isinstance(hall, str), text)
        st.session_state[SHOWN] = said
    if said[0]:
        slot.warning(md_escape(said[1]), icon=":material/groups:")
    else:  # one element: summary and table
        slot.markdown(said[1])


def style() -> None:
    """The box's static CSS, drawn by the panel's whole run (not by every refresh of the box)."""
    st.html(_CSS)


def summary(hall) -> str:
    """The hall in one sentence, from its numbers (the table's caption)."""
    n = hall.count
    if n == 0:
        said = "Nobody is in the room now"
    else:
        follow, explore = hall.following, n - hall.following
        said = f"{n} in the room now: {follow} follow{'s' * (follow == 1)}, {explore} explore{'s' * (explore == 1)}"
    if hall.qid is not None and n:  # nobody here: no "0 of 0"
        have = "has" if n == 1 else "have"
        said += f"; {hall.answered} of {n} {have} answered the question “{questions.title(hall.qid)}”"
        said += f" (revealed: {hall.right} right)" if hall.revealed else ""
    return said + "."


def where(seat) -> str:
    """The page and step a seat is on, as the sidebar names the page."""
    if seat.page is None:
        return "not known yet"
    page = next((p.title for p in site.PAGES if p.path == seat.page), seat.page)
    return page if seat.step is None else f"{page}, step {seat.step}"


@functools.lru_cache(maxsize=4096)
def _cell(text: str) -> str:
    """A cell escaped (the same few texts every refresh: handles, pages and steps, yes and no)."""
    return md_escape(text)


def table(hall) -> str:
    """The hall as a Markdown table of escaped text."""
    shown = hall.qid is not None
    head = ["Student", "On", "Mode"] + (["Answered"] if shown else []) + (["Answer", "Right"] if hall.revealed else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for here in hall.seats:
        cells = [here.seat.name, where(here.seat), "follows" if here.seat.follows else "explores"]
        cells += ["yes" if here.answered else "no"] if shown else []
        if hall.revealed:  # what each answered: only once revealed (the store sends nothing of it before)
            cells += ["—", "—"] if here.said is None else [here.said, "yes" if here.right else "no"]
        lines.append("| " + " | ".join(map(_cell, cells)) + " |")
    return "\n".join(lines)
