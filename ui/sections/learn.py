"""The Learn page's sections: pick a task, a sequence, train it live (once per server per setting),
replay the checkpoints, see what the model predicts."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from urllib.parse import urlencode

import numpy as np
import streamlit as st

import engine
from engine.training import DECAY_FROM, DTYPE, LR_FLOOR, WARMUP
from services import weights as service
from services.weights import Model, Training
from ui import charts, compute
from ui.page import footer, layout, tables
from ui.shell import presets, session, state
from ui.sections.model_view import StackArrays
from ui.shell.view import View
from ui.shell.session import FIELD
from ui.prose import learn as words
from ui.prose.numbers import fmt
from ui.prose.text import md_escape

LIVE_EVERY_S = 0.15          # redraw the live maps at most this often while training


def _task_changed() -> None:
    """A new task starts from its own steps, learning rate and sample (the batch seed stays)."""
    defaults = state.learn_defaults(session.raw(FIELD.task))
    for key in ("steps", "lr", "sequence"):
        session.set_raw(key, defaults[key])


def choose(view: View) -> engine.Task:
    """The task to learn (in the URL as task=…), and what it asks."""
    st.segmented_control("Task", list(engine.TASKS), required=True, format_func=lambda t: engine.TASKS[t].title,
                         key=FIELD.task, on_change=_task_changed)
    task = engine.TASKS[view.controls.task]
    st.markdown(words.task(task.name))
    if not view.present:
        st.caption(words.formula_words(task.config))
    return task


def training(view: View) -> Training:
    """The run the sidebar's training controls ask for."""
    c = view.controls
    return Training(task=c.task, steps=c.steps, seed=c.train_seed, lr=c.lr)


@dataclass(frozen=True)
class Sequence:
    """The sequence the page shows: the task's own sample or one the student typed."""

    ids: tuple[int, ...]
    words: tuple[str, ...]
    targets: np.ndarray          # (T,) the task's answer at each position, -1 where it scores none
    expected: np.ndarray         # (T, T) the keys a head that solves the task looks at
    typed: bool


def read_sequence(typed: str, task: engine.Task) -> tuple[tuple[str, ...] | None, str | None]:
    """The typed tokens (split on spaces; a word whose every letter is a token splits into letters),
    or None and a message saying why not."""
    tokens: list[str] = []
    for word in typed.split():
        tokens += list(word) if word not in task.vocab and all(ch in task.vocab for ch in word) else [word]
    if not tokens:
        return None, None
    unknown = sorted({t for t in tokens if t not in task.vocab})
    if unknown:
        shown = ", ".join(repr(t) for t in unknown[:5]) + (", …" if len(unknown) > 5 else "")
        return None, (f"{shown} {'is' if len(unknown) == 1 else 'are'} not in the vocabulary of "
                      f"'{task.title}', which is {' '.join(task.vocab)}. Showing the task's own sequence.")
    if not task.min_len <= len(tokens) <= state.MAX_SEQUENCE:
        return None, (f"'{task.title}' needs from {task.min_len} to {state.MAX_SEQUENCE} tokens; you typed "
                      f"{len(tokens)}. Showing the task's own sequence.")
    return tuple(tokens), None


def sequence(view: View, task: engine.Task) -> Sequence:
    """The text box for a sequence of the student's own (in the URL as sequence=…), read."""
    sample = presets.sample_words(task, task.seq_len)
    st.text_input("Your own sequence (empty: the task's own)", key=FIELD.sequence, max_chars=state.MAX_TEXT,
                  placeholder=" ".join(sample),
                  help=f"Tokens of '{task.title}': {' '.join(task.vocab)}, separated by spaces (or written "
                       f"together, e.g. ABCABC). From {task.min_len} to {state.MAX_SEQUENCE} tokens; the model "
                       f"was trained on {task.seq_len}.")
    typed, problem = read_sequence(view.controls.sequence, task)
    if problem:
        st.warning(md_escape(problem), icon=":material/warning:")
    chosen = typed or sample
    ids = tuple(task.vocab.index(w) for w in chosen)
    if typed:
        targets = task.targets(np.array([ids]))[0]
    else:                                                             # the task's own scoring of its sample
        targets = presets.sample(task, len(ids))[1]
    return Sequence(ids=ids, words=chosen, targets=targets, expected=task.expected_keys(np.array([ids]))[0],
                    typed=typed is not None)


