"""Following the presenter in a class-poll room: a student's "Follow the presenter" switch, where the
presenter is (for a student who does not follow) with a button to go there, and the light check that moves
a follower's page.

The check is a fragment that reads one short row of the store (the room's change counter, move count and
view: services/poll/live.py) and draws nothing. It runs with every run of the page, and on a timer. On a
server, a thread of the process reads the room's row for all its sessions and runs a watching session's
page as soon as the counter moved past what its check saw (ui/poll/push.py), so the timer is only a
fallback and runs seldom (WATCH_EVERY_S); without that (another Streamlit), the timer is short
(WATCH_ALONE_S) and carries every change. Only when the counter moved does the page run again: a follower
is moved to the presenter's view (ui.shell.session.ask_goto: the frame switches page and settings before
drawing anything), anyone else reruns to show the new question, reveal or step. The presenter's own
session checks too, so a move made on another device (a phone as a clicker) reaches the projector."""

from __future__ import annotations

import streamlit as st

from services.poll.codes import PollError
from ui.poll import hallcount, participant, push, room
from ui.poll.link import Link
from ui.prose import room_view
from ui.prose.text import md_escape
from ui.shell import session, site

WATCH_ALONE_S = 1.25  # without a push, a follower learns of a move within this (plus its page's run)
WATCH_PUSHED_S = 10.0  # with one (room.FRESH_S plus the run): the timer only in case a push was lost


def watch_every() -> float:
    """The check's timer: long where a room's change is pushed, short where the timer alone carries it."""
    return WATCH_PUSHED_S if push.available() else WATCH_ALONE_S


WATCH_EVERY_S = watch_every()
GONE = push.GONE  # participant.seen() once the room could not be read (closed, expired, the database down)


def switch(view, link: Link, here: dict) -> None:
    """A student's switch, and where the presenter is while it is off (drawn in the poll's box)."""
    participant.mirror_following()
    st.toggle(
        "Follow the presenter",
        key=participant.FOLLOW,
        on_change=_switched,
        args=(link.room,),
        help=room_view.follow_help(),
    )
    now = room.current(link.room)
    if participant.following() or now is None or now.view is None or room.same(now.view, here):
        return
    st.caption(md_escape(room_view.presenter_at(now.view.get("label", ""), site.by_path(now.view["page"]).title)))
    st.button("Go there", key=participant.GO, on_click=_go, args=(link.room,), icon=":material/my_location:")


def _switched(code: str) -> None:
    participant.switched_following()
    if participant.following():  # switched back on: to the presenter's view at once
        _go(code)


def _go(code: str) -> None:
    try:
        now = room.watch(code)
    except PollError as err:
        participant.say(str(err))
        return
    if now.view is not None:
        participant.set_followed(now.moves)
        _to(now.view)


def _to(view: dict) -> None:
    """Show the room's view from the next run's start (the frame switches page and settings)."""
    session.ask_goto(room.controls_of(view)[0], view["page"])


def _moved(now, presenter: bool) -> bool:
    """The presenter moved the view since this browser last followed, and this browser follows."""
    if presenter:
        return now.view is not None and now.moves != participant.followed()
    # a follower under the room's student-paced range stays on their own step (ui/lessons/pacing.py)
    paced = now.step is not None and room.pace(participant.link().room, now.rev) is not None
    return now.view is not None and now.moves != participant.followed() and participant.following() and not paced


def _seen(code: str, rev: int) -> None:
    """This session has seen the room at counter `rev` (GONE: could not read it); the push knows it too."""
    participant.set_seen(rev)
    push.saw(code, rev)


def early() -> None:
    """A run the room's change started (ui/poll/push.py), before the frame chose the page: what the check
    would find after a run, done first. A follower's move goes to the frame (one run, on the presenter's
    page and settings), and the counter is marked seen, so the check in that run asks for no other."""
    link, pushed = participant.link(), push.take()
    if not link.room or not pushed:
        return
    try:
        now = room.watch(link.room)
    except PollError:
        return  # the check in this run says why
    _seen(link.room, now.rev)
    if _moved(now, link.presenter):
        # Not marked followed here: the check of the run on the presenter's page does that (finding the page
        # already there), and if that run is lost (merged with a rerun the browser asked for at that
        # moment), the next check still sees the move.
        _to(now.view)


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
        went = participant.seen() not in (None, GONE)  # gone since the page was drawn: once, to say why
        _seen(code, GONE)
        if went:
            st.rerun()
        return
    first, news = participant.seen() is None, participant.seen() != now.rev
    _seen(code, now.rev)
    if not presenter:
        hallcount.beat(participant.link(), now, here)  # this student is here (a move at once, else one write per 10 s)
    if _moved(now, presenter):
        participant.set_followed(now.moves)
        if not room.same(now.view, here):
            _to(now.view)
            if now.view["page"] != here["page"]:
                st.switch_page(site.file(now.view["page"]))  # one run, on the presenter's page
            st.rerun()
    if news and not first:
        st.rerun()
