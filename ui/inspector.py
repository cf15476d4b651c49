"""Click a cell, see it computed: the worked calculation of one attention weight with live numbers."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine import analysis
from ui import layout, sidebar


def _new_click(key: str) -> tuple[int, int] | None:
    """The (row, col) a chart's selection holds if it changed since the last run, else None.

    Read before the charts are drawn, so the chart that was clicked is drawn highlighted too.
    """
    ss = st.session_state
    points = ((ss.get(key) or {}).get("selection") or {}).get("cell") or []
    picked = (int(points[0]["r"]), int(points[0]["c"])) if points else None
    fresh = picked is not None and picked != ss.get(f"_seen_{key}")
    ss[f"_seen_{key}"] = picked
    return picked if fresh else None


def clicked(keys: list[str]) -> tuple[int, int] | None:
    """The (query, key) cell to highlight: a new click on any of these charts, else the remembered one."""
    for key in keys:
        picked = _new_click(key)
        if picked is not None:
            sidebar.set_cell(picked)
    return st.session_state.get("cell")


def show(trace, head: int, cell: tuple[int, int] | None) -> None:
    """The worked calculation for weights[head, i, j]."""
    if cell is None:
        st.caption("Click any cell of a heatmap above to see its number computed step by step.")
        return
    i, j = cell
    w = analysis.explain_cell(trace, head, i, j)
    qi, kj = layout.q(trace.labels[i]), layout.q(trace.labels[j])
    cfg = trace.config
    st.subheader(f"Worked cell: query {i} → key {j}, head {head}")
    st.markdown(f"How much does {qi} attend to {kj}? Every number below is read from this run.")
    terms = pd.DataFrame({
        "d": np.arange(len(w.products)) + head * cfg.d_head,
        f"q[{i}][d]": w.q_i, f"k[{j}][d]": w.k_j, "product": w.products, "running sum": w.running,
    })
    left, right = st.columns([3, 2])
    with left:
        layout.table(terms, {c: ".5f" for c in terms.columns[1:]})
    steps = [
        rf"s = q_{{{i}}}\cdot k_{{{j}}} = {w.score:.5f}",
        (rf"\text{{scaled}} = \frac{{{w.score:.5f}}}{{\sqrt{{{cfg.d_head}}}}} = \frac{{{w.score:.5f}}}{{{w.divisor:.4f}}}"
         rf" = {w.scaled:.5f}" if cfg.scale_scores else rf"\text{{scaled}} = s = {w.scaled:.5f}\;(\text{{scaling off}})"),
    ]
    with right:
        for line in steps:
            st.latex(line)
        if not w.visible:
            st.warning(f"The causal mask hides key {j} from query {i} (it comes later): "
                       "its scaled score becomes −∞, so e^−∞ = 0 and the weight is exactly 0.")
        else:
            st.latex(rf"e^{{\,\text{{scaled}} - \max}} = e^{{{w.scaled:.5f} - {w.row_max:.5f}}} = {w.row_exp[j]:.5f}")
        st.latex(rf"\textstyle\sum_{{j'}} e^{{\,\text{{scaled}}_{{j'}} - \max}} = {w.normaliser:.5f}")
        st.latex(rf"\text{{weight}} = \frac{{{w.row_exp[j]:.5f}}}{{{w.normaliser:.5f}}} = {w.weight:.5f}")
    st.caption("Subtracting the row's largest score before e^x changes no weight (it cancels in the "
               "fraction) and keeps e^x from overflowing.")
    flow = pd.DataFrame({"d": terms["d"], f"v[{j}][d]": w.v_j, f"weight × v[{j}][d]": w.contribution,
                         f"head output row {i} (all keys)": w.head_out})
    st.markdown(f"The weight then scales {kj}'s value vector; row {i} of the head's output is the sum of "
                f"these scaled value vectors over every key.")
    layout.table(flow, {c: ".5f" for c in flow.columns[1:]})


def clicked_entry(keys: dict[str, str], first_column: int) -> tuple[str, int, int] | None:
    """A new click on a Q/K/V head-slice chart -> (matrix name, token, column); else the remembered one."""
    for key, name in keys.items():
        picked = _new_click(key)
        if picked is not None:
            st.session_state["qkv_entry"] = (name, picked[0], first_column + picked[1])
    return st.session_state.get("qkv_entry")


def show_projection(trace, params, entry: tuple[str, int, int] | None) -> None:
    """The worked calculation of one entry of Q, K or V."""
    if entry is None:
        return
    name, token, column = entry
    source = trace.x_in if trace.x_norm is None else trace.x_norm
    if token >= trace.T or column >= trace.config.d_model:
        st.session_state.pop("qkv_entry", None)
        st.info("The picked entry no longer exists with these settings.")
        return
    w = {"Q": params.w_q, "K": params.w_k, "V": params.w_v}[name]
    work = analysis.explain_projection(source, w, token, column)
    st.subheader(f"Worked entry: {name}[{token}, {column}] for {layout.q(trace.labels[token])}")
    st.latex(rf"{name}_{{{token},{column}}} = \sum_d X_{{{token},d}}\,(W_{name})_{{d,{column}}} = {work.value:.5f}")
    table = pd.DataFrame({"d": np.arange(len(work.products)), f"X[{token}][d]": work.x_row,
                          f"W_{name}[d][{column}]": work.w_col, "product": work.products,
                          "running sum": work.running})
    layout.table(table, {c: ".5f" for c in table.columns[1:]})
