"""What the presenter's panel (the projector) shows of the hall (issue 51): how many students are in the room
now (from the store's presence: services/poll/presence.py, right on every replica) and the switch that shows
the answers' counts live instead of once revealed (services/poll/live.py). Never who is where: that is not
for the projector. A student's beat (their page and step, following or not) is sent from the light check
that reads the room's row each run (ui/poll/follow.py)."""

from __future__ import annotations

import streamlit as st

from services.poll.codes import PollError
from ui.poll import participant, room
from ui.poll.db import store
from ui.poll.link import Link

LIVE = "poll_live_counts"  # the presenter's switch (a widget key)


def _live():
    from services.poll import live

    return live


def _presence():
    from services.poll import presence

    return presence


def in_room(code: str) -> int | None:
    """Students in the room now, or None where the store could not say."""
    try:
        return _presence().count(store(), code)
    except PollError:
        return None


def live_switch(link: Link) -> bool:
    """The switch, drawn at the store's value; whether counts are shown before the reveal."""
    try:
        on = _live().counts_live(store(), link.room)
    except PollError:
        on = False
    st.session_state[LIVE] = on
    st.toggle(
        "Show the counts live",
        key=LIVE,
        on_change=_switched,
        args=(link,),
        help="Off (the default): the hall sees how many answered, and the answers' bars only once you reveal. "
        "On: the bars grow as answers come in.",
    )
    return on


def _switched(link: Link) -> None:
    try:
        _live().show_counts(store(), link.room, link.key, bool(st.session_state.get(LIVE)))
    except PollError as err:
        participant.say(str(err))


def beat(link: Link, now, here: dict) -> None:
    """A student's heartbeat (written at once after a move, else at most once per 10 s: the store skips
    younger ones from the same place): the page, the room's lesson step when on the room's view, following or
    exploring. A refusal changes nothing and says nothing (the room's check says why a room is gone)."""
    if not link.student or not link.seat:
        return
    paced = participant.paced()  # a student moving on their own: their own step (ui/lessons/pacing.py)
    if paced is not None and participant.following() and room.same(paced[2], here):
        step = paced[1]
    else:
        step = now.step if room.same(now.view, here) else None
    try:
        _presence().beat(store(), link.room, link.seat, here["page"], step, participant.following())
    except PollError:
        pass
