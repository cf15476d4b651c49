"""The only place the app calls the engine: cached on small keys (config + token tuple), never arrays."""
from __future__ import annotations

import streamlit as st

import engine
from engine import analysis


@st.cache_data(max_entries=256, show_spinner=False)
def trace(cfg: engine.Config, words: tuple[str, ...]) -> engine.Trace:
    """One forward pass per distinct configuration and sentence."""
    return engine.run(cfg, words)


@st.cache_data(max_entries=64, show_spinner=False)
def extension(cfg: engine.Config, words: tuple[str, ...], new_token: int | str) -> analysis.Extension:
    """The 5 → 6 comparison: words, then words plus one token."""
    return analysis.extend(cfg, words, new_token)


@st.cache_data(max_entries=64, show_spinner=False)
def shuffled(cfg: engine.Config, words: tuple[str, ...], seed: int) -> analysis.Shuffle:
    return analysis.shuffle(cfg, words, seed)


@st.cache_data(max_entries=16, show_spinner=False)
def score_variance(d_heads: tuple[int, ...], samples: int, seed: int) -> dict:
    return analysis.score_variance(d_heads, samples, seed)


@st.cache_resource(max_entries=64, show_spinner=False)
def params(cfg: engine.Config) -> engine.Params:
    """The weights of a configuration (read-only arrays, shared safely between sessions)."""
    return engine.init_params(cfg)
