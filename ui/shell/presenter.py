"""Presenter view: large type for a projector and PageUp / PageDown to step through the pages."""

from __future__ import annotations

import streamlit as st

from ui.shell import session

# Static CSS only: no user text ever reaches st.html.
_LARGE = """
<style>
[data-testid="stMainBlockContainer"] { font-size: 1.25rem; padding-top: 4.2rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 2.6rem; }
[data-testid="stMainBlockContainer"] .katex { font-size: 1.55em; }
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] p { font-size: 1.25rem; }
</style>
"""


def bar(pages: list, current, keys: bool = True) -> None:
    """Bigger type and previous / next buttons (PageUp / PageDown, as on a clicker); without them where
    another part steps with those keys (a lesson's Back and Next)."""
    st.html(_LARGE)
    if not keys:
        return
    index = next(i for i, p in enumerate(pages) if p.url_path == current.url_path)
    back, where, ahead = st.columns([2, 3, 2], vertical_alignment="center")
    if index > 0 and back.button("◀ Previous", key=session.STEP_BACK, shortcut="pageup", width="stretch"):
        st.switch_page(pages[index - 1])
    where.caption(f"Step {index + 1} of {len(pages)} · {current.title}")
    if index < len(pages) - 1 and ahead.button("Next ▶", key=session.STEP_NEXT, shortcut="pagedown", width="stretch"):
        st.switch_page(pages[index + 1])
