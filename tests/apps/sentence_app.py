"""A tiny app that mounts ui.charts.attention_sentence's sentence view for tests/test_sentence_view.py: ?t=<words>
(default 6), ?present=1; a hostile word among them, causal weights from a fixed seed, and a counter of this
session's script runs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's packages

from ui.charts.attention_sentence import sentence_view  # noqa: E402

WORDS = ["<img src=x onerror=alert(1)>", "the", "cat", "sat", "on", "the", "mat", "."]

st.session_state["runs"] = st.session_state.get("runs", 0) + 1
T = int(st.query_params.get("t", "6"))
tokens = [WORDS[i] if i < len(WORDS) else f"w{i}" for i in range(T)]
mask = np.tril(np.ones((T, T), bool))
scores = np.where(mask, np.random.default_rng(3).normal(scale=2.0, size=(T, T)), -np.inf)
weights = np.exp(scores - scores.max(axis=1, keepdims=True))
weights /= weights.sum(axis=1, keepdims=True)
st.title("Sentence view test")
sentence_view(weights, tokens, key="sentence", title="layer 0 · head 1", mask=mask)
st.caption(f"runs: {st.session_state['runs']}")
