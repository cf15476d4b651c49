"""Click a cell, see it computed: the keyboard path to a pick, the worked calculation as Python prose (the map's
panel writes the same), and the softmax's steps and the value flow of the picked cell, with live numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine import analysis
from ui.charts.map_texts import factor, number
from ui.page import tables
from ui.prose.numbers import fmt, tex
from ui.prose.text import quote
from ui.shell import session

MASK_WHY = "the key comes after the query"  # the maps' word for a masked cell (ui.charts.maps.heatmap's `why`)


def pick(trace) -> None:
    """The query and key selectors: the same choice as a click on a map, with a keyboard or a screen reader."""
    name = lambda i: f"{i}: {trace.labels[i]}"  # noqa: E731
    query_col, key_col = st.columns(2)
    query_col.selectbox(
        "Worked cell: query (row)",
        range(trace.T),
        format_func=name,
        key=session.PICK_QUERY,
        placeholder="choose a query token",
    )
    key_col.selectbox(
        "Worked cell: key (column)",
        range(trace.T),
        format_func=name,
        key=session.PICK_KEY,
        placeholder="choose a key token",
    )


def prose(trace, head: int, cell: tuple[int, int]) -> list[str]:
    """The worked calculation of weights[head, i, j] as lines of text, from the engine's explain_cell: the same
    steps and number formats as the attention-map component's panel (a test holds the two together)."""
    i, j = cell
    w = analysis.explain_cell(trace, head, i, j)
    label = trace.labels
    lines = [f"query {label[i]} → key {label[j]}"]
    if not w.visible:
        return lines + [f"masked: {MASK_WHY}; its score is −∞, its softmax share 0"]
    lines.append("q·k = " + " + ".join(f"{factor(a)}×{factor(b)}" for a, b in zip(w.q_i, w.k_j)))
    lines.append("= " + " + ".join(factor(x) for x in w.products))
    lines.append(f"= {number(w.score)}")
    if trace.config.scale_scores:
        lines.append(f"÷ √{trace.config.d_head} = ÷ {number(w.divisor)} → {number(w.scaled)}")
    else:
        lines.append(f"not divided (scaling off) → {number(w.scaled)}")
    return lines + [f"softmax share of row {label[i]}: {fmt(w.weight, '.1%')}"]


def show(trace, head: int, cell: tuple[int, int] | None) -> None:
    """Under the maps: the selectors that pick a cell from the server (the map then shows its worked calculation,
    q·k to the softmax share), and for that cell the softmax's steps and where its weight goes."""
    pick(trace)
    if cell is None:
        st.caption(
            "Click (or tap) any cell of a heatmap above, or choose a query and a key here, to see its "
            "number computed step by step."
        )
        return
    i, j = cell
    w = analysis.explain_cell(trace, head, i, j)
    kj = quote(trace.labels[j])
    st.subheader(f"Worked cell: query {i} → key {j}, head {head}")
    st.caption("Its dot product, scaling and softmax share are written under the map; the softmax's steps follow.")
    if not w.visible:  # the score is divided first, then masked (the map's panel says only "masked")
        d, divided = trace.config.d_head, w.score / w.divisor
        st.latex(
            rf"\text{{scaled}} = \frac{{{tex(w.score, '.5f')}}}{{\sqrt{{{d}}}}} = {tex(divided, '.5f')}"
            if trace.config.scale_scores
            else rf"\text{{scaled}} = s = {tex(divided, '.5f')}\;(\text{{scaling off}})"
        )
        st.latex(rf"\text{{masked: key }} {j} > \text{{query }} {i}\ \Rightarrow\ \text{{scaled}} = -\infty")
        st.warning(
            f"The causal mask hides key {j} from query {i} (it comes later): "
            "its scaled score becomes −∞ (masked), so e^−∞ = 0 and the weight is exactly 0."
        )
    else:
        st.latex(
            rf"e^{{\,\text{{scaled}} - \max}} = e^{{{tex(w.scaled, '.5f')} - {tex(w.row_max, '.5f')}}}"
            rf" = {tex(w.row_exp[j], '.5f')}"
        )
    st.latex(rf"\textstyle\sum_{{j'}} e^{{\,\text{{scaled}}_{{j'}} - \max}} = {tex(w.normaliser, '.5f')}")
    st.latex(
        rf"\text{{weight}} = \frac{{{tex(w.row_exp[j], '.5f')}}}{{{tex(w.normaliser, '.5f')}}} = "
        rf"{tex(w.weight, '.5f')}"
    )
    st.caption(
        "Subtracting the row's largest score before e^x changes no weight (it cancels in the "
        "fraction) and keeps e^x from overflowing."
    )
    cfg = trace.config
    flow = pd.DataFrame(
        {
            "d": np.arange(len(w.products)) + head * cfg.d_head,
            f"v[{j}][d]": w.v_j,
            f"weight × v[{j}][d]": w.contribution,
            f"head output row {i} (all keys)": w.head_out,
        }
    )
    st.markdown(
        f"The weight then scales the value vector of {kj}; row {i} of the head's output is the sum of "
        f"these scaled value vectors over every key."
    )
    tables.table(flow, {c: ".5f" for c in flow.columns[1:]})
