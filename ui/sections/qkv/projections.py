"""The Q, K, V page's parts: X, the weight matrices, the projections and each head's slice, the worked entry."""

from __future__ import annotations

import functools

import streamlit as st

import engine
import engine.attention
from engine import analysis
from ui import charts, compute
from ui.page import footer, layout
from ui.prose import stages
from ui.prose.numbers import count
from ui.sections.qkv import entry, keys
from ui.sections.qkv import words as qkv_words
from ui.shell import frame
from ui.shell.view import View


@frame.fragment
def draw(view: View) -> None:
    """Everything under the header, as one fragment: the projection picked and a click on the head's slice (the
    worked entry) rerun only this."""
    t = compute.trace(view.model, view.words, view.layer)
    params = compute.block(view.model, view.layer)
    cfg, h, present = view.config, view.controls.head, view.present
    T, C = t.x.shape
    dims = t.dims
    first, last = analysis.head_columns(cfg, h)
    st.latex(
        rf"{stages.x_symbol(cfg, view.layer)}:\ {T}\times{C},\quad W_Q, W_K, W_V:\ {C}\times{C},"
        rf"\quad Q, K, V:\ {T}\times{C}"
        rf"\ \to\ \text{{{count(cfg.num_heads, 'head')}}}\times {T}\times{cfg.d_head}"
    )

    source = t.source
    title = (
        ("X (token vectors)" if t.positions is None else "X + positions")
        if view.layer == 0
        else f"X of layer {view.layer} (layer {view.layer - 1}'s output)"
    )
    title += "" if t.x_norm is None else ", layer-normed"
    name = st.segmented_control("Projection", ["Q", "K", "V"], default="Q", key=keys.WHICH) or "Q"
    weight = {"Q": params.w_q, "K": params.w_k, "V": params.w_v}[name]
    full = {"Q": t.q, "K": t.k, "V": t.v}[name]  # (H, T, d_head)

    charts.heatmap(
        source,
        t.labels,
        dims,
        title=f"{title}: {T} × {C}",
        x_title="dimension",
        y_title="token",
        key="qkv_x",
        present=present,
        width=view.width,
        area=600,
    )
    charts.heatmap(
        weight,
        dims,
        dims,
        title=f"W_{name}{stages.where(cfg, view.layer)}: {C} × {C}",
        x_title="output column",
        y_title="input dimension",
        key="qkv_wmat",
        present=present,
        width=view.width,
        area=420,
    )

    st.subheader(
        f"{name} = {stages.source(cfg, view.layer)}·W_{name}, and head {h}'s slice{stages.where(cfg, view.layer)}"
    )
    st.caption(
        f"Head {h} owns columns {first}…{last} of Q, K and V "
        f"({count(cfg.num_heads, 'head')} × {count(cfg.d_head, 'column')} = {C}). Pick another head in the sidebar."
    )
    domain = charts.symmetric_domain(full)
    picked = entry.entry()
    mine = picked if picked and picked[0] == name else None
    charts.heatmap(
        engine.attention.merge_heads(full),
        t.labels,
        dims,
        title=f"{name}: {T} × {C}",
        x_title="column",
        y_title="token",
        domain=domain,
        key="qkv_full",
        pick=mine[1:] if mine else None,
        present=present,
        width=view.width,
        area=600,
    )
    local = (mine[1], mine[2] - first) if mine and first <= mine[2] <= last else None
    charts.heatmap(
        full[h],
        t.labels,
        [str(c) for c in range(first, last + 1)],
        title=f"{name.lower()} for head {h}: {T} × {cfg.d_head}",
        x_title="column",
        y_title="token",
        domain=domain,
        key=keys.SLICE,
        pick=local,
        present=present,
        width=view.width,
        area=600,
        on_pick=functools.partial(entry.take, name, first),
    )
    st.caption("Click (or tap) a cell of the head's slice to see that number computed from X and the weight matrix.")

    layout.notice(qkv_words.qkv_notice(t, h))
    entry.show(t, params, picked, stages.source(cfg, view.layer))
    footer.exports(
        "qkv",
        t,
        {
            "X": (source, t.labels, dims),
            "Q": (engine.attention.merge_heads(t.q), t.labels, dims),
            "K": (engine.attention.merge_heads(t.k), t.labels, dims),
            "V": (engine.attention.merge_heads(t.v), t.labels, dims),
        },
        code=("split_heads", "block_forward"),
    )
