"""The exercise page's sections: predict, choose the new token, reveal, explain, twist, the output.

Each function draws one numbered section from the numbers it is given; the page calls them in order.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import engine
import engine.tokens
from engine import analysis, exercise
from ui import charts, compute
from ui.page import footer, layout, tables
from ui.prose import exercise as exercise_words
from ui.prose import new_token as token_words
from ui.prose.numbers import diff, every, fmt, metric, score
from ui.prose.text import md_escape, quote
from ui.sections.exercise import keys
from ui.shell import frame, lazy, presets, state
from ui.shell.view import View

SIDE_BY_SIDE = 16  # longest extended sentence whose two maps sit side by side
VOCAB_LISTED = 64  # a vocabulary up to this many tokens is listed in a caption; a larger one in an expander


def predict(view: View, before: engine.Trace) -> str | None:
    """1 · The current rows, and the student's prediction (None until one is chosen)."""
    T, h = before.T, view.head
    nth = token_words.ordinal(T + 1)
    st.subheader("1 · Predict")
    left, right = layout.columns(view, [3, 2])
    with left:
        charts.heatmap(
            before.weights[h],
            before.labels,
            before.labels,
            title=f"weights, head {h}: {T} × {T}",
            x_title="key",
            y_title="query",
            signed=False,
            mask=before.mask,
            key="ex_map_now",
            present=view.present,
            width=left.width,
            area=520,
        )
    with right:
        prediction = st.radio(
            f"What happens to these {T} rows when a {nth} token is appended?",
            list(exercise_words.PREDICTIONS),
            format_func=exercise_words.PREDICTIONS.get,
            index=None,
            key=keys.PREDICTION,
        )
        st.text_area(
            "In your own words: how will attention redistribute?",
            key=keys.GUESS,
            max_chars=500,
            placeholder="One or two sentences, before you reveal.",
        )
    return prediction


def _listed(cfg: engine.Config) -> str:
    """Every token of the vocabulary with its id (built only where it is shown: 1,000 of them for English text)."""
    return " · ".join(f"{i} {quote(w)}" for i, w in enumerate(cfg.vocab))


def choose_token(view: View) -> engine.tokens.Token | None:
    """2 · The new token, as a vocabulary id or a typed word; None (with the reason shown) if unusable."""
    cfg, T = view.config, len(view.words)
    nth = token_words.ordinal(T + 1)
    name = view.controls.preset
    task = presets.task_of(name)
    read = task.read if task is not None else None  # a model that learned text reads a word its own way
    default_word = state.next_word(view.controls)
    as_id = (
        task is None
        and all(isinstance(t, int) for t in engine.get_preset(name).tokens)
        and engine.tokens.token_id(cfg, default_word) is not None
    )
    default = engine.tokens.token_id(cfg, default_word) if as_id else default_word
    defaults = {
        keys.TOKEN_KIND: "id" if as_id else "word",
        keys.TOKEN_ID: default if as_id else cfg.vocab_size - 1,
        keys.TOKEN_WORD: default_word,
    }
    keys.token_defaults(repr((name, default)), defaults)  # a new sentence brings its own default
    st.subheader(f"2 · Choose the {nth} token")
    kind_col, value_col, default_col = st.columns([2, 2, 2], vertical_alignment="bottom")
    kind = kind_col.radio(
        "Give it as",
        token_words.KINDS,
        key=keys.TOKEN_KIND,
        horizontal=True,
        format_func={"id": "vocabulary id", "word": "typed word"}.get,
    )
    if kind == "id":
        raw = value_col.number_input(
            "Vocabulary id", step=1, key=keys.TOKEN_ID, help=f"A whole number from 0 to {cfg.vocab_size - 1}."
        )
    else:
        raw = value_col.text_input(
            "Word",
            key=keys.TOKEN_WORD,
            max_chars=token_words.MAX_TYPED,
            help=f"One word, read as the sidebar reads its sentence: a word outside the "
            f"model's {cfg.vocab_size:,} tokens is read as {cfg.vocab[0]}."
            if read
            else "One word; a word outside the vocabulary gets its own seeded vector.",
        )
    default_col.button(
        "Back to the default",
        key=keys.TOKEN_DEFAULT,
        on_click=keys.reset_token,
        args=(defaults,),
        icon=":material/restart_alt:",
    )
    note = token_words.default_token_note(quote(default_word), default if as_id else None, T)
    if cfg.vocab_size <= VOCAB_LISTED:
        st.caption(f"Vocabulary (id, word): {_listed(cfg)}. " + note)
    else:  # a language model's: listed only when asked for
        st.caption(f"Vocabulary: {cfg.vocab_size:,} tokens, ids 0 to {cfg.vocab_size - 1} (listed below). " + note)
        box = lazy.opened(f"The vocabulary: {cfg.vocab_size:,} tokens (id, word)", keys.VOCAB_OPEN)
        if box is not None:
            box.caption(_listed(cfg))
    try:
        new_token = exercise_words.parse_next_token(cfg, kind, raw, read=read)
    except ValueError as err:
        st.warning(f"**That {nth} token cannot be used:** {md_escape(str(err))}.", icon=":material/error:")
        return None
    known = engine.tokens.token_id(cfg, new_token)
    st.caption(
        f"The {nth} token is {quote(engine.tokens.label(cfg, new_token))}: "
        + (
            f"vocabulary id {known}, its row of the embedding table."
            + token_words.unknown_note(cfg, raw if kind == "word" else None, new_token, read)
            if known is not None
            else "not in the vocabulary, so its vector comes from its own seeded stream (the same every time)"
            + (
                "; this block was trained on its task's tokens only and never saw such a vector."
                if view.training is not None
                else "."
            )
        )
        + token_words.past_training(T, None if view.training is None else engine.TASKS[view.training.task].seq_len)
    )
    return new_token


