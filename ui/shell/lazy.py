"""Expanders drawn lazily: their content is built only while they are open.

What few students open (a page's downloads and figures, the engine's code, the share link) then costs
no run anything: the server builds none of it, and the browser loads none of its code (the first code
box on a page alone made the browser start its syntax highlighter, ~0.9 s; benchmarks/README.md).
"""

from __future__ import annotations

import streamlit as st


def opened(label: str, key: str, icon: str | None = None, where=st):
    """An expander (in `where`: st or st.sidebar) that reruns the script when opened or closed; returns
    it while it is open, None while it is closed."""
    box = where.expander(label, key=key, icon=icon, on_change="rerun")
    return box if box.open else None
