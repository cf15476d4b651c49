"""Eyes up (issue 51): the presenter's switch, and the hold card a following student's page shows instead of
the page while it is on ("Look at the projector"); a student who joins late sees it too.

The switch sets the room's `hold` through the store, which checks the presenter key and moves the room's
counter (services/poll/hallview.py), so a student's page learns of it as it learns of a move: its one-row
check (ui/poll/follow.py, pushed at once where ui/poll/push.py runs) reruns it. Students who explore on
their own (the follow switch off) keep their page: they chose to work alone, and the issue asks for every
following student's screen; their box says the presenter asked for eyes up. The card is static text: no
user text reaches st.html."""

from __future__ import annotations

import streamlit as st

from services.poll.codes import PollError
from ui.poll import participant, room
from ui.poll.db import store
from ui.poll.link import Link

EYES = "poll_eyes_up"  # the presenter's switch (its widget key: key(on, rev))
CARD = "poll_hold"  # the hold card (a container's key)
_FOCUS = "_poll_eyes_up_focus"  # this session switched it: the next draw gives the new switch the focus back
# The switch is a new widget after each change of the room (key(on, rev)): the browser drops the focus of the old
# one, so a keyboard user would start again from the top of the page. This puts it on the new switch (a selector
# the app makes; nothing is fetched or drawn).
_REFOCUS_JS = """
export default function ({ data }) {
  let tries = 0;
  const find = () => {
    const input = document.querySelector(data.selector);
    if (input) { if (document.activeElement !== input) input.focus(); return; }
    if (++tries < 120) requestAnimationFrame(find);
  };
  find();
}
"""
_refocus = st.components.v2.component("attention_lab_refocus", js=_REFOCUS_JS)
_CARD_CSS = (
    "<style>.st-key-poll_hold { text-align: center; padding: 2.5rem 1rem; }"
    ".st-key-poll_hold h2 { font-size: 2.25rem; line-height: 1.2; text-align: center; justify-content: center; }"
    ".st-key-poll_hold p { font-size: 1.125rem; }</style>"
)


def key(on: bool, rev: int) -> str:
    """The switch's widget key while eyes up is `on` or off at the room's change counter `rev`: one key per
    state of the room, never drawn again once the room changed, so a browser's echo of the switch as it was
    drawn before someone changed the room elsewhere (the presenter's phone) is a widget no longer drawn, not a
    click that switches it back (a key per on/off alone came back at the next change: the browser test saw the
    laptop's stale switch turn eyes up on again)."""
    return f"{EYES}_{int(bool(on))}_{int(rev)}"


def switch(link: Link, now) -> None:
    """The presenter's switch, drawn at the room's value (`now`: the room's live view, or None)."""
    held_now = bool(now is not None and now.hold)
    widget = key(held_now, 0 if now is None else now.rev)
    st.toggle(
        "Eyes up",
        value=held_now,
        key=widget,
        on_change=_switched,
        args=(link, widget),
        help="On: every student who follows you sees only a card asking them to look at the projector, students "
        "who join now too, until you switch it off. Students exploring on their own keep their page, with a note.",
    )
    if held_now:
        st.caption("On: the students who follow you see “Look at the projector” instead of the page.")
    turn = st.session_state.pop(_FOCUS, None)
    if turn is not None:
        with st.sidebar:
            _refocus(key=f"{EYES}_refocus", data={"selector": f".st-key-{widget} input", "turn": turn}, height=0)


def _switched(link: Link, widget: str) -> None:
    from services.poll import hallview

    try:
        hallview.hold(store(), link.room, link.key, bool(st.session_state.get(widget)))
    except PollError as err:
        participant.say(str(err))
    st.session_state[_FOCUS] = st.session_state.get(f"{_FOCUS}_n", 0) + 1
    st.session_state[f"{_FOCUS}_n"] = st.session_state[_FOCUS]
    room.forget(link.room)
    room.seen(link.room)  # this session's own change: no second run for it


def held(link: Link) -> bool:
    """This browser is a student who follows, in a room whose presenter switched eyes up on."""
    if not link.student:
        return False
    now = room.current(link.room)
    return bool(now is not None and now.hold and participant.following())


def card() -> None:
    """The hold card, instead of the page: a heading, and a status line a screen reader announces."""
    with st.container(border=True, key=CARD):
        st.html(_CARD_CSS)
        st.header("Look at the projector", anchor=False)
        st.html(
            '<p role="status">The presenter has paused the hall for a moment. Your page comes back by itself '
            "when they continue: there is nothing to do.</p>"
        )


def note(link: Link) -> None:
    """In an exploring student's box while eyes up is on: what the others see."""
    now = room.current(link.room)
    if now is not None and now.hold and not participant.following():
        st.info(
            "The presenter asked the hall to look at the projector: students who follow see only that for now. "
            "You explore on your own: your page stays.",
            icon=":material/visibility:",
        )
