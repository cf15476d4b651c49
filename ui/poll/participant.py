"""This browser as a participant of a class poll (presenter or student), kept in its session: the link
(room, and presenter key or seat), a message for the next run, a student's chosen answers; and the poll's widget
keys."""

from __future__ import annotations

import streamlit as st

from ui.poll.link import Link

START, ASK, CLOSE, CSV = "poll_start", "poll_ask", "poll_close", "poll_csv"  # the presenter's buttons
REVEAL, RESET = "poll_reveal", "poll_reset"
COUNTDOWN = "poll_countdown"  # the presenter's countdown for the next question asked (seconds, 0: none)
PANEL, BOX = "poll_panel", "poll_box"  # the presenter's panel and a student's box (containers)
KEEP, ELSEWHERE = "poll_keep", "poll_elsewhere"  # the presenter key's cookie; "Continue on another device"
_LINK = "_poll"  # ui.poll.link.Link, read from the URL once
_SAID = "_poll_said"  # a message for the next run (a room that is gone, a key that is wrong)
FOLLOW, GO, SEND = "room_follow", "room_go", "room_send"  # a student's switch and button; the presenter's "send"
_FOLLOWING = "_room_following"  # the switch's value, kept apart from the widget (a page switch
# may drop a widget's state; this survives it)
_SEEN = "_room_seen"  # the room's change counter as this session last saw it
_FOLLOWED = "_room_followed"  # the room's move count this session last followed (or let pass)
_PACED = "_room_paced"  # a student's own step under the room's range: (range, step, the step's view)


def answer_key(qid: str) -> str:
    """A student's radio for one question of the room."""
    return f"poll_answer_{qid}"


def link() -> Link:
    """This browser's Link (an empty one until the URL named a room)."""
    return st.session_state.get(_LINK) or Link()


def set_link(value: Link) -> None:
    st.session_state[_LINK] = value


def say(message: str) -> None:
    st.session_state[_SAID] = message


def said() -> str | None:
    return st.session_state.pop(_SAID, None)


def choice(widget: str, stored: str | None) -> None:
    """Start a question's radio at the answer the store holds for this seat (a reload, a reconnect to
    another replica)."""
    st.session_state.setdefault(widget, stored)


def following() -> bool:
    """A student follows the presenter's view unless they switched it off (on by default)."""
    return bool(st.session_state.get(_FOLLOWING, True))


def mirror_following() -> None:
    """Before the switch is drawn: it shows what the session keeps."""
    st.session_state[FOLLOW] = following()


def switched_following() -> None:
    """The switch moved: keep its value."""
    st.session_state[_FOLLOWING] = bool(st.session_state.get(FOLLOW, True))


def seen() -> int | None:
    return st.session_state.get(_SEEN)


def set_seen(rev: int) -> None:
    st.session_state[_SEEN] = rev


def followed() -> int:
    return int(st.session_state.get(_FOLLOWED, 0))


def set_followed(moves: int) -> None:
    st.session_state[_FOLLOWED] = moves


def paced() -> tuple[tuple[int, int], int, dict] | None:
    """A student's own lesson step while the room lets them move on their own: (the range, the step, the
    step's view as the room keeps it), or None."""
    return st.session_state.get(_PACED)


def set_paced(value: tuple[tuple[int, int], int, dict] | None) -> None:
    st.session_state[_PACED] = value
