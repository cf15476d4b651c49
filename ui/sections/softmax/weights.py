"""The Softmax weights page's parts: the weights at β, one row as bars, each row read, the worked cell."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import engine
import engine.attention
from engine import analysis
from ui import charts, compute
from ui.page import footer, layout, tables
from ui.prose import rows as row_words
from ui.prose import stages
from ui.prose.numbers import spread as spread_cell
from ui.sections.cell import worked
from ui.sections.softmax import keys
from ui.shell import frame, session, state
from ui.shell.view import View


@frame.fragment
def draw(view: View) -> None:
    """Everything under the header, as one fragment: β and the worked cell's selectors rerun only this (a pick on
    the map runs nothing: the browser shows its worked calculation and writes it into the URL's cell=)."""
    t = compute.trace(view.model, view.words, view.layer)
    cfg, h, present = view.config, view.controls.head, view.present
    cell, beta = view.cell, view.controls.beta
    weights, rows = analysis.read_head(t, h, beta)  # (T, T) at β, each row read; the poll reads the same
    at = "" if beta == 1 else f" at β = {beta:g}"

    left, right = layout.columns(view, [3, 2])
    with left:
        charts.heatmap(
            weights,
            t.labels,
            t.labels,
            title=f"weights{at}, head {h}{stages.where(cfg, view.layer)}: {t.T} × {t.T}",
            x_title="key",
            y_title="query",
            signed=False,
            mask=t.mask,
            pick=cell,
            key=session.SOFTMAX_MAP,
            present=present,
            width=left.width,
            area=320,
            fmt=".2f",
            work=compute.worked_cells(view.model, view.words, view.layer, h),  # a pick answered in the browser
            link="cell",
        )
    with right:
        # Drawn beside the map, not above it: in presenter view its tick labels reach 4 px below the widget.
        st.select_slider(
            "β, inverse temperature (1 = the model)",
            options=state.BETAS,
            key=session.FIELD.beta,
            format_func=lambda b: f"{b:g}",
            help="Multiplies every scaled score before the softmax, on this page only; it travels in the link.",
        )
        query = st.selectbox(
            "Query row to plot",
            range(t.T),
            format_func=lambda i: f"{i}: {t.labels[i]}",
            index=cell[0] if cell else 0,
            key=keys.QUERY,
        )
        charts.bars(
            weights[query],
            t.labels,
            title=f"weights of query {t.labels[query]!r}{at}, head {h}",
            highlight=rows[query].top if rows[query].kind == "lean" else None,
            present=present,
        )
    sums = pd.DataFrame(
        {
            "query": list(t.labels),
            "keys": [r.keys for r in rows],
            "row sum": weights.sum(axis=-1),
            "weight": [r.weight for r in rows],
            "uniform": [r.uniform for r in rows],
            "entropy (bits)": engine.attention.row_entropy(weights),
            "spread": [spread_cell(r.spread) for r in rows],
            "attends most to": [row_words.top_cell(r, t.labels) for r in rows],
        }
    )
    tables.table(sums, {"row sum": ".6f", "weight": ".4f", "uniform": ".4f", "entropy (bits)": ".3f"})
    st.caption(
        f"Each row{at}. weight: the row's largest weight; uniform: 1 ÷ the keys the row can see; entropy: 0 "
        "when one key takes everything, log₂(keys) when the row is uniform; spread: entropy ÷ log₂(keys), "
        "1 when every key gets the same weight; a row that sees one key has no spread (—)."
    )

    layout.notice(row_words.softmax_notice(rows, t.labels, beta=beta, trained=view.training is not None))
    if beta != 1:
        st.caption(f"A picked cell's worked calculation uses the model's β = 1, not the β = {beta:g} of the map above.")
    worked.show(t, h, cell)
    footer.exports(
        "softmax", t, {f"weights{at} head {h}": (weights, t.labels, t.labels)}, code=("softmax", "analysis.weights_at")
    )