def predictions(stack: engine.Stack, task: engine.Task, seq: Sequence) -> None:
    """What the model predicts at every position: the top token, its probability, right or wrong."""
    probs = stack.probs                                               # (T, V)
    top = probs.argmax(axis=-1)                                       # (T,)
    scored = seq.targets >= 0
    right = scored & (top == seq.targets)
    st.markdown("**What the model predicts** at every position of this sequence "
                + ("(scored: where the task gives an answer)" if seq.typed else "(scored: where the task scores)"))
    tables.table({
        "position": list(range(len(seq.ids))),
        "token": list(seq.words),
        "scored": ["yes" if s else "no" for s in scored],
        "target": [task.vocab[t] if t >= 0 else "—" for t in seq.targets],
        "predicted": [task.vocab[t] for t in top],
        "probability": [fmt(probs[i, t], ".3f") for i, t in enumerate(top)],
        "right?": [("right" if r else "wrong") if s else "—" for s, r in zip(scored, right)],
    })
    st.caption(f"{int(right.sum())} of {int(scored.sum())} scored positions right on this sequence.")


def _maps(view: View, trace: engine.Trace, expected: np.ndarray, boxes, live: bool) -> None:
    """Every head's weights on the sequence, the expected keys dashed."""
    for h, box in enumerate(boxes):
        with box:
            charts.heatmap(trace.weights[h], trace.labels, trace.labels, title=f"head {h}", x_title="key",
                           y_title="query", signed=False, domain=(0.0, 1.0), mask=trace.mask, present=view.present,
                           width=box.width, area=300, expected=expected, key=None if live else f"learn_map_{h}")


def _grid(view: View, stack: engine.Stack, title: str, key: str | None = None, width: float | None = None) -> None:
    """Every layer × head of a stack on the sequence, one colour scale from 0 to 1."""
    weights = np.stack([layer.weights for layer in stack.layers])        # (L, H, T, T)
    charts.model_view(weights, width=width or view.width, title=title, mask=stack.layers[0].mask,
                      domain=(0.0, 1.0), present=view.present, key=key)


WATCHED = "learn_watched"    # the digests of the shipped runs this session has watched being replayed


def run_to_show(view: View, cfg: engine.Config, run_of: Training, seq: Sequence) -> Model | None:
    """The finished run to replay, or None (the Train button is drawn). A run trained on this server (or
    kept on disk) is shown at once; the shipped run of the task's defaults is shown once this session has
    pressed Train and watched it replayed, so a class still sees the model learn."""
    found = compute.model(cfg, run_of)
    if found is not None and (found.origin != "shipped" or found.digest in st.session_state.get(WATCHED, ())):
        return found
    return train_live(view, cfg, run_of, seq, found)


def train_live(view: View, cfg: engine.Config, run_of: Training, seq: Sequence, found: Model | None) -> Model | None:
    """The Train button; pressed, the run draws itself as it goes: progress, curves, each head's map
    (with more than one layer: the model view, every layer × head). A run that exists already (the
    shipped one) is replayed at the speed it was trained at, not trained again."""
    button = st.empty()
    if not button.button("Train", key=session.LEARN_TRAIN, type="primary", icon=":material/play_arrow:"):
        if found is not None:
            st.caption(words.replay_line(found.run.seconds))
        return None
    button.empty()
    task, last = engine.TASKS[run_of.task], [0.0]
    bar = st.progress(0.0, text=f"Training on '{task.title}' …")
    # Redrawn several times a second: hidden (CSS, ui.shell.frame) where the system asks for reduced motion.
    still = st.empty()
    still.container(key="learn_still").caption("Your system asks for reduced motion, so the live curves and maps are hidden while the block "
                  "trains; the progress bar counts the steps, and the finished run is shown below.")
    moving = st.container(key="learn_live")
    curve = moving.empty()
    deep = cfg.n_layers > 1
    with moving:
        boxes = [layout.Column(st.container(), view.width)] if deep else layout.columns(view, min(cfg.num_heads, 2))
    live = [box.box.empty() for box in boxes]

    def progress(step, steps, losses, accuracies, params) -> None:
        bar.progress(step / steps, text=f"step {step} of {steps}: loss {losses[-1]:.3f}, "
                                        f"accuracy {accuracies[-1]:.0%}")
        if time.perf_counter() - last[0] < LIVE_EVERY_S and step < steps:
            return
        last[0] = time.perf_counter()
        charts.curves(losses, accuracies, present=view.present, box=curve)
        if deep:
            with live[0].container():
                _grid(view, engine.task_stack(task, cfg, params, list(seq.ids)), f"every layer × head, step {step}")
            return
        trace = engine.task_trace(task, cfg, params, list(seq.ids))
        for h, (slot, box) in enumerate(zip(live, boxes)):
            with slot.container():
                charts.heatmap(trace.weights[h], trace.labels, trace.labels, title=f"head {h}, step {step}",
                               x_title="key", y_title="query", signed=False, domain=(0.0, 1.0), mask=trace.mask,
                               present=view.present, width=box.width, area=300, expected=seq.expected)

    if found is None:
        found = compute.train(cfg, run_of, on_progress=progress)
    else:
        service.replay(found, progress)
        st.session_state[WATCHED] = {*st.session_state.get(WATCHED, ()), found.digest}
    for slot in [bar, curve, *live]:
        slot.empty()
    still.empty()
    return found


