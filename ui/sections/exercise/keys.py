"""The exercise's widget keys and the state it keeps in the session: the new token's widgets (given their
default again when the sentence brings another one) and the reveal."""

from __future__ import annotations

from typing import Any

import streamlit as st

PREDICTION, GUESS = "ex_prediction", "ex_guess"
TOKEN_KIND, TOKEN_ID, TOKEN_WORD = "ex_token_kind", "ex_token_id", "ex_token_word"
TOKEN_DEFAULT, REVEAL, REVEAL_NOW, HIDE = "ex_token_default", "ex_reveal", "ex_reveal_now", "ex_hide"
TWIST = {"causal": "ex_twist_causal", "positions": "ex_twist_positions"}
VOCAB_OPEN = "ex_vocab_open"  # the expander listing a large vocabulary (drawn only while open)
_DEFAULT = "ex_default"  # the default new token the widgets were last given
_REVEALED = "ex_revealed"  # {"setup", "prediction", "guess"} once revealed


def token_defaults(default: str, defaults: dict[str, Any]) -> None:
    """Give the new-token widgets their default (again when the default token changed: a new preset,
    sentence or length)."""
    ss = st.session_state
    if ss.get(_DEFAULT) != default:
        ss[_DEFAULT] = default
        ss.update(defaults)
    for key, value in defaults.items():  # Streamlit forgets the state of a widget not drawn
        ss.setdefault(key, value)


def reset_token(defaults: dict[str, Any]) -> None:
    st.session_state.update(defaults)


def revealed() -> dict | None:
    return st.session_state.get(_REVEALED)


def reveal(setup: str, prediction: str | None) -> None:
    st.session_state[_REVEALED] = {"setup": setup, "prediction": prediction, "guess": st.session_state.get(GUESS) or ""}


def hide_reveal() -> None:
    st.session_state.pop(_REVEALED, None)
