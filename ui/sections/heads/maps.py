"""The Per-head maps page's parts: every head's weights, each row's spread, the concat and W_O."""

from __future__ import annotations

import numpy as np
import streamlit as st

from engine import analysis
from ui import charts, compute
from ui.charts.attention_map import Panel, attention_map
from ui.page import footer, layout
from ui.prose import rows as row_words
from ui.prose import stages
from ui.prose.numbers import count, every
from ui.shell.view import View


def draw(view: View) -> None:
    """Everything under the header."""
    t = compute.trace(view.model, view.words, view.layer)
    if view.config.n_layers > 1:
        st.markdown(
            f"**Layer {view.layer} of {view.config.n_layers}**: head {view.head} is the one the other pages "
            "show (sidebar: Layer to show, Head to show; or click a map on the model view)."
        )
    cfg, present = view.config, view.present
    H, T, C = cfg.num_heads, t.T, cfg.d_model
    domain = charts.weight_domain(t.weights)
    attention_map(  # every head in one component: one payload, one script, two maps a row (one on a phone)
        [Panel(t.weights[h], f"head {h}{stages.where(cfg, view.layer)}", t.mask) for h in range(H)],
        key="heads_maps",
        rows=t.labels,
        signed=False,
        domain=domain,
        mask_text="0",
        pick=None if view.cell is None else (0, *view.cell),
        present=present,
        width=view.width,
        area=230,
        across=1 if view.stacked else 2,
    )
    st.caption(
        f"{every(H, 'map').capitalize()} share one colour scale, 0 to {domain[1]:.3f}."
        if H > 1
        else f"The map's colour scale runs from 0 to {domain[1]:.3f}"
        + (" (stretched to the largest weight)." if charts.colours.stretched() else " (fixed: 0–1 on every map).")
    )

    spread = analysis.spread(t.weights, t.visible)  # (H, T); NaN where a row sees one key
    st.subheader("How evenly is each row spread?")
    st.markdown(
        "Each query row's **spread**: its entropy ÷ log₂(the keys it can see). **1** = every visible key "
        "gets the same weight, **0** = all weight on one key. A row that sees one key only (the first "
        "row under the causal mask) has no choice to make: it is drawn grey."
    )
    charts.heatmap(
        np.nan_to_num(spread.T),
        t.labels,
        [f"head {h}" for h in range(H)],
        title=f"spread: {count(T, 'query', 'queries')} × {count(H, 'head')}",
        x_title="head",
        y_title="query",
        signed=False,
        domain=(0.0, 1.0),
        mask=~np.isnan(spread.T),
        mask_word="1 key",
        legend="spread",
        why="the row sees one key only",
        key="heads_spread",
        present=present,
        width=view.width,
        area=min(560, 70 * H),
        fmt=".2f",
    )

    dims = t.dims
    cols, area = layout.two_maps(view, C)  # wider maps get the full width each
    with cols[0]:
        charts.heatmap(
            t.concat,
            t.labels,
            dims,
            title=f"concat: {T} × {C}",
            x_title="column",
            y_title="token",
            key="heads_concat",
            present=present,
            width=cols[0].width,
            area=area,
        )
    with cols[1]:
        if cfg.output_projection:
            charts.heatmap(
                t.attn,
                t.labels,
                dims,
                title=f"attn = concat · W_O: {T} × {C}",
                x_title="column",
                y_title="token",
                key="heads_attn",
                present=present,
                width=cols[1].width,
                area=area,
            )
        else:
            st.info("This preset has no output projection: the concat is the attention output.")

    layout.notice(row_words.spread_notice(spread, t.labels, trained=view.training is not None))
    footer.exports(
        "heads",
        t,
        {
            **{f"weights head {h}": (t.weights[h], t.labels, t.labels) for h in range(H)},
            "concat": (t.concat, t.labels, dims),
            "attn": (t.attn, t.labels, dims),
        },
        code=("merge_heads",),
    )
