"""The shared sidebar: one set of controls for every page, drawn from the settled Controls."""

from __future__ import annotations

import streamlit as st

import engine
from ui.prose import passage as passage_words
from ui.prose.numbers import count, vocabulary
from ui.prose.preset_notes import facts as preset_facts
from ui.prose.preset_notes import sequence_rule
from ui.shell import lazy, presets, session, state
from ui.shell.session import FIELD
from ui.shell.state import Controls


def _apply_preset() -> None:
    """Choosing a preset resets every control to the article's values (presenter view stays)."""
    name, present = session.raw(FIELD.preset), session.raw(FIELD.present)
    session.load_controls(state.preset_controls(name, present=present, stretch=bool(session.raw(FIELD.stretch))))
    session.leave_note(
        f"Loaded the {presets.title(name)} preset: "
        + (
            "the article's exact numbers."
            if presets.task_of(name) is None
            else "its trained weights, on a sequence of its task."
        )
    )


def _apply_passage() -> None:
    """Another passage: the token box shows its first tokens (the sentence the preset shows by default)."""
    name, number = session.raw(FIELD.preset), session.raw(FIELD.passage)
    task = presets.task_of(name) if name in presets.names() else None
    if task is not None and task.shown is not None and isinstance(number, int) and 0 <= number < presets.PASSAGES:
        session.set_raw(FIELD.text, " ".join(presets.default_words(name, number)))


def _text_rule(c: Controls, task: engine.Task) -> str:
    """How a text task's passage is drawn (ui.shell.presets.draw_passage)."""
    return passage_words.rule(
        c.passage, presets.PASSAGES, presets.SAMPLE_SEED, presets.CANDIDATES, task.seq_len, presets.shown_length(task)
    )


def _passage(c: Controls, task: engine.Task, tokens: state.Tokens | None) -> None:
    """A text task's passage picker and where its passage comes from, with what of it is pasted or filling
    (tokens: the sidebar's sequence; None: the Learn page's, the passage's first task.seq_len tokens)."""
    sb = st.sidebar
    sb.number_input(
        "Passage (held-out text)",
        0,
        presets.PASSAGES - 1,
        step=1,
        key=FIELD.passage,
        on_change=_apply_passage,
        help=f"Another window of held-out text, 0 to {presets.PASSAGES - 1}; 0 ships with the app. "
        "The token box then shows its first tokens.",
    )
    found = presets.passage(task.name, c.passage)
    if tokens is None:
        T, own = task.seq_len, 0
        pasted = found.pasted(T)
        copied_from = found.first if len(pasted) else -1
    else:
        T, own, pasted, copied_from = len(tokens.words), tokens.own, tokens.pasted, tokens.copied_from
    said = passage_words.source(
        found.title, c.passage, found.begin, T, found.span, found.second, own, pasted, copied_from
    )
    if tokens is None and c.sequence.strip():  # the Learn page shows a sequence typed there
        said += " " + passage_words.LEARN_TYPED
    sb.caption(said)


def _learn(c: Controls) -> None:
    """The Learn page's sidebar: what the page trains, and how; nothing the page does not read."""
    sb = st.sidebar
    task = engine.TASKS[c.task]
    cfg = task.config
    sb.markdown(f"**Training '{task.title}'**")
    sb.caption(
        f"This page trains the task's own model, not the preset's: {task.seq_len}-token sequences of "
        f"{vocabulary(cfg.vocab)}; d_model {cfg.d_model}, {count(cfg.num_heads, 'head')}, "
        f"{count(cfg.n_layers, 'layer')}, d_ff {cfg.d_ff}"
        + (", causal mask" if cfg.causal else ", no mask")
        + (", sinusoidal positions" if cfg.positional != "none" else ", no positions")
        + (", pre-layer-norm" if cfg.layer_norm else "")
        + ". The other pages' controls do not apply here. "
        + (
            _text_rule(c, task)
            if task.shown is not None
            else sequence_rule(task.title, presets.CANDIDATES, presets.SAMPLE_SEED)
        )
    )
    if task.shown is not None:
        _passage(c, task, None)
    sb.number_input(
        "Batch seed",
        *state.TRAIN_SEED,
        step=1,
        key=FIELD.train_seed,
        help="Seeds the training batches. Another seed: other batches, another run (the plateau "
        f"moves). From {state.TRAIN_SEED[0]} to {state.TRAIN_SEED[1]:,}.",
    )
    sb.number_input(
        "Adam steps",
        *state.STEPS,
        step=50,
        key=FIELD.steps,
        help=f"From {state.STEPS[0]} to {state.STEPS[1]:,}; the task's own: {task.steps:,}.",
    )
    sb.number_input(
        "Learning rate",
        *state.LR,
        step=0.005,
        format="%.4f",
        key=FIELD.lr,
        help=f"Adam's step size, from {state.LR[0]:g} to {state.LR[1]:g}; the task's own: {task.lr:g}.",
    )
    sb.caption(
        "The task's own settings (batch seed 0, its steps and learning rate) are the run that ships with the "
        "app: Train replays it. Any other setting is trained once per server: the first student to press "
        "Train trains it for the room."
    )


