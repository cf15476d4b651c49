"""The Learn page's sections: pick a task, train it live (once per server), replay the checkpoints."""
from __future__ import annotations

import time

import numpy as np
import streamlit as st

import engine
from ui import charts, compute, layout, presets, session
from ui.frame import View
from ui.presets import Training
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


def train_live(view: View, cfg: engine.Config, training: Training, sample: tuple[str, ...],
               expected: np.ndarray) -> engine.TrainRun | None:
    """The Train button; pressed, the run draws itself as it goes: progress, curves, each head's map."""
    button = st.empty()
    if not button.button("Train", key=session.LEARN_TRAIN, type="primary", icon=":material/play_arrow:"):
        return None
    button.empty()
    bar = st.progress(0.0, text="Training …")
    curve = st.empty()
    boxes = layout.columns(view, min(cfg.num_heads, 2))
    live = [box.box.empty() for box in boxes]
    task, last = engine.TASKS[training.task], [0.0]

    def progress(step, steps, losses, accuracies, params) -> None:
        bar.progress(step / steps, text=f"step {step} of {steps}: loss {losses[-1]:.3f}, "
                                        f"accuracy {accuracies[-1]:.0%}")
        if time.perf_counter() - last[0] < LIVE_EVERY_S and step < steps:
            return
        last[0] = time.perf_counter()
        charts.curves(losses, accuracies, present=view.present, box=curve)
        trace = engine.task_trace(task, cfg, params, [task.vocab.index(w) for w in sample])
        for h, (slot, box) in enumerate(zip(live, boxes)):
            with slot.container():
                charts.heatmap(trace.weights[h], trace.labels, trace.labels, title=f"head {h}, step {step}",
                               x_title="key", y_title="query", signed=False, domain=(0.0, 1.0), mask=trace.mask,
                               present=view.present, width=box.width, area=300, expected=expected)

    run = compute.train(cfg, training, on_progress=progress)
    for slot in [bar, curve, *live]:
        slot.empty()
    return run


def untrained(view: View, before: engine.Trace, expected: np.ndarray) -> None:
    """Before any training: the random block's maps, and what to look for."""
    _maps(view, before, expected, layout.columns(view, min(before.num_heads, 2)), live=False)
    layout.notice(words.UNTRAINED)
    _exports(before)


def replay(view: View, cfg: engine.Config, training: Training, run: engine.TrainRun, sample: tuple[str, ...],
           expected: np.ndarray) -> None:
    """A finished run: scrub the checkpoints from the random start to the end, see the heads sharpen."""
    steps = [step for step, _ in run.checkpoints]
    at_step = st.select_slider("Replay: the weights after step", steps, value=steps[-1], key=session.LEARN_STEP)
    trace = compute.checkpoint_trace(cfg, training, at_step, sample)
    charts.curves(run.losses, run.accuracies, at_step=at_step, present=view.present)
    _maps(view, trace, expected, layout.columns(view, min(cfg.num_heads, 2)), live=False)
    history, shares, accuracy = compute.share_history(cfg, training)
    at = steps.index(at_step)
    st.caption(f"Trained in {run.seconds:.1f} s on one core ({run.steps} Adam steps of {run.batch} sequences, "
               f"learning rate {run.lr:g}); every student's page shows these same weights.")
    layout.notice(words.notice(history, shares, at, accuracy))
    st.markdown(f"See it on every page: [open the Q, K, V page with these weights]"
                f"(qkv?preset={presets.TRAINED_PREFIX}{training.task}).")
    _exports(trace)


def _exports(trace: engine.Trace) -> None:
    """The weights on screen as CSV and figures, the whole trace as .npz."""
    layout.exports("learn", trace, {f"weights head {h}": (trace.weights[h], trace.labels, trace.labels)
                                    for h in range(trace.num_heads)}, code=[engine.loss_and_grads, engine.adam_step])