def reveal(view: View, new_token, prediction: str | None) -> dict | None:
    """3 · The reveal buttons; what was predicted when the result was revealed, or None (not yet)."""
    T = len(view.words)
    st.subheader("3 · Reveal")
    if new_token is None:
        st.caption("Choose a usable token to reveal the result.")
        return None
    setup = repr((view.config, view.words, new_token))  # what a reveal belongs to
    ask, now, _ = st.columns([2, 2, 3])
    if ask.button(
        "Check my prediction",
        key=keys.REVEAL,
        type="primary",
        disabled=prediction is None,
        help="Needs a prediction above; the lecturer button reveals without one.",
    ):
        keys.reveal(setup, prediction)
    if now.button("Reveal now (lecturer)", key=keys.REVEAL_NOW):
        keys.reveal(setup, prediction)
    revealed = keys.revealed()
    if revealed and revealed["setup"] == setup:
        return revealed
    if revealed:
        st.info("The setup changed since the last reveal: predict again, then reveal.", icon=":material/replay:")
    st.caption(f"Nothing of the {T + 1}-token run is shown until you reveal it.")
    return None


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


def hide() -> None:
    st.button(
        "Hide the result and predict again", key=keys.HIDE, icon=":material/visibility_off:", on_click=keys.hide_reveal
    )


@frame.fragment
def draw(view: View) -> None:
    """The exercise from the prediction to the result, as one fragment: a choice, the reveal, a twist rerun only
    this."""
    T = len(view.words)
    before = compute.trace(view.model, view.words)  # layer 0
    prediction = predict(view, before)
    new_token = choose_token(view)
    revealed = reveal(view, new_token, prediction)
    if revealed is not None:
        ext = compute.extension(view.model, view.words, new_token, view.config)
        result(view, ext, revealed)
        explain(view, ext)
        twists(view, ext, new_token)
        outputs(view, ext)
        later(view, new_token)
        layout.notice(exercise_words.notice(ext, view.head))
        hide()
        h, b, a = view.head, ext.before, ext.after
        footer.exports(
            "exercise",
            a,
            {
                f"weights head {h}, {T} tokens": (b.weights[h], b.labels, b.labels),
                f"weights head {h}, {T + 1} tokens": (a.weights[h], a.labels, a.labels),
                f"change of the old block, head {h}": (ext.diff[h], b.labels, b.labels),
                "factors (heads x old rows)": (ext.factors, [f"head {k}" for k in range(b.num_heads)], b.labels),
            },
            code=("analysis.extend", "exercise.old_rows"),
        )