def untrained(view: View, cfg: engine.Config, run_of: Training, seq: Sequence) -> None:
    """Before any training: the initial weights' maps (every layer × head of a stack), what they do."""
    params = compute.params(cfg)                           # the initial, random weights
    stack = engine.task_stack(engine.TASKS[view.controls.task], cfg, params, list(seq.ids))
    weights = np.stack([layer.weights for layer in stack.layers])     # (L, H, T, T)
    if cfg.n_layers > 1:
        _grid(view, stack, f"random weights: {cfg.n_layers} layers × {cfg.num_heads} heads", key="learn_grid")
    else:
        _maps(view, stack.layers[0], seq.expected, layout.columns(view, min(cfg.num_heads, 2)), live=False)
    layout.notice(words.untrained(weights, stack.layers[0].visible, None if cfg.n_layers > 1 else seq.expected,
                                  words.press(_shipped_seconds(cfg, run_of), cfg.n_layers > 1)))
    _exports(StackArrays(stack))


def _shipped_seconds(cfg: engine.Config, run_of: Training) -> float | None:
    """The training time of the shipped run that Train replays here, or None where Train trains."""
    found = compute.model(cfg, run_of)
    return found.run.seconds if found is not None and found.origin == "shipped" else None


def _replay_step(trained: Model) -> int:
    steps = list(trained.steps)
    return st.select_slider("Replay: the weights after step", steps, value=steps[-1], key=session.LEARN_STEP,
                            help="Saved at least every 10 steps across the loss's drop, more sparsely elsewhere.")


def replay(view: View, trained: Model, seq: Sequence) -> None:
    """A finished run: scrub the checkpoints from the random start to the end, see the heads sharpen."""
    cfg, run, task = trained.config, trained.run, trained.task
    at_step = _replay_step(trained)
    history, shares = compute.share_history(trained)
    accuracy = compute.metrics(trained).overall_accuracy
    stack = compute.task_stack(trained, at_step, seq.ids)
    if cfg.n_layers > 1:
        _replay_stack(view, trained, at_step, stack, history, shares, accuracy)
    else:
        charts.curves(run.losses, run.accuracies, at_step=at_step, present=view.present)
        _maps(view, stack.layers[0], seq.expected, layout.columns(view, min(cfg.num_heads, 2)), live=False)
        layout.notice(words.notice(history, shares, list(trained.steps).index(at_step), accuracy))
    st.caption(f"{words.origin(trained.origin, trained.digest)} Trained in {run.seconds:.1f} s on one core, in "
               f"{np.dtype(DTYPE).name} arithmetic ({run.steps} Adam steps of {run.batch} sequences, learning rate "
               f"{run.lr:g}, {_schedule(run)}; batch seed {run.seed}); the pages compute with these weights in float64.")
    predictions(compute.task_stack(trained, None, seq.ids), task, seq)
    by_position(view, trained)
    if cfg.n_layers > 1:
        one_layer(view, trained, seq, accuracy)
    page = "model" if cfg.n_layers > 1 else "qkv"
    st.markdown(f"See it on every page: [open the {'model view' if page == 'model' else 'Q, K, V page'} with "
                f"these weights]({page}?{urlencode(link_params(trained))}).")
    _exports(StackArrays(stack))


def link_params(trained: Model) -> dict[str, str]:
    """The URL parameters of a trained preset's pages that show exactly this run's weights (its task's
    preset, and the run's steps, batch seed and learning rate when they are not the task's own)."""
    run = trained.run
    controls = replace(state.preset_controls(presets.TRAINED_PREFIX + run.task), steps=run.steps,
                       train_seed=run.seed, lr=run.lr)
    return state.to_params(controls)


