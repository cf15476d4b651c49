"""The presenter key, kept out of every address bar (issue 35): in the session, and in a first-party cookie
the page sets (COOKIE: the room's code and its key), so that reloading the presenter's tab keeps the
presenter's rights on that browser, and nothing on the projected screen shows the key. A link that carries
it, to continue on another device, is drawn only when the presenter opens it.

The cookie is written by a tiny inline component (script only, nothing drawn, nothing fetched, as
ui.shell.screen's) and read by the server from the browser's request (st.context.cookies) on a session's
first run."""

from __future__ import annotations

from urllib.parse import quote, unquote, urlencode

import streamlit as st

from services.poll.codes import TTL_S
from ui.poll import participant
from ui.poll.link import Link
from ui.shell import lazy

COOKIE = "attention_lab_presenter"

_JS = """
export default function ({ data }) {
  const age = data.value ? data.age : 0;
  document.cookie = `${data.cookie}=${data.value}; path=/; max-age=${age}; SameSite=Strict`;
}
"""

_keep = st.components.v2.component("attention_lab_presenter", js=_JS)


def keep(link: Link) -> None:
    """Keep this presenter's room and key in the browser (in the sidebar: it draws nothing)."""
    with st.sidebar:
        _keep(
            key=participant.KEEP,
            data={"cookie": COOKIE, "value": quote(f"{link.room}.{link.key}"), "age": int(TTL_S)},
            height=0,
        )


def remembered(code: str | None) -> str | None:
    """The presenter key this browser keeps for room `code`, or None."""
    if not code:
        return None
    try:
        raw = st.context.cookies.get(COOKIE)
    except Exception:  # no browser behind this run (a bare script)
        return None
    if not isinstance(raw, str):
        return None
    room, _, key = unquote(raw).partition(".")
    return key if room == str(code).strip().upper() and key else None


def elsewhere(link: Link, join_url: str) -> None:
    """'Continue on another device': the presenter's link with the key, drawn only while opened."""
    box = lazy.opened("Continue on another device", participant.ELSEWHERE, icon=":material/devices:")
    if box is None:
        return
    with box:
        st.caption(
            "Anyone with this link runs this room: open it on your own phone or laptop, not on the "
            "projector, and close this box again."
        )
        st.code(
            join_url + ("&" if "?" in join_url else "?") + urlencode({"key": link.key, "present": "1"}),
            language=None,
            wrap_lines=True,
        )
