"""The latency floor: the smallest app that draws what a page of Attention Lab draws (one slider, one T x T
Altair heatmap), written to a temporary folder with this project's Streamlit configuration. The latency, load,
cold-start and fragment benchmarks compare the app against it."""

from __future__ import annotations

import shutil
import tempfile
import textwrap
from pathlib import Path

from harness import browser as bs

FLOOR_APP = '''
"""Latency floor: one slider and one Altair heatmap of T x T cells, nothing else."""
import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

T = st.sidebar.slider("Sequence length T", 2, 64, int(st.query_params.get("seq_len", 4)), key="seq_len")
labels = [f"t{i}" for i in range(T)]
values = np.random.default_rng(T).standard_normal((T, T))
data = pd.DataFrame({"row": np.repeat(labels, T), "col": np.tile(labels, T), "value": values.ravel()})
cell = int(min(52, max(6, 460 // T)))
chart = alt.Chart(data).mark_rect().encode(
    x=alt.X("col:N", sort=labels), y=alt.Y("row:N", sort=labels),
    color=alt.Color("value:Q", scale=alt.Scale(scheme="blueorange", domainMid=0)),
    tooltip=["row", "col", alt.Tooltip("value:Q", format=".4f")],
).properties(width=cell * T, height=cell * T)
st.altair_chart(chart, width="content")
'''


def write_floor(source: str = FLOOR_APP, prefix: str = "attention-lab-floor-") -> Path:
    """A floor app (the one-chart app, or another `source`) as floor_app.py in a new temporary folder, with this
    project's Streamlit configuration."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    (folder / "floor_app.py").write_text(textwrap.dedent(source))
    (folder / ".streamlit").mkdir()
    shutil.copy(bs.ROOT / ".streamlit" / "config.toml", folder / ".streamlit" / "config.toml")
    return folder