def draw(c: Controls, link: str, trains: bool = False) -> None:
    """Every control (their values are already in session state) and the link to this view.

    What a first page does not need is not drawn, so a browser draws the sidebar sooner (each widget
    costs it tens of ms; benchmarks/README.md): the switches until their expander is opened, the head
    and layer pickers while there is only one head or one layer. Their values live on in session state
    (the frame writes every control each run), so nothing is lost while they are not drawn."""
    sb = st.sidebar
    if trains:
        _learn(c)
    else:
        _concepts(c)
    sb.toggle("Presenter view", key=FIELD.present, help="Large type, prose hidden, PageUp/PageDown steps pages.")
    box = lazy.opened("Link to this view", session.LINK_OPEN, icon=":material/link:", where=sb)
    if box is None:
        return
    with box:
        st.caption(
            "Copy it (button at the right of the box): opening it shows exactly this page, "
            "these settings, this head and the picked cell."
        )
        st.code(link, language=None, wrap_lines=True)


def _concepts(c: Controls) -> None:
    """The article pages' sidebar: the preset, the sentence, the sizes, the switches, which head."""
    sb = st.sidebar
    sb.selectbox(
        "Preset",
        presets.names(),
        key=FIELD.preset,
        on_change=_apply_preset,
        format_func=presets.title,
        help="Sets every control to the preset's values: an article's example (at these values the "
        "numbers match that article's script exactly), or a block trained on a task (its "
        "training settings, on a sequence of the task).",
    )
    in_use = presets.summary(c.preset, state.to_config(c), c.seq_len, state.to_training(c))
    task = presets.task_of(c.preset)
    rule = (
        ""
        if task is None
        else _text_rule(c, task)
        if task.shown is not None
        else sequence_rule(task.title, presets.CANDIDATES, presets.SAMPLE_SEED)
    )
    sb.caption(" ".join(part for part in (in_use + ".", preset_facts(c.preset, c.heads), rule) if part))
    sb.text_input(
        "Tokens (a sentence)",
        key=FIELD.text,
        max_chars=state.MAX_TEXT,
        help="Split on spaces. Cut to the sequence length, or padded from a fixed word list."
        if task is None or task.shown is None
        else "Cut to the sequence length; a shorter sentence is filled up with the passage's own tokens at "
        "those positions (marked as filling).",
    )
    if task is not None and task.shown is not None:
        _passage(c, task, state.to_tokens(c))
    sb.slider("Sequence length T", *state.SEQ_LEN, key=FIELD.seq_len)
    sb.slider("d_model (width of each token vector)", *state.D_MODEL, key=FIELD.d_model)
    sb.select_slider("Heads H (only divisors of d_model)", options=state.head_choices(c.d_model), key=FIELD.heads)
    sb.slider("d_ff (hidden size of the feed-forward layer)", *state.D_FF, key=FIELD.d_ff)
    sb.slider(
        "Layers L (blocks stacked)",
        *state.LAYERS,
        key=FIELD.layers,
        help="Each block has its own weights and reads the previous block's output.",
    )
    sb.number_input("Seed (weights)", *state.SEED, step=1, key=FIELD.seed)
    box = lazy.opened("Switches", session.SWITCHES_OPEN, where=sb)
    if box is not None:  # drawn once opened (open already when one is set)
        with box:
            st.toggle("Causal mask", key=FIELD.causal, help="Token i may only look at tokens 0…i.")
            st.toggle("Sinusoidal positions", key=FIELD.positional, help="Add a position code to every input.")
            st.toggle("Divide scores by √d_head", key=FIELD.scale)
            st.toggle(
                "Pre-LayerNorm",
                key=FIELD.layer_norm,
                help="Normalise each token vector (mean 0, variance 1) before attention and before the FFN.",
            )
            st.toggle(
                "Stretch weight colours",
                key=FIELD.stretch,
                help="Weight maps use a fixed 0–1 colour scale, so a colour means the same weight on every "
                "map. Stretched, the scale runs from 0 to the largest weight shown, for fine structure; "
                "each legend then says 'stretched'. The model is not changed.",
            )
    sb.divider()
    d_head = c.d_model // c.heads
    if c.heads > 1:  # a picker only where there is a choice (the value stays 0)
        sb.selectbox(
            "Head to show",
            list(range(c.heads)),
            key=FIELD.head,
            format_func=lambda h: f"head {h}  (columns {h * d_head}…{(h + 1) * d_head - 1})",
        )
    if c.layers > 1:
        sb.selectbox(
            "Layer to show",
            list(range(c.layers)),
            key=FIELD.layer,
            format_func=lambda layer: (
                f"layer {layer}" + ("  (reads the tokens)" if layer == 0 else f"  (reads layer {layer - 1}'s output)")
            ),
            help="The block the per-block pages show. More layers: the Layers slider above.",
        )
