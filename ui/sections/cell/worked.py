"""Click a cell, see it computed: the worked calculation of one attention weight with live numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine import analysis
from ui.page import tables
from ui.prose.numbers import tex
from ui.prose.text import quote
from ui.shell import session


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


def show(trace, head: int, cell: tuple[int, int] | None) -> None:
    """The worked calculation for weights[head, i, j], under the selectors that pick its cell."""
    pick(trace)
    if cell is None:
        st.caption(
            "Click (or tap) any cell of a heatmap above, or choose a query and a key here, to see its "
            "number computed step by step."
        )
        return
    i, j = cell
    w = analysis.explain_cell(trace, head, i, j)
    qi, kj = quote(trace.labels[i]), quote(trace.labels[j])
    cfg = trace.config
    st.subheader(f"Worked cell: query {i} → key {j}, head {head}")
    st.markdown(f"How much does {qi} attend to {kj}? Every number below is read from this run.")
    terms = pd.DataFrame(
        {
            "d": np.arange(len(w.products)) + head * cfg.d_head,
            f"q[{i}][d]": w.q_i,
            f"k[{j}][d]": w.k_j,
            "product": w.products,
            "running sum": w.running,
        }
    )
    left, right = st.columns([3, 2])
    with left:
        tables.table(terms, {c: ".5f" for c in terms.columns[1:]})
    divided = w.score / w.divisor  # what the division gives, before any mask
    steps = [
        rf"s = q_{{{i}}}\cdot k_{{{j}}} = {tex(w.score, '.5f')}",
        (
            rf"\text{{scaled}} = \frac{{{tex(w.score, '.5f')}}}{{\sqrt{{{cfg.d_head}}}}} = "
            rf"\frac{{{tex(w.score, '.5f')}}}{{{tex(w.divisor, '.4f')}}} = {tex(divided, '.5f')}"
            if cfg.scale_scores
            else rf"\text{{scaled}} = s = {tex(divided, '.5f')}\;(\text{{scaling off}})"
        ),
    ]
    with right:
        for line in steps:
            st.latex(line)
        if not w.visible:
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
    flow = pd.DataFrame(
        {
            "d": terms["d"],
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
