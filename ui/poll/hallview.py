"""The presenter's hall view (issue 51): on the presenter's own screen, never the projector's: a box drawn
only while the presenter opens it (ui/shell/lazy.py), as "Continue on another device" is. It shows how many
students are in the room now, each by the anonymous handle the room gives ("student 17"), the page and
lesson step each is on, whether each follows or explores, and for the open question whether each has
answered (yes or no; what, and whether it is right, only once the presenter revealed it).

It refreshes itself every HALL_EVERY_S with one statement on the store (services/poll/hallview.py: the room,
the open question, the presence rows and their answers, joined), so it is right on every replica and costs
the store one light read per refresh while open, nothing while closed. Where each student is comes from
their last beat (services/poll/presence.py: one every BEAT_EVERY_S at most). Every cell is escaped text."""

from __future__ import annotations

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
HALL_EVERY_S = 2.0  # the hall view reads the store this often while open (the issue: within 3 s)


def draw(link: Link, qid: str | None) -> None:
    """The box, and while it is open the hall (qid: this page's or step's question, if asked)."""
    box = lazy.opened("The hall: who is where, who answered", BOX, icon=":material/groups:")
    if box is None:
        return
    with box:
        st.html(_CSS)
        st.caption(
            "For your own screen, not the projector: it shows who has not answered yet. It updates itself every "
            f"{HALL_EVERY_S:g} s; where each student is, as their page last reported it."
        )
        _hall(link.room, link.key, qid)


def summary(hall) -> str:
    """The hall in one sentence, from its numbers (the table's caption)."""
    n = hall.count
    if n == 0:
        said = "Nobody is in the room now"
    else:
        follow, explore = hall.following, n - hall.following
        said = f"{n} in the room now: {follow} follow{'s' * (follow == 1)}, {explore} explore{'s' * (explore == 1)}"
    if hall.qid is not None:
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
        lines.append("| " + " | ".join(md_escape(c) for c in cells) + " |")
    return "\n".join(lines)


@st.fragment(run_every=HALL_EVERY_S)
def _hall(code: str, key: str, qid: str | None) -> None:
    from services.poll import hallview

    try:
        hall = hallview.read(store(), code, key, qid)
    except PollError as err:
        st.warning(md_escape(str(err)), icon=":material/groups:")
        return
    st.markdown(f"**{md_escape(summary(hall))}**")
    if hall.seats:
        st.markdown(table(hall))
