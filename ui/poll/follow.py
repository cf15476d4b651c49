"""Following the presenter in a class-poll room: a student's "Follow the presenter" switch, where the
presenter is (for a student who does not follow) with a button to go there, and the light check that moves
a follower's page.

The check is a fragment on a timer (WATCH_EVERY_S) that reads one short row of the store (the room's
change counter, move count and view: services/poll/live.py) and draws nothing. Only when the counter moved
does the page run again: a follower is moved to the presenter's view (ui.shell.session.ask_goto: the frame
switches page and settings before drawing anything), anyone else reruns to show the new question, reveal
or step. The presenter's own session checks too, so a move made on another device (a phone as a clicker)
reaches the projector."""
from __future__ import annotations

import streamlit as st

from services.poll.codes import PollError
from ui.poll import place, room
from ui.poll.link import Link
from ui.prose import room as words
from ui.prose.text import md_escape
from ui.shell import session, site

WATCH_EVERY_S = 1.25       # a follower learns of a move within this (plus its page's run)
GONE = -1                  # place.seen() once the room could not be read (closed, expired, the database down)


def switch(view, link: Link, here: dict) -> None:
    """A student's switch, and where the presenter is while it is off (drawn in the poll's box)."""
    place.mirror_following()
    st.toggle("Follow the presenter", key=place.FOLLOW, on_change=_switched, args=(link.room,),
              help=words.follow_help())
    now = room.current(link.room)
    if place.following() or now is None or now.view is None or room.same(now.view, here):
        return
    st.caption(md_escape(words.presenter_at(now.view.get("label", ""), site.by_path(now.view["page"]).title)))
    st.button("Go there", key=place.GO, on_click=_go, args=(link.room,), icon=":material/my_location:")


def _switched(code: str) -> None:
    place.switched_following()
    if place.following():                              # switched back on: to the presenter's view at once
        _go(code)


def _go(code: str) -> None:
    try:
        now = room.watch(code)
    except PollError as err:
        place.say(str(err))
        return
    if now.view is not None:
        place.set_followed(now.moves)
        session.ask_goto(room.controls_of(now.view)[0], now.view["page"])


def watch(link: Link, here: dict) -> None:
    """Mount the light check for this browser (a student's, or the presenter's)."""
    _check(link.room, here, link.presenter)


@st.fragment(run_every=WATCH_EVERY_S)
def _check(code: str, here: dict, presenter: bool) -> None:
    """One row of the store; a run of the page only when it changed (here: this page's view as the room
    keeps it, from the page's last full run)."""
    try:
        now = room.watch(code)
    except PollError:
        went = place.seen() not in (None, GONE)        # gone since the page was drawn: once, to say why
        place.set_seen(GONE)
        if went:
            st.rerun()
        return
    first, news = place.seen() is None, place.seen() != now.rev
    place.set_seen(now.rev)
    if now.view is not None and now.moves != place.followed() and (presenter or place.following()):
        place.set_followed(now.moves)
        if not room.same(now.view, here):
            session.ask_goto(room.controls_of(now.view)[0], now.view["page"])
            if now.view["page"] != here["page"]:
                st.switch_page(site.file(now.view["page"]))   # one run, on the presenter's page
            st.rerun()
    if news and not first:
        st.rerun()
