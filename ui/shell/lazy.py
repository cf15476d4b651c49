"""Expanders drawn lazily: their content is built only while they are open.

What few students open (a page's downloads and figures, the engine's code, the share link) then costs
no run anything: the server builds none of it, and the browser loads none of its code (the first code
box on a page alone made the browser start its syntax highlighter, ~0.9 s; benchmarks/README.md).

A box may stay open across pages (`keep`): Streamlit forgets a widget's state when the page changes, so a
box opened on one page would be shut on the next (the presenter's hall view, shut by every Next of a lesson
that moves to another page); its last state is kept in the session and given back to it.
"""

from __future__ import annotations

import streamlit as st


def is_open(key: str, keep: bool = False) -> bool:
    """Whether the box of this key is open in this run, before it is drawn (keep: as `opened`)."""
    if keep:
        kept = f"_lazy_kept_{key}"
        if key in st.session_state:  # drawn on this page: its state now (the click that changed it included)
            st.session_state[kept] = bool(st.session_state[key])
        elif st.session_state.get(kept):  # another page's box was open: this one opens too
            st.session_state[key] = True
    return bool(st.session_state.get(key, False))


def opened(label: str, key: str, icon: str | None = None, where=st, keep: bool = False):
    """An expander (in `where`: st or st.sidebar) that reruns the script when opened or closed; returns
    it while it is open, None while it is closed. keep: open on the next page if it was open here."""
    if keep:
        is_open(key, keep)
    box = where.expander(label, key=key, icon=icon, on_change="rerun")
    return box if box.open else None
