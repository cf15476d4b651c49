"""The Inputs page's parts: the tokens and their ids, X (and positions), what a later layer reads, where
the numbers go."""

from __future__ import annotations

import streamlit as st

import engine
import engine.tokens
from ui import charts, compute
from ui.page import footer, layout, tables
from ui.prose import stages
from ui.sections.inputs import words as inputs_words
from ui.shell import presets
from ui.shell.lazy import opened
from ui.shell.view import View

STAGES_OPEN = "stages_open"  # the "Where these numbers go" expander is open


def stand_in_of(view: View) -> str | None:
    """The token a trained model reads for any word outside its vocabulary (the text model's <unk>), or None."""
    task = presets.task_of(view.controls.preset)
    return task.vocab[0] if task is not None and task.read is not None else None


def draw(view: View) -> None:
    """Everything under the header."""
    t = compute.trace(view.model, view.words)
    T, C = t.x.shape
    present = view.present
    st.latex(rf"T = {T}\ \text{{tokens}},\quad d_{{model}} = {C}")

    ids = [engine.tokens.token_id(view.config, w) for w in view.words]
    table = {
        "position": list(range(T)),
        "token": list(t.labels),  # columns (no pandas on a first page)
        "vocab id": [str(i) if i is not None else "new word" for i in ids],
    }
    left, right = layout.columns(view, [3, 7])
    with left:
        tables.table(table)
    with right:
        charts.heatmap(
            t.x,
            t.labels,
            t.dims,
            title=f"X: {T} × {C}",
            x_title="dimension",
            y_title="token",
            key="inputs_x",
            present=present,
            width=right.width,
            area=420,
        )
    if t.positions is not None:
        domain = charts.symmetric_domain(t.positions, t.x_in)
        cols, area = layout.two_maps(view, C)  # wider maps get the full width each
        with cols[0]:
            charts.heatmap(
                t.positions,
                t.labels,
                t.dims,
                title=f"P (sinusoidal): {T} × {C}",
                x_title="dimension",
                y_title="position",
                domain=domain,
                key="inputs_p",
                present=present,
                width=cols[0].width,
                area=area,
            )
        with cols[1]:
            charts.heatmap(
                t.x_in,
                t.labels,
                t.dims,
                title=f"X + P: {T} × {C}",
                x_title="dimension",
                y_title="token",
                domain=domain,
                key="inputs_xp",
                present=present,
                width=cols[1].width,
                area=area,
            )

    if view.layer > 0:
        deeper = compute.trace(view.model, view.words, view.layer)
        st.subheader(f"What layer {view.layer} reads")
        st.markdown(
            f"Layer {view.layer} does not see X: it reads layer {view.layer - 1}'s output, one row per token. "
            "The pages after this one show this layer's numbers (sidebar: Layer to show)."
        )
        charts.heatmap(
            deeper.x,
            deeper.labels,
            deeper.dims,
            title=f"X of layer {view.layer}: {T} × {C}",
            x_title="dimension",
            y_title="token",
            key="inputs_layer",
            present=present,
            width=view.width,
            area=420,
        )

    if box := opened("Where these numbers go: every stage of the block", STAGES_OPEN, icon=":material/route:"):
        with box:  # drawn once opened (the Block output page shows it too)
            rows = stages.stages(t)
            tables.table({name: [row[name] for row in rows] for name in rows[0]})

    stand_in = stand_in_of(view)
    known = sum(i is not None and w != stand_in for i, w in zip(ids, view.words))
    layout.notice(inputs_words.inputs_notice(t, view.words, known, presets.title(view.controls.preset), stand_in))
    footer.exports("inputs", t, {"X": (t.x, t.labels, t.dims)}, code=("embed",))
