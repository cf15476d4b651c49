"""The Learn page before a run is shown: the random initial weights, the Train button, and the run drawing
itself as it trains (or as the shipped run replays at its training speed)."""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

import engine
from services.weights import Model, Training
from ui import charts, compute
from ui.charts import attention_grid
from ui.page import footer, layout
from ui.prose import numbers
from ui.sections.learn import words as learn_words
from ui.sections.learn.task import TRAIN, Sequence
from ui.shell.view import View

LIVE_EVERY_S = 0.15  # redraw the live maps at most this often while training
LIVE_S = 20.0  # a shipped run that trained longer than this is shown at once, not replayed live


WATCHED = "learn_watched"  # the digests of the shipped runs this session has watched being replayed


def maps(view: View, trace: engine.Trace, expected: np.ndarray, boxes, live: bool) -> None:
    """Every head's weights on the sequence, the expected keys dashed."""
    for h, box in enumerate(boxes):
        with box:
            charts.heatmap(
                trace.weights[h],
                trace.labels,
                trace.labels,
                title=f"head {h}",
                x_title="key",
                y_title="query",
                signed=False,
                domain=(0.0, 1.0),
                mask=trace.mask,
                present=view.present,
                width=box.width,
                area=300,
                expected=expected,
                key=None if live else f"learn_map_{h}",
            )


def grid(view: View, stack: engine.Stack, title: str, key: str) -> None:
    """Every layer × head of a stack on the sequence, one colour scale from 0 to 1 (ui.charts.attention_grid)."""
    weights = np.stack([layer.weights for layer in stack.layers])  # (L, H, T, T)
    attention_grid.model_view(
        weights,
        labels=stack.labels,
        key=key,
        title=title,
        mask=stack.layers[0].mask,
        domain=(0.0, 1.0),
        present=view.present,
    )


def found(cfg: engine.Config, run_of: Training) -> Model | None:
    """The run the sidebar's training controls ask for, if it exists (shipped, stored or trained here): looked
    up once per run of the page, never trained (Train trains it: train_live)."""
    return compute.model(cfg, run_of)


def run_to_show(view: View, cfg: engine.Config, run_of: Training, seq: Sequence, found: Model | None) -> Model | None:
    """The finished run to replay, or None (the Train button is drawn). A run trained on this server (or
    kept on disk) is shown at once; the shipped run of the task's defaults is shown once this session has
    pressed Train and watched it replayed, so a class still sees the model learn, or when the link names a
    step to replay (replay=N: a lesson pointing at the loss's drop)."""
    if found is not None and (
        found.origin != "shipped"
        or found.digest in st.session_state.get(WATCHED, ())
        or found.run.seconds > LIVE_S
        or view.controls.replay_step is not None
    ):
        if found.origin == "shipped" and found.run.seconds > LIVE_S:
            st.caption(learn_words.too_long(found.run.steps, found.run.seconds))
        return found
    return train_live(view, cfg, run_of, seq, found)


