"""Experiments: three design choices made visible (÷√d_head, positions, the causal mask), live numbers.

The page's header (its title, intro and formulas), then its sections: pages/experiments.py calls draw."""

from __future__ import annotations

import streamlit as st

from ui.page import layout
from ui.prose import stages
from ui.sections.experiments import menu
from ui.sections.experiments import words as said
from ui.shell.view import View


def draw(view: View) -> None:
    """The whole page, under the frame."""
    layout.header(
        view,
        "Experiments: why?",
        said.INTRO,
        [
            r"\text{softmax}\Big("
            + stages.scaled(r"Q K^\top", view.config)
            + stages.masked(view.config)
            + r"\Big)\, V,\qquad "
            rf"Q, K, V \text{{ computed from }} {stages.x_symbol(view.config, 0)}"
            r"\qquad\text{(the sidebar's block;}\allowbreak\ \text{each experiment switches one choice)}",
            *stages.mask_line(view.config),
        ],
    )
    if view.config.n_layers > 1:
        st.info(
            f"With {view.config.n_layers} layers these experiments run on layer 0, the first block, which reads "
            "the tokens themselves.",
            icon=":material/layers:",
        )
    menu.draw(view)
