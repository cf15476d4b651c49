"""The Learn page after a run: scrub its saved steps, see the heads sharpen, what it predicts, its loss and
accuracy by position, and (deep tasks) one layer against two."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

import numpy as np
import streamlit as st

import engine
from engine.sample import Sample
from engine.training import DECAY_FROM, DTYPE, LR_FLOOR, WARMUP
from services.weights import Model, Training
from ui import charts, compute
from ui.page import layout, tables
from ui.prose.numbers import fmt
from ui.prose.sample import said as sample_said
from ui.sections.learn import words as learn_words
from ui.sections.learn import words_knockouts as learn_knockout_words
from ui.sections.learn.live import exports, grid
from ui.sections.learn.scrub import scrubbed_step
from ui.sections.learn.task import Sequence
from ui.sections.model import text
from ui.shell import frame, presets, state, url
from ui.shell.view import View


def replay(view: View, trained: Model, seq: Sequence) -> None:
    """A finished run: scrub the checkpoints from the random start to the end, see the heads sharpen."""
    cfg, run, task = trained.config, trained.run, trained.task
    measured = compute.metrics(trained)
    accuracy, sample = measured.overall_accuracy, measured.sample
    scrub(view, trained, seq, accuracy, sample)
    st.caption(
        f"{learn_words.origin(trained.origin, trained.digest)} "
        f"Trained in {learn_words.duration(run.seconds)} on one core, in "
        f"{np.dtype(DTYPE).name} arithmetic ({run.steps:,} Adam steps of {run.batch} sequences, learning rate "
        f"{run.lr:g}, {_schedule(run)}; batch seed {run.seed}); the pages compute with these weights in float64."
    )
    predictions(compute.task_stack(trained, None, seq.ids), task, seq)
    if task.held_out is not None:  # text: its next word, top 5
        text.next_table(trained, seq.ids, seq.words[-1])
    by_position(view, trained)
    if cfg.n_layers > 1 and task.held_out is None:  # text: no one-layer run (2,500 steps each)
        one_layer(view, trained, seq, accuracy)
    page = "model" if cfg.n_layers > 1 else "qkv"
    st.markdown(
        f"See it on every page: [open the {'model view' if page == 'model' else 'Q, K, V page'} with "
        f"these weights]({page}?{urlencode(link_params(trained))})."
    )
    exports(compute.task_stack(trained, None, seq.ids))


@frame.fragment
def scrub(view: View, trained: Model, seq: Sequence, accuracy: float, sample: Sample) -> None:
    """The replay (its maps scrubbed in the browser: ui.sections.learn.scrub) and what its rested step moves (the
    curves' marker, each head's history, the notice), as one fragment: a step set reruns only this."""
    cfg, run = trained.config, trained.run
    at_step = scrubbed_step(view, trained, seq)
    history, shares = compute.share_history(trained)
    if cfg.n_layers > 1:
        stack = compute.task_stack(trained, at_step, seq.ids)
        _replay_stack(view, trained, at_step, stack, history, shares, accuracy, sample)
    else:
        charts.curves(run.losses, run.accuracies, at_step=at_step, present=view.present)
        layout.notice(
            learn_words.notice(
                history, shares, list(trained.steps).index(at_step), accuracy, sample, compute.followed(trained)
            )
        )


def link_params(trained: Model) -> dict[str, str]:
    """The URL parameters of a trained preset's pages that show exactly this run's weights (its task's
    preset, and the run's steps, batch seed and learning rate when they are not the task's own)."""
    run = trained.run
    controls = replace(
        state.preset_controls(presets.TRAINED_PREFIX + run.task), steps=run.steps, train_seed=run.seed, lr=run.lr
    )
    return url.to_params(controls)


def _replay_stack(
    view: View,
    trained: Model,
    at_step: int,
    stack: engine.Stack,
    history,
    shares,
    accuracy: float,
    sample: Sample,
) -> None:
    """A stack's run: the loss and its drop, the model view at the step, each head's weight on the
    previous token and on the task's keys over the run (any task with more than one layer)."""
    cfg, run = trained.config, trained.run
    previous, fall = compute.circuit(trained)
    charts.curves(run.losses, run.accuracies, at_step=at_step, drop=fall, present=view.present)
    st.caption(
        "The model view of the sequence above: rows are layers, columns heads, one colour scale from 0 "
        "to 1" + (" (grey: hidden by the causal mask)" if cfg.causal else "") + "."
    )
    series = []
    for layer in range(cfg.n_layers):
        for head in range(cfg.num_heads):
            on_prev = previous[-1, layer, head] > shares[-1, layer, head]  # the role it ends up in
            series.append(
                (
                    f"layer {layer} head {head}: " + ("on the previous token" if on_prev else "on the task's keys"),
                    (previous if on_prev else shares)[:, layer, head],
                    bool(on_prev),
                )
            )
    st.markdown(
        "**Which head locked on when**: each head's weight on whichever it ends up looking at more: the "
        "previous token (dashed) or the keys of the task (solid)."
    )
    charts.history(history, series, at_step=at_step, y_title="mean weight on those keys", present=view.present)
    if trained.task.held_out is not None:  # text: its knock-outs in nats, on held-out text
        knocked = learn_knockout_words.text_knockouts(compute.text_evidence(trained))
    else:
        base, single, layers = compute.circuit_knockouts(trained)
        knocked = learn_knockout_words.knockouts(base, single, layers, compute.metrics(trained).sample)
    layout.notice(
        learn_words.depth_notice(
            run.losses,
            fall,
            history,
            shares,
            previous,
            list(trained.steps).index(at_step),
            accuracy,
            trained.task.title,
            knocked,
            sample,
            compute.followed(trained),
        )
    )


