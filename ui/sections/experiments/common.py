"""What the four experiment sections share: their titles, paired maps, line charts and prose."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import experiments as xp
from ui import charts
from ui.charts import colours
from ui.page import layout
from ui.shell.view import View

TITLES = {
    "scale": "1 · Why ÷ √d_head",
    "init": "2 · ÷ √d_head in this block",
    "positions": "3 · Why positions",
    "mask": "4 · Why a causal mask",
}
SERIES_COLOURS = {
    xp.RAW: colours.ORANGE,
    xp.SCALED: colours.BLUE,
    "÷ √d_head": colours.BLUE,
    "raw (no ÷√d)": colours.ORANGE,
    "uniform rows": colours.GREY,
}
SIDE_BY_SIDE = 8  # longest sentence whose two maps sit side by side, readable at 1280 px


def lines(
    view: View,
    table: pd.DataFrame,
    x: str,
    y: str,
    *,
    series: list[str],
    reference: str,
    x_title: str,
    y_title: str,
    x_values: list,
    log_base: int,
    y_log: bool,
    pick: float,
    fmt: str,
) -> None:
    charts.lines(
        table,
        x,
        y,
        series=[(name, SERIES_COLOURS[name]) for name in series],
        reference=reference,
        x_title=x_title,
        y_title=y_title,
        x_values=x_values,
        log_base=log_base,
        y_log=y_log,
        pick=pick,
        fmt=fmt,
        present=view.present,
    )


def two_maps(view: View, *maps: dict) -> None:
    """Two heatmaps of one comparison: side by side while they fit a half-width column, else stacked."""
    side = len(view.words) <= SIDE_BY_SIDE
    for col, spec in zip(layout.two(view, side), maps):
        with col:
            charts.heatmap(**spec, present=view.present, width=col.width, area=230 if side else 560)


def prose(view: View, text: str) -> None:
    """A paragraph of explanation (hidden in presenter view, where the lecturer speaks it)."""
    if not view.present:
        st.markdown(text)


# The page's widget keys, and the state it keeps in the session.
SECTION, DHEAD, INIT, SHUFFLE = "xp_section", "xp_dhead", "xp_init", "xp_shuffle"
_INIT_PRESET, _SEED = "xp_init_preset", "xp_seed"  # the preset the init slider was set for; the shuffle's seed


def init_scale_for(preset: str, default: float) -> None:
    """Start the init-scale slider at the preset's own scale (again when the preset changed)."""
    ss = st.session_state
    if INIT not in ss or ss.get(_INIT_PRESET) != preset:
        ss[INIT] = default
        ss[_INIT_PRESET] = preset


def shuffle_seed() -> int:
    return st.session_state.get(_SEED, 0)


def next_shuffle() -> None:
    st.session_state[_SEED] = shuffle_seed() + 1
