"""The model view's knock-outs: remove heads, see what the model then does (issue 24)."""

from __future__ import annotations

import numpy as np
import streamlit as st

import engine
from engine import language
from ui import compute, compute_roles
from ui.page import layout, tables
from ui.prose import controls as controls_words
from ui.prose import knockout as knockout_words
from ui.prose.numbers import fmt
from ui.sections.model import text
from ui.shell.session import FIELD
from ui.shell.view import View


def control(view: View) -> tuple[tuple[int, int], ...]:
    """The multiselect of heads to knock out (in the URL as ablate=L.H,L.H)."""
    cfg = view.config
    options = [(layer, head) for layer in range(cfg.n_layers) for head in range(cfg.num_heads)]
    st.multiselect(
        "Knock out heads",
        options,
        key=FIELD.ablate,
        format_func=lambda p: f"layer {p[0]} head {p[1]}",
        help="A knocked-out head's output is replaced by zeros before the heads are concatenated "
        "(zero-ablation); every later layer then reads what is left.",
    )
    return view.controls.ablate


def effect(view: View, before: engine.Stack, after: engine.Stack) -> None:
    """What the knock-out changed: the task's accuracy and loss (trained presets), or each output row's
    norm (the articles' presets, which have no task)."""
    knocked = view.controls.ablate
    trained = view.model.trained  # ready: the frame trained it first
    if trained is not None and trained.task.held_out is not None:  # a model of text: losses, not accuracy
        text.effect(view, trained)
        text.next_words(view, trained)
        return
    if trained is not None:
        T = len(view.words)
        base, now = compute.metrics(trained, T), compute.metrics(trained, T, knocked)
        left, right = layout.columns(view, 2)
        delta = (now.overall_accuracy - base.overall_accuracy) * 100
        with left:
            st.metric("accuracy", f"{now.overall_accuracy:.1%}", delta=f"{delta:+.1f} points" if knocked else None)
        with right:
            st.metric(
                "loss",
                fmt(now.overall_loss, ".3g"),
                delta=fmt(now.overall_loss - base.overall_loss, "+.3g") if knocked else None,
                delta_color="inverse",
            )
        st.caption(knockout_words.metrics_caption(trained.task.title, knocked, now.sample, trained.task.seq_len))
        return
    norm_before = np.linalg.norm(before.output, axis=-1)  # (T,)
    norm_after = np.linalg.norm(after.output, axis=-1)  # (T,)
    if knocked:
        tables.table(
            {
                "token": list(before.labels),
                "‖output‖": norm_before,
                "after the knock-out": norm_after,
                "change": norm_after - norm_before,
            },
            {"‖output‖": ".3f", "after the knock-out": ".3f", "change": "+.3f"},
        )
    st.caption(knockout_words.no_task(knocked, norm_before, norm_after))


def redrawn(view: View, knocked) -> None:
    """Which maps the knock-out redrew (those of the layers after the first knocked-out head's)."""
    if knocked:
        st.caption(knockout_words.redrawn(knocked, min(layer for layer, _ in knocked), view.config.n_layers))


def roles(view: View) -> list[list[str]]:
    """Each map's label with its score, as the controls support it (ui.prose.controls.tag: the role the one rule
    names, or the check that failed); [] for an article's preset, which has no vocabulary to draw them from."""
    trained = view.model.trained
    if trained is None:
        return []
    return [[controls_words.tag(one) for one in layer] for layer in compute_roles.labels(trained)]


def measured(view: View) -> list[list[str]]:
    """Each map's strongest measured role and score, before any control (engine.evidence.head_scores on fresh
    sequences of the task, or the text model's evidence)."""
    scores = compute.head_scores(view.model.trained)
    return [
        [
            knockout_words.role(*scores.role(layer, head, knockout_words.ROLE_MIN))
            for head in range(view.config.num_heads)
        ]
        for layer in range(view.config.n_layers)
    ]


def labels(view: View, roles: list[list[str]]) -> None:
    """Every map's label, as a table under the picture (it reads on a phone too): its strongest measured role
    and, beside it, the label the controls support (roles)."""
    cfg, knocked = view.config, view.controls.ablate
    if not roles:
        st.caption(
            "This article's preset has no task and no vocabulary to draw test sequences from, so no head "
            "is scored for a role."
        )
        return
    pairs = [(layer, head) for layer in range(cfg.n_layers) for head in range(cfg.num_heads)]
    trained = view.model.trained
    scores = compute.head_scores(trained).roles()  # every role's score, as measured
    costs = text.head_costs(trained) if trained.task.held_out is not None else {}
    strongest = measured(view)
    tables.table(
        {
            "map": [f"layer {layer} head {head}" for layer, head in pairs],
            "strongest measured role": [strongest[layer][head] for layer, head in pairs],
            "label, with its controls": [roles[layer][head] for layer, head in pairs],
            **{name: [fmt(values[pair], ".2f") for pair in pairs] for name, values in scores.items()},
            **costs,
            "knocked out": ["yes" if pair in knocked else "no" for pair in pairs],
        }
    )
    if costs:
        st.caption(knockout_words.text_roles_caption(*language.samples(compute.TEXT_N)))
    else:
        st.caption(knockout_words.roles_caption(compute.followed(trained), len(view.words)))
