"""The Q/K/V page's widget keys and the state it keeps in the session: the projection shown, the head slice a
click picks an entry on, and the entry picked."""

from __future__ import annotations

import streamlit as st

WHICH = "qkv_which"  # which projection the page shows: Q, K or V
SLICE = "qkv_slice"  # the head's slice of columns: a click picks one entry
_ENTRY = "qkv_entry"  # (matrix name, token, column) picked on the page


def entry() -> tuple[str, int, int] | None:
    return st.session_state.get(_ENTRY)


def set_entry(picked: tuple[str, int, int] | None) -> None:
    st.session_state[_ENTRY] = picked
