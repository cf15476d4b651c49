"""The Learn page's sections: pick a task, train it live (once per server), replay the checkpoints."""
from __future__ import annotations

import time

import numpy as np
import streamlit as st

import engine
from engine.train import DECAY_FROM, LR_FLOOR, WARMUP
from ui import charts, compute
from ui.page import footer, layout
from ui.shell import presets, session
from ui.sections.model_view import StackArrays
from ui.shell.frame import View
from ui.shell.presets import Training
from ui.prose import learn as words

LIVE_EVERY_S = 0.15          # redraw the live maps at most this often while training


def choose(view: View) -> str:
    """The task to learn: the sidebar's trained preset's, unless the student picks another."""
    mine = presets.task_of(view.controls.preset)
    default = mine.name if mine is not None and mine.name in presets.TRAINED_TASKS else presets.TRAINED_TASKS[0]
    name = st.segmented_control("Task", presets.TRAINED_TASKS, default=default, required=True,
                                format_func=lambda t: engine.TASKS[t].title, key=session.LEARN_TASK,
                                persist_state="session") or default
    st.markdown(words.task(name))
    return name


def _maps(view: View, trace: engine.Trace, expected: np.ndarray, boxes, live: bool) -> None:
    """Every head's weights on the sample sequence, the expected keys dashed."""
    for h, box in enumerate(boxes):
        with box:
            charts.heatmap(trace.weights[h], trace.labels, trace.labels, title=f"head {h}", x_title="key",
                           y_title="query", signed=False, domain=(0.0, 1.0), mask=trace.mask, present=view.present,
                           width=box.width, area=300, expected=expected, key=None if live else f"learn_map_{h}")


def _grid(view: View, stack: engine.Stack, title: str, key: str | None = None) -> None:
    """Every layer × head of a stack on the sample sequence, one colour scale from 0 to 1."""
    weights = np.stack([layer.weights for layer in stack.layers])        # (L, H, T, T)
    charts.model_view(weights, width=view.width, title=title, mask=stack.layers[0].mask, domain=(0.0, 1.0),
                      present=view.present, key=key)


def train_live(view: View, cfg: engine.Config, training: Training, sample: tuple[str, ...],
               expected: np.ndarray) -> engine.TrainRun | None:
    """The Train button; pressed, the run draws itself as it goes: progress, curves, each head's map
    (with more than one layer: the model view, every layer × head)."""
    button = st.empty()
    if not button.button("Train", key=session.LEARN_TRAIN, type="primary", icon=":material/play_arrow:"):
        return None
    button.empty()
    task, last = engine.TASKS[training.task], [0.0]
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
    ids = [task.vocab.index(w) for w in sample]

    def progress(step, steps, losses, accuracies, params) -> None:
        bar.progress(step / steps, text=f"step {step} of {steps}: loss {losses[-1]:.3f}, "
                                        f"accuracy {accuracies[-1]:.0%}")
        if time.perf_counter() - last[0] < LIVE_EVERY_S and step < steps:
            return
        last[0] = time.perf_counter()
        charts.curves(losses, accuracies, present=view.present, box=curve)
        if deep:
            with live[0].container():
                _grid(view, engine.task_stack(task, cfg, params, ids), f"every layer × head, step {step}")
            return
        trace = engine.task_trace(task, cfg, params, ids)
        for h, (slot, box) in enumerate(zip(live, boxes)):
            with slot.container():
                charts.heatmap(trace.weights[h], trace.labels, trace.labels, title=f"head {h}, step {step}",
                               x_title="key", y_title="query", signed=False, domain=(0.0, 1.0), mask=trace.mask,
                               present=view.present, width=box.width, area=300, expected=expected)

    run = compute.train(cfg, training, on_progress=progress)
    for slot in [bar, curve, *live]:
        slot.empty()
    still.empty()
    return run


def untrained(view: View, cfg: engine.Config, sample: tuple[str, ...], expected: np.ndarray) -> None:
    """Before any training: the random block's maps (every layer × head of a stack), what to look for."""
    if cfg.n_layers > 1:
        stack = compute.stack(cfg, sample)
        _grid(view, stack, f"random weights: {cfg.n_layers} layers × {cfg.num_heads} heads", key="learn_grid")
        layout.notice(words.UNTRAINED_DEEP)
        _exports(StackArrays(stack))
        return
    before = compute.trace(cfg, sample)                    # the initial, random weights
    _maps(view, before, expected, layout.columns(view, min(before.num_heads, 2)), live=False)
    layout.notice(words.UNTRAINED)
    _exports(before)


