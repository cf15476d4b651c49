"""The exercise page's sections: predict, choose the new token, reveal, explain, twist, the output.

Each function draws one numbered section from the numbers it is given; the page calls them in order.
"""

from __future__ import annotations

import streamlit as st

import engine
import engine.tokens
from ui import charts, compute
from ui.page import footer, layout
from ui.poll import drawq
from ui.prose.text import md_escape, quote
from ui.sections.exercise import keys, outcome
from ui.sections.exercise import words as exercise_words
from ui.sections.exercise import words_new_token as new_token_words
from ui.shell import frame, lazy, presets, state
from ui.shell.view import View

VOCAB_LISTED = 64  # a vocabulary up to this many tokens is listed in a caption; a larger one in an expander


def predict(view: View, before: engine.Trace) -> str | None:
    """1 · The current rows, and the student's prediction (None until one is chosen)."""
    T, h = before.T, view.head
    nth = new_token_words.ordinal(T + 1)
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
    nth = new_token_words.ordinal(T + 1)
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
        new_token_words.KINDS,
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
            max_chars=new_token_words.MAX_TYPED,
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
    note = new_token_words.default_token_note(quote(default_word), default if as_id else None, T)
    if cfg.vocab_size <= VOCAB_LISTED:
        st.caption(f"Vocabulary (id, word): {_listed(cfg)}. " + note)
    else:  # a language model's: listed only when asked for
        st.caption(f"Vocabulary: {cfg.vocab_size:,} tokens, ids 0 to {cfg.vocab_size - 1} (listed below). " + note)
        box = lazy.opened(f"The vocabulary: {cfg.vocab_size:,} tokens (id, word)", keys.VOCAB_OPEN)
        if box is not None:
            box.caption(_listed(cfg))
    try:
        new_token = new_token_words.parse_next_token(cfg, kind, raw, read=read)
    except ValueError as err:
        st.warning(f"**That {nth} token cannot be used:** {md_escape(str(err))}.", icon=":material/error:")
        return None
    known = engine.tokens.token_id(cfg, new_token)
    st.caption(
        f"The {nth} token is {quote(engine.tokens.label(cfg, new_token))}: "
        + (
            f"vocabulary id {known}, its row of the embedding table."
            + new_token_words.unknown_note(cfg, raw if kind == "word" else None, new_token, read)
            if known is not None
            else "not in the vocabulary, so its vector comes from its own seeded stream (the same every time)"
            + (
                "; this block was trained on its task's tokens only and never saw such a vector."
                if view.training is not None
                else "."
            )
        )
        + new_token_words.past_training(T, None if view.training is None else engine.TASKS[view.training.task].seq_len)
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


def hide() -> None:
    st.button(
        "Hide the result and predict again", key=keys.HIDE, icon=":material/visibility_off:", on_click=keys.hide_reveal
    )


@frame.fragment
def draw(view: View) -> None:
    """The exercise from the prediction to the result, as one fragment: a choice, the reveal, a twist rerun only
    this."""
    if drawq.hides(view):  # a student while the class draws a row: the maps before and after would show it
        st.info(drawq.HIDDEN, icon=":material/draw:")
        return
    T = len(view.words)
    before = compute.trace(view.model, view.words)  # layer 0
    prediction = predict(view, before)
    new_token = choose_token(view)
    revealed = reveal(view, new_token, prediction)
    if revealed is not None:
        ext = compute.extension(view.model, view.words, new_token, view.config)
        outcome.result(view, ext, revealed)
        outcome.explain(view, ext)
        outcome.twists(view, ext, new_token)
        outcome.outputs(view, ext)
        outcome.later(view, new_token)
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
