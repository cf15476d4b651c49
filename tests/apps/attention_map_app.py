"""A tiny app that mounts ui.charts.attention_map for tests/test_attention_map.py's browser tests: ?t=<tokens>
(default 4), ?report=1 (the weights map reports its picks), ?present=1; a hostile label among the tokens, a scores
map and a weights map with their worked calculation, and a counter of this session's script runs (the browser tests
also count them on the websocket)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's packages

from ui.charts.attention_map import Panel, attention_map, worked  # noqa: E402

HOSTILE = ["<img src=x onerror=alert(1)>", "<script>alert(2)</script>", "ok", "cat"]

st.session_state["runs"] = st.session_state.get("runs", 0) + 1
T = int(st.query_params.get("t", "4"))
labels = [HOSTILE[i] if i < len(HOSTILE) else f"w{i}" for i in range(T)]
rng = np.random.default_rng(7)
d = 4
q, k = rng.normal(size=(T, d)), rng.normal(size=(T, d))
mask = np.tril(np.ones((T, T), bool))
scores = np.where(mask, q @ k.T / np.sqrt(d), -np.inf)
weights = np.exp(scores - scores.max(axis=1, keepdims=True))
weights /= weights.sum(axis=1, keepdims=True)
work = worked(q, k, weights, mask)
st.title("Attention map test")
attention_map(
    [Panel(scores, "Scaled scores", mask, work)],
    key="scores",
    rows=labels,
    highlight=2 if T > 2 else None,
)
report = st.query_params.get("report") == "1"  # a server part that needs the pick: one run per pick
result = attention_map(
    [Panel(weights, "Softmax weights", mask, work)],
    key="weights",
    rows=labels,
    signed=False,
    mask_text="0",
    report_pick=report,
    present=st.query_params.get("present") == "1",
)
if report:
    st.caption(f"picked: {result.pick}")
st.caption(f"runs: {st.session_state['runs']}")
