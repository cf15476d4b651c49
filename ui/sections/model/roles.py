"""The model view's roles with controls (issue 50): every head's strongest role, its score with a 95 % interval
and sample, its untrained and layer baselines, its transfer score (and the text model's shuffled control), its
three knock-outs on the role's loss, and the label the one rule gives it, or the check that failed."""

from __future__ import annotations

import streamlit as st

from engine.role_checks import HeadRole
from ui import compute_roles
from ui.page.gloss_table import gloss_table
from ui.prose import controls as controls_words
from ui.prose.numbers import fmt
from ui.shell.view import View


def rows(found: tuple[HeadRole, ...], layers: int) -> dict[str, list[str]]:
    """The table's columns, every number already as it is printed (ui.prose.numbers.fmt)."""
    text = any(one.controls.shuffled is not None for one in found)
    columns = {
        "head": [controls_words.who(one.layer, one.head, layers) for one in found],
        "role": [one.controls.role for one in found],
        "score": [fmt(one.controls.score, controls_words.SPEC) for one in found],
        "95 % interval": [controls_words.interval(one.controls.lo, one.controls.hi) for one in found],
        "initial weights": [fmt(one.controls.untrained, controls_words.SPEC) for one in found],
        "layer's other heads": [controls_words.others(one) for one in found],
        "transfer": [fmt(one.controls.transfer, controls_words.SPEC) for one in found],
    }
    if text:
        columns["shuffled"] = [fmt(one.controls.shuffled, controls_words.SPEC) for one in found]
    for mode in ("zero", "mean", "resample"):
        columns[f"{mode} knock-out"] = [controls_words.effect(getattr(one.controls, mode)) for one in found]
    columns["label"] = [controls_words.label(one) for one in found]
    return columns


def draw(view: View) -> None:
    """The section: the rule, the table of every head (each column's name shows its one-line gloss on hover and
    focus; the glosses are printed under it too), why each head has its label, and what it was all measured on.
    Nothing for an article's preset (no task, no held-out sample)."""
    trained = view.model.trained
    if trained is None:
        return
    st.subheader("Each head's role, with its controls")
    st.markdown(controls_words.rule())
    found = compute_roles.every_head(trained)
    columns = rows(found, view.config.n_layers)
    # no data grid (its bundle on a cold start); each column's name shows its gloss on hover and focus, printed
    # below too; on a phone the rows reflow into cards
    gloss_table(columns, controls_words.GLOSSES, key="model_roles", caption=controls_words.TABLE_CAPTION)
    st.caption(" ".join(f"{name}: {controls_words.GLOSSES[name]}" for name in columns))
    st.caption(controls_words.MEAN_WHY)
    st.markdown(
        "\n".join(
            f"- **{controls_words.who(one.layer, one.head, view.config.n_layers)}: {controls_words.label(one)}.** "
            f"{controls_words.why(one)}"
            for one in found
        )
    )
    st.caption(controls_words.samples(found))
