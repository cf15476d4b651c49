"""The exercise's result, once revealed: the verdict and both runs' maps, why the old rows changed, the two twists
(the causal mask, positions), the outputs, and the later layers (steps.py draws them in order)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import analysis, exercise
from ui import charts, compute
from ui.page import layout, tables
from ui.prose.numbers import diff, every, fmt, metric, score
from ui.prose.text import md_escape, quote
from ui.sections.exercise import keys
from ui.sections.exercise import words as exercise_words
from ui.shell.view import View

SIDE_BY_SIDE = 16  # longest extended sentence whose two maps sit side by side


def result(view: View, ext: analysis.Extension, revealed: dict) -> None:
    """The verdict, both maps with each old row's factor, and the table behind the factors."""
    b, a, h = ext.before, ext.after, view.head
    T = b.T
    r = exercise.old_rows(ext, h)
    new = quote(a.labels[T])
    status, verdict = exercise_words.verdict(ext, h, revealed["prediction"])
    said = exercise_words.PREDICTIONS.get(revealed["prediction"])
    {"right": st.success, "wrong": st.warning, "none": st.info}[status](
        (f"**You predicted:** {said}  \n" if said else "") + verdict
    )
    guess = revealed["guess"].strip()
    if guess:
        st.markdown("**Your words:** " + "  \n".join(md_escape(line) for line in guess.splitlines()))
    layout.latex(
        view,
        rf"w'_{{ij}} = \frac{{e^{{s_{{ij}}}}}}{{Z_i + e^{{s_{{i,{T}}}}}}} = w_{{ij}}\cdot"
        rf"\frac{{Z_i}}{{Z_i + e^{{s_{{i,{T}}}}}}}\qquad (j \le {T - 1};\ \text{{the new token is }} {T})",
    )
    domain = charts.weight_domain(b.weights[h], a.weights[h])
    factor_labels = [f"{label}  ×{fmt(f, '.3f')}" for label, f in zip(a.labels[:T], r.factor)] + [a.labels[T]]
    left, right = layout.two(view, T + 1 <= SIDE_BY_SIDE)
    area = min(260, 44 * (T + 1)) if T + 1 <= SIDE_BY_SIDE else 560  # cell area; axes and legend come on top
    with left:
        charts.heatmap(
            b.weights[h],
            b.labels,
            b.labels,
            title=f"{T} tokens: {T} × {T}",
            x_title="key",
            y_title="query",
            signed=False,
            domain=domain,
            mask=b.mask,
            key="ex_map_before",
            present=view.present,
            width=left.width,
            area=area * T // (T + 1),
        )
    with right:
        charts.heatmap(
            a.weights[h],
            factor_labels,
            a.labels,
            title=f"{T + 1} tokens: new row and column outlined",
            x_title="key",
            y_title="query  ×  factor",
            signed=False,
            domain=domain,
            mask=a.mask,
            key="ex_map_after",
            present=view.present,
            width=right.width,
            area=area,
            highlight=T,
        )
    st.caption(
        f"Head {h}; one colour scale for both maps (0 to {fmt(domain[1], '.3f')}). Next to each old row of the "
        f"{T + 1}-token map: the factor its weights were multiplied by."
    )
    rows = r.table()
    rows["s (new key)"] = [score(s) for s in rows["s (new key)"]]  # a masked score reads −∞ (masked)
    tables.table(
        pd.DataFrame(rows),
        {
            "e^s": ".4f",
            "Z (old row)": ".4f",
            "factor Z/(Z+e^s)": ".6f",
            "new ÷ old, min": ".6f",
            "new ÷ old, max": ".6f",
            "lost to new": ".4f",
        },
    )
    st.caption(
        f"s is each old query's score against {new}, Z the total of its old row. In every row new ÷ old "
        f"is the same for every key (min = max = factor): the ratios between the old weights are "
        f"unchanged (largest deviation {diff(ext.ratio_error)}). What a row lost is the weight it gives {new}."
    )
    if b.num_heads > 1:
        with st.expander(f"Factors in {every(b.num_heads, 'head')}"):
            factors = pd.DataFrame(
                ext.factors,
                index=[f"head {k}" for k in range(b.num_heads)],
                columns=[f"{j}: {label}" for j, label in enumerate(b.labels)],
            )
            tables.table(factors, {c: ".4f" for c in factors.columns}, labels_in_header=True, hide_index=False)


def explain(view: View, ext: analysis.Extension) -> None:
    """4 · The change of the old block, in a map and two sentences."""
    b, h, T = ext.before, view.head, ext.before.T
    st.subheader("4 · What happened, in two sentences")
    left, right = layout.two(view, T + 1 <= SIDE_BY_SIDE)
    with left:
        charts.heatmap(
            ext.diff[h],
            b.labels,
            b.labels,
            title=f"after − before, old {T} × {T} block",
            legend="weight change",
            x_title="key",
            y_title="query",
            mask=b.mask,
            key="ex_map_diff",
            present=view.present,
            width=left.width,
            area=min(260, 44 * (T + 1)) if T + 1 <= SIDE_BY_SIDE else 560,
            fmt=".3f",
        )
    with right, st.container(border=True):
        for sentence in exercise_words.sentences(ext, h):
            st.markdown(sentence)


def twists(view: View, ext: analysis.Extension, new_token) -> None:
    """The twist: the same comparison with the causal mask, or with positions, switched on."""
    T, h = ext.before.T, view.head
    st.markdown("**The twist.** Switch one thing on for this comparison only (the sidebar keeps its values):")
    for col, name, what in zip(
        layout.columns(view, 2), ("causal", "positions"), ("the causal mask", "sinusoidal positions")
    ):
        with col:
            if not st.toggle(f"Try it with {what}", key=keys.TWIST[name]):
                continue
            other = compute.extension(view.model, view.words, new_token, exercise.variant(view.config, name))
            tw = exercise.twist(ext, other, name)
            first, second = st.columns(2)
            if name == "causal":
                first.metric(f"max change, first {T} rows", metric(tw.max_row_change))
                second.metric("max output change, old rows", metric(tw.output_change, tw.output_scale))
            else:
                first.metric("ratio error", metric(tw.ratio_error))
                second.metric("max change of old scores", metric(tw.score_change, tw.score_scale))
            st.markdown(exercise_words.twist_sentence(tw, other))
            charts.heatmap(
                other.after.weights[h],
                other.after.labels,
                other.after.labels,
                title=f"{T + 1} tokens with {what}",
                x_title="key",
                y_title="query",
                signed=False,
                mask=other.after.mask,
                key=f"ex_map_{name}",
                present=view.present,
                width=col.width,
                area=min(260, 44 * (T + 1), 280),
                highlight=T,
            )


def outputs(view: View, ext: analysis.Extension) -> None:
    """5 · How far each old row of the block's output moved."""
    st.subheader("5 · The block output")
    out = exercise.outputs(ext)
    tables.table(
        pd.DataFrame({"token": list(ext.before.labels), "‖Δ output‖": out.change, "share of its length": out.relative}),
        {"‖Δ output‖": ".4f", "share of its length": ".1%"},
    )
    st.markdown(exercise_words.output_sentence(ext, out))


def later(view: View, new_token) -> None:
    """With more than one layer: what the new token did to every later layer's old rows, from both runs."""
    if view.config.n_layers == 1:
        return
    before = compute.stack(view.model, view.words)
    after = compute.stack(view.model, (*view.words, new_token))
    st.markdown(exercise_words.later_layers(exercise.deeper(before, after), view.config.causal))