def train_live(view: View, cfg: engine.Config, run_of: Training, seq: Sequence, found: Model | None) -> Model | None:
    """The Train button; pressed, the run draws itself as it goes: progress, curves, each head's map
    (with more than one layer: the model view, every layer × head). A run that exists already (the
    shipped one) is replayed at the speed it was trained at, not trained again."""
    button = st.empty()
    if not button.button("Train", key=TRAIN, type="primary", icon=":material/play_arrow:"):
        if found is not None:
            st.caption(learn_words.replay_line(found.run.seconds))
        return None
    button.empty()
    task, last = engine.TASKS[run_of.task], [0.0]
    bar = st.progress(0.0, text=f"Training on '{task.title}' …")
    # Redrawn several times a second: hidden (CSS, ui.shell.frame) where the system asks for reduced motion.
    still = st.empty()
    still.container(key="learn_still").caption(
        "Your system asks for reduced motion, so the live curves and maps are hidden while the block "
        "trains; the progress bar counts the steps, and the finished run is shown below."
    )
    moving = st.container(key="learn_live")
    curve = moving.empty()
    deep = cfg.n_layers > 1
    with moving:
        boxes = [layout.Column(st.container(), view.width)] if deep else layout.columns(view, min(cfg.num_heads, 2))
    live = [box.box.empty() for box in boxes]

    def progress(step, steps, losses, accuracies, params) -> None:
        bar.progress(step / steps, text=numbers.training(step, steps, losses[-1], accuracies[-1]))
        if time.perf_counter() - last[0] < LIVE_EVERY_S and step < steps:
            return
        last[0] = time.perf_counter()
        charts.curves(losses, accuracies, present=view.present, box=curve)
        if deep:
            with live[0].container():
                grid(
                    view,
                    compute.live_stack(task, cfg, params, seq.ids),
                    f"every layer × head, step {step}",
                    key=f"learn_live_{step}",  # one element a redraw: a key seen twice in a run is refused
                )
            return
        trace = compute.live_stack(task, cfg, params, seq.ids).layers[0]
        for h, (slot, box) in enumerate(zip(live, boxes)):
            with slot.container():
                charts.heatmap(
                    trace.weights[h],
                    trace.labels,
                    trace.labels,
                    title=f"head {h}, step {step}",
                    x_title="key",
                    y_title="query",
                    signed=False,
                    domain=(0.0, 1.0),
                    mask=trace.mask,
                    present=view.present,
                    width=box.width,
                    area=300,
                    expected=seq.expected,
                )

    if found is None:
        found = compute.train(cfg, run_of, on_progress=progress)
    else:
        compute.replay(found, progress)
        st.session_state[WATCHED] = {*st.session_state.get(WATCHED, ()), found.digest}
    for slot in [bar, curve, *live]:
        slot.empty()
    still.empty()
    return found


def untrained(view: View, cfg: engine.Config, run_of: Training, seq: Sequence, found: Model | None) -> None:
    """Before any training: the initial weights' maps (every layer × head of a stack), what they do."""
    stack = compute.initial_stack(cfg, view.controls.task, seq.ids)  # the initial, random weights
    weights = np.stack([layer.weights for layer in stack.layers])  # (L, H, T, T)
    if cfg.n_layers > 1:
        grid(view, stack, f"random weights: {cfg.n_layers} layers × {cfg.num_heads} heads", key="learn_grid")
    else:
        maps(view, stack.layers[0], seq.expected, layout.columns(view, min(cfg.num_heads, 2)), live=False)
    layout.notice(
        learn_words.untrained(
            weights,
            stack.layers[0].visible,
            None if cfg.n_layers > 1 else seq.expected,
            learn_words.press(_shipped_seconds(found), cfg.n_layers > 1, _estimate(cfg, run_of, found)),
        )
    )
    exports(stack)


def _shipped_seconds(found: Model | None) -> float | None:
    """The training time of the shipped run that Train replays here, or None where Train trains."""
    return found.run.seconds if found is not None and found.origin == "shipped" else None


def _estimate(cfg: engine.Config, run_of: Training, found: Model | None) -> float | None:
    """How long training run_of here takes, from the shipped default run's time per step (None: no such run;
    found: run_of's own run, looked up already, which is the default run when run_of asks for it)."""
    task = engine.TASKS[run_of.task]
    default = Training(task=task.name, steps=task.steps, seed=0, lr=task.lr)
    shipped = found if (cfg, run_of) == (task.config, default) else compute.model(task.config, default)
    if shipped is None or shipped.origin != "shipped" or cfg != task.config:
        return None
    return shipped.run.seconds / shipped.run.steps * run_of.steps


def exports(stack: engine.Stack) -> None:
    """The weights on screen as CSV and figures, the whole trace as .npz."""
    stack = footer.StackArrays(stack)
    footer.exports(
        "learn",
        stack,
        stack.weights(),
        code=(  # the loss, its gradients, one Adam step
            "model.backprop",
            "forward",
            "block_forward",
            "cross_entropy",
            "backward",
            "block_backward",
            "adam_step",
        ),
    )
