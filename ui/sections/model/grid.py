"""The model view's parts: the knock-out picker, every layer × head as one picture, the keyboard's way to open a
head, the measured roles, and what a knock-out changes."""

from __future__ import annotations

import streamlit as st

from engine import analysis
from ui import compute
from ui.charts import attention_grid
from ui.page import footer, layout
from ui.poll import drawq
from ui.prose.numbers import count
from ui.sections.model import knockout
from ui.sections.model import words as model_words
from ui.shell import frame, session
from ui.shell.view import View


@frame.fragment
def draw(view: View) -> None:
    """Everything under the header, as one fragment: a knock-out pick reruns only this (a click on a map asks
    for the per-head page: the whole app reruns to open it)."""
    if drawq.hides(view):  # a student while the class draws a row: every head's weights would show it
        st.info(drawq.HIDDEN, icon=":material/draw:")
        return
    cfg = view.config
    knocked = knockout.control(view)
    stack = compute.stack(view.model, view.words)
    shown = compute.knocked_stack(view.model, view.words, knocked) if knocked else stack
    spread, top, uniform = analysis.map_summary(shown)
    L, H, T = stack.n_layers, cfg.num_heads, len(view.words)
    roles = knockout.roles(view)
    attention_grid.model_view(
        analysis.stack_weights(shown),
        labels=stack.labels,
        mask=stack.layers[0].mask,
        title=f"{count(L, 'layer')} × {count(H, 'head')}, {T} × {T} each",
        info=[
            [
                (f"{roles[layer][head]}; " if roles else "")
                + model_words.head_line(spread[layer, head], top[layer, head])
                for head in range(H)
            ]
            for layer in range(L)
        ],
        pick=(view.layer, view.head),
        key=session.MODEL_MAP,
        present=view.present,
        on_open=_opened,
    )
    choose, go = st.columns([3, 1], vertical_alignment="bottom")  # the keyboard's way to a click on a map
    choose.selectbox(
        "Layer and head to open",
        range(L * H),
        format_func=lambda i: f"layer {i // H}, head {i % H}",
        key=session.OPEN_HEAD,
    )
    go.button("Open this head", key=session.OPEN_HEAD_GO, on_click=session.ask_open_head)
    st.caption(
        f"Outlined: layer {view.layer}, head {view.head}, the block and head the other pages show. Hover a "
        "map's cells for their weights and tokens"
        + ("; grey cells are hidden by the causal mask" if cfg.causal else "")
        + ". The maps are drawn in your browser from the weights sent once, so even "
        "4 layers × 16 heads of 64 tokens draw at once."
    )
    knockout.labels(view, roles)
    knockout.redrawn(view, knocked)
    layout.notice(
        model_words.notice(
            spread,
            top,
            uniform,
            trained=view.training is not None,
            per_row=analysis.row_spreads(shown),
            labels=shown.labels,
        )
    )
    knockout.effect(view, stack, shown)
    everything = footer.StackArrays(stack)
    footer.exports("model", everything, everything.weights(), code=("forward",))


def _opened() -> None:
    """A click on a map (its callback, before the run it starts): open that layer and head on the per-head page."""
    value = st.session_state.get(session.MODEL_MAP) or {}
    pick = value.get("pick") if hasattr(value, "get") else getattr(value, "pick", None)
    if pick and "map" in pick:
        session.open_map(int(pick["map"]))
