"""The only place the app calls the engine: cached on small keys (config + token tuple), never arrays."""
from __future__ import annotations

import streamlit as st
from threadpoolctl import threadpool_limits

import engine
from engine import analysis, experiments

# The matrices here are small and a lecture hall runs many sessions at once on few cores: one BLAS
# thread per call avoids threads fighting over the cores (set once, for the whole server process).
threadpool_limits(limits=1, user_api="blas")


@st.cache_resource(max_entries=256, show_spinner=False)
def trace(cfg: engine.Config, words: tuple[str, ...]) -> engine.Trace:
    """One forward pass per distinct configuration and sentence.

    A resource, not data: the Trace is frozen all the way down (read-only arrays), so every session
    can share the one object; cache_data would unpickle a private copy on every call (2 ms at the
    largest sizes, more than the forward pass itself at the defaults).
    """
    return engine.run(cfg, words)


@st.cache_data(max_entries=64, show_spinner=False)
def extension(cfg: engine.Config, words: tuple[str, ...], new_token: int | str) -> analysis.Extension:
    """The 5 → 6 comparison: words, then words plus one token."""
    return analysis.extend(cfg, words, new_token)


@st.cache_resource(max_entries=64, show_spinner=False)
def params(cfg: engine.Config) -> engine.Params:
    """The weights of a configuration (read-only arrays, shared safely between sessions)."""
    return engine.init_params(cfg)


# --------------------------------------------------------------------------- the Experiments page


@st.cache_data(max_entries=16, show_spinner=False)
def variance_curve(d_heads: tuple[int, ...], samples: int, seed: int) -> experiments.VarianceCurve:
    return experiments.variance_curve(d_heads, samples, seed)


@st.cache_data(max_entries=64, show_spinner=False)
def random_rows(d_head: int, keys: int, rows: int, seed: int) -> experiments.RandomRows:
    return experiments.random_rows(d_head, keys, rows, seed)


@st.cache_data(max_entries=64, show_spinner=False)
def scaling_rows(cfg: engine.Config, words: tuple[str, ...], init_scale: float) -> experiments.ScalingRows:
    return experiments.scaling_rows(cfg, words, init_scale)


@st.cache_data(max_entries=32, show_spinner=False)
def init_sweep(cfg: engine.Config, words: tuple[str, ...], scales: tuple[float, ...]) -> experiments.InitSweep:
    return experiments.init_sweep(cfg, words, scales)


@st.cache_data(max_entries=32, show_spinner=False)
def positions_test(cfg: engine.Config, words: tuple[str, ...], seed: int) -> experiments.PositionTest:
    return experiments.positions_test(cfg, words, seed)


@st.cache_data(max_entries=32, show_spinner=False)
def causal_test(cfg: engine.Config, words: tuple[str, ...]) -> experiments.CausalTest:
    return experiments.causal_test(cfg, words)
