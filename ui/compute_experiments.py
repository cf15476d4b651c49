"""The Experiments page's cached computations (ui/compute.py's keys and rules): the √d variance curve, random
rows, and the comparisons on the first block of the model a page shows (a Handle, keyed by its digest)."""

from __future__ import annotations

import streamlit as st

from engine import experiments
from services.handle import Handle
from ui.compute import KEYS, first_block


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=KEYS)
def variance_curve(d_heads: tuple[int, ...], samples: int, seed: int) -> experiments.VarianceCurve:
    return experiments.variance_curve(d_heads, samples, seed)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=KEYS)
def random_rows(d_head: int, keys: int, rows: int, seed: int) -> experiments.RandomRows:
    return experiments.random_rows(d_head, keys, rows, seed)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=KEYS)
def scaling_rows(model: Handle, words: tuple[str, ...], init_scale: float) -> experiments.ScalingRows:
    one, params = first_block(model)
    return experiments.scaling_rows(one, words, init_scale, params)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=KEYS)
def init_sweep(model: Handle, words: tuple[str, ...], scales: tuple[float, ...]) -> experiments.InitSweep:
    one, params = first_block(model)
    return experiments.init_sweep(one, words, scales, params)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=KEYS)
def positions_test(model: Handle, words: tuple[str, ...], seed: int) -> experiments.PositionTest:
    one, params = first_block(model)
    return experiments.positions_test(one, words, seed, params=params)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=KEYS)
def causal_test(model: Handle, words: tuple[str, ...]) -> experiments.CausalTest:
    one, params = first_block(model)
    return experiments.causal_test(one, words, params)