def _replay_stack(view: View, trained: Model, at_step: int, stack: engine.Stack, history, shares,
                  accuracy: float) -> None:
    """A stack's run: the loss and its drop, the model view at the step, each head's weight on the
    previous token and on the task's keys over the run (any task with more than one layer)."""
    cfg, run = trained.config, trained.run
    previous, drop = compute.circuit(trained)
    charts.curves(run.losses, run.accuracies, at_step=at_step, drop=drop, present=view.present)
    _grid(view, stack, f"every layer × head after step {at_step}", key="learn_grid")
    st.caption("The model view of the sequence above: rows are layers, columns heads, one colour scale from 0 "
               "to 1" + (" (grey: hidden by the causal mask)" if cfg.causal else "") + ".")
    series = []
    for layer in range(cfg.n_layers):
        for head in range(cfg.num_heads):
            on_prev = previous[-1, layer, head] > shares[-1, layer, head]    # the role it ends up in
            series.append((f"layer {layer} head {head}: " + ("on the previous token" if on_prev else
                                                              "on the task's keys"),
                           (previous if on_prev else shares)[:, layer, head], bool(on_prev)))
    st.markdown("**Which head locked on when**: each head's weight on whichever it ends up looking at more: the "
                "previous token (dashed) or the keys of the task (solid).")
    charts.history(history, series, at_step=at_step, y_title="mean weight on those keys", present=view.present)
    base, single, layers = compute.circuit_knockouts(trained)
    layout.notice(words.depth_notice(run.losses, drop, history, shares, previous, list(trained.steps).index(at_step),
                                     accuracy, trained.task.title,
                                     words.knockouts(base, single, layers, compute.METRICS_N)))


def by_position(view: View, trained: Model) -> None:
    """The trained model's loss and accuracy at each position, over 1,000 fresh sequences of the task."""
    metrics = compute.metrics(trained)
    charts.by_position(metrics.loss, metrics.accuracy, metrics.scored, present=view.present,
                       title=f"loss and accuracy by position, {compute.METRICS_N:,} fresh sequences")
    st.caption(words.by_position(metrics.loss, metrics.accuracy, metrics.scored, metrics.count, trained.task.title))


def one_layer(view: View, trained: Model, seq: Sequence, accuracy: float) -> None:
    """The same task and budget with one layer: its accuracy and model view beside the stack's."""
    cfg, run = trained.config, trained.run
    one = replace(cfg, n_layers=1)
    same = Training(task=run.task, steps=run.steps, seed=run.seed, lr=run.lr)
    st.subheader("One layer, same budget")
    single_model = compute.model(one, same)
    if single_model is None:
        with st.spinner(f"Training a one-layer model with the same {run.steps} steps …"):
            single_model = compute.train(one, same)
    single = compute.metrics(single_model).overall_accuracy            # nothing knocked out
    left, right = layout.columns(view, 2)
    with left:
        st.metric(f"accuracy, {cfg.n_layers} layers", f"{accuracy:.1%}")
        _grid(view, compute.task_stack(trained, None, seq.ids), f"{cfg.n_layers} layers", width=left.width)
    with right:
        st.metric("accuracy, 1 layer", f"{single:.1%}", delta=f"{(single - accuracy) * 100:+.1f} points")
        _grid(view, compute.task_stack(single_model, None, seq.ids), "1 layer", width=right.width)
    st.caption(f"Both trained with the same steps, batches and learning rate; accuracy on {compute.METRICS_N:,} fresh "
               f"sequences. The one-layer model predicts {fmt(single, '.1%')} right, the {cfg.n_layers}-layer one "
               f"{fmt(accuracy, '.1%')}. The one-layer model is {words.origin(single_model.origin, single_model.digest, short=True)}.")


def _schedule(run: engine.TrainRun) -> str:
    """How the run's learning rate moved (engine.training.learning_rate), in a few words."""
    return (f"reached over the first {WARMUP:.0%} of the steps, held to {DECAY_FROM:.0%}, then lowered to "
            f"{run.lr * LR_FLOOR:g}")


def _exports(stack: StackArrays) -> None:
    """The weights on screen as CSV and figures, the whole trace as .npz."""
    footer.exports("learn", stack, stack.weights(), code=[   # the loss, its gradients, one Adam step
        engine.model.backprop, engine.forward, engine.block_forward, engine.cross_entropy,
        engine.backward, engine.block_backward, engine.adam_step])