def replay(view: View, cfg: engine.Config, training: Training, run: engine.TrainRun, sample: tuple[str, ...],
           expected: np.ndarray) -> None:
    """A finished run: scrub the checkpoints from the random start to the end, see the heads sharpen."""
    if cfg.n_layers > 1:
        replay_stack(view, cfg, training, run, sample)
        return
    steps = [step for step, _ in run.checkpoints]
    at_step = st.select_slider("Replay: the weights after step", steps, value=steps[-1], key=session.LEARN_STEP)
    trace = compute.checkpoint_trace(cfg, training, at_step, sample)
    charts.curves(run.losses, run.accuracies, at_step=at_step, present=view.present)
    _maps(view, trace, expected, layout.columns(view, min(cfg.num_heads, 2)), live=False)
    history, shares, accuracy = compute.share_history(cfg, training)
    at = steps.index(at_step)
    st.caption(f"Trained in {run.seconds:.1f} s on one core ({run.steps} Adam steps of {run.batch} sequences, "
               f"learning rate {run.lr:g}, {_schedule(run)}); every student's page shows these same weights.")
    layout.notice(words.notice(history, shares, at, accuracy))
    st.markdown(f"See it on every page: [open the Q, K, V page with these weights]"
                f"(qkv?preset={presets.TRAINED_PREFIX}{training.task}).")
    _exports(trace)


def replay_stack(view: View, cfg: engine.Config, training: Training, run: engine.TrainRun,
                 sample: tuple[str, ...]) -> None:
    """A finished run of a stack: the loss with its plateau and drop, the model view at any saved step,
    and each head's weight on its keys over the run: which head locked on when."""
    steps = [step for step, _ in run.checkpoints]
    at_step = st.select_slider("Replay: the weights after step", steps, value=steps[-1], key=session.LEARN_STEP)
    history, shares, accuracy = compute.share_history(cfg, training)
    previous, drop = compute.circuit(cfg, training)
    charts.curves(run.losses, run.accuracies, at_step=at_step, drop=drop, present=view.present)
    stack = compute.checkpoint_stack(cfg, training, at_step, sample)
    _grid(view, stack, f"every layer × head after step {at_step}", key="learn_grid")
    st.caption("The model view of the sequence above: rows are layers, columns heads, one colour scale from 0 "
               "to 1 (grey: hidden by the causal mask). Hover a map for its layer and head.")
    circuit = words.circuit(history, shares, previous)
    series = [(f"layer 0 head {head}: on the previous token", previous[:, 0, head], True)
              for head in range(cfg.num_heads)]
    series += [(f"layer {layer} head {head}: on the token after an earlier copy", shares[:, layer, head], False)
               for layer in range(1, cfg.n_layers) for head in range(cfg.num_heads)]
    st.markdown("**Which head locked on when**: each layer-0 head's weight on the previous token (dashed), each "
                "later head's weight on the token right after an earlier copy of the current one (solid).")
    charts.history(history, series, at_step=at_step, y_title="mean weight on those keys", present=view.present)
    at = steps.index(at_step)
    st.caption(f"Trained in {run.seconds:.1f} s on one core ({run.steps} Adam steps of {run.batch} sequences, "
               f"learning rate {run.lr:g}, {_schedule(run)}); every student's page shows these same weights. Weights measured on "
               f"{compute.SHARE_SEQUENCES} fresh sequences at every saved step.")
    layout.notice(words.depth_notice(run.losses, drop, history, shares, previous, at, accuracy, circuit))
    st.markdown(f"See it on every page: [open the model view with these weights]"
                f"(model?preset={presets.TRAINED_PREFIX}{training.task}).")
    _exports(StackArrays(stack))


def _schedule(run: engine.TrainRun) -> str:
    """How the run's learning rate moved (engine.train.learning_rate), in a few words."""
    return (f"reached over the first {WARMUP:.0%} of the steps, held to {DECAY_FROM:.0%}, then lowered to "
            f"{run.lr * LR_FLOOR:g}")


def _exports(trace) -> None:
    """The weights on screen as CSV and figures, the whole trace as .npz."""
    matrices = trace.weights() if isinstance(trace, StackArrays) else {
        f"weights head {h}": (trace.weights[h], trace.labels, trace.labels) for h in range(trace.num_heads)}
    footer.exports("learn", trace, matrices, code=[          # the loss, its gradients, one Adam step
        engine.model.backprop, engine.forward, engine.block_forward, engine.cross_entropy,
        engine.backward, engine.block_backward, engine.adam_step])