def predictions(stack: engine.Stack, task: engine.Task, seq: Sequence) -> None:
    """What the model predicts at every position: the top token, its probability, right or wrong."""
    probs = stack.probs  # (T, V)
    top = probs.argmax(axis=-1)  # (T,)
    scored = seq.targets >= 0
    right = scored & (top == seq.targets)
    st.markdown(
        "**What the model predicts** at every position of this sequence "
        + ("(scored: where the task gives an answer)" if seq.typed else "(scored: where the task scores)")
    )
    tables.table(
        {
            "position": list(range(len(seq.ids))),
            "token": list(seq.words),
            "scored": ["yes" if s else "no" for s in scored],
            "target": [task.vocab[t] if t >= 0 else "—" for t in seq.targets],
            "predicted": [task.vocab[t] for t in top],
            "probability": [fmt(probs[i, t], ".3f") for i, t in enumerate(top)],
            "right?": [("right" if r else "wrong") if s else "—" for s, r in zip(scored, right)],
        }
    )
    st.caption(f"{int(right.sum())} of {int(scored.sum())} scored positions right on this sequence.")


def by_position(view: View, trained: Model) -> None:
    """The trained model's loss and accuracy at each position, on the sample compute.metrics measures (fresh
    sequences of the task, or windows of held-out text), named from it."""
    metrics = compute.metrics(trained)
    charts.by_position(
        metrics.loss,
        metrics.accuracy,
        metrics.scored,
        present=view.present,
        title=learn_knockout_words.by_position_title(metrics.sample),
    )
    st.caption(
        learn_knockout_words.by_position(
            metrics.loss, metrics.accuracy, metrics.scored, metrics.count, trained.task.title, metrics.sample
        )
    )


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
    single_measured = compute.metrics(single_model)  # nothing knocked out
    single = single_measured.overall_accuracy
    left, right = layout.columns(view, 2)
    with left:
        st.metric(f"accuracy, {cfg.n_layers} layers", f"{accuracy:.1%}")
        grid(view, compute.task_stack(trained, None, seq.ids), f"{cfg.n_layers} layers", key="learn_grid_deep")
    with right:
        st.metric("accuracy, 1 layer", f"{single:.1%}", delta=f"{(single - accuracy) * 100:+.1f} points")
        grid(view, compute.task_stack(single_model, None, seq.ids), "1 layer", key="learn_grid_one")
    st.caption(
        f"Both trained with the same steps, batches and learning rate; accuracy on "
        f"{sample_said(single_measured.sample)}. The one-layer model predicts {fmt(single, '.1%')} right, "
        f"the {cfg.n_layers}-layer one "
        f"{fmt(accuracy, '.1%')}. The one-layer model is "
        f"{learn_words.origin(single_model.origin, single_model.digest, short=True)}."
    )


def _schedule(run: engine.TrainRun) -> str:
    """How the run's learning rate moved (engine.training.learning_rate), in a few learn_words."""
    return (
        f"reached over the first {WARMUP:.0%} of the steps, held to {DECAY_FROM:.0%}, then lowered to "
        f"{run.lr * LR_FLOOR:g}"
    )
