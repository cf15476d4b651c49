"""Page 1: every token's vector is multiplied by three weight matrices.

The page's header (its title, intro and formulas), then its sections: pages/qkv.py calls draw."""

from __future__ import annotations

from ui.page import layout
from ui.prose import stages
from ui.sections.qkv import projections
from ui.sections.qkv import words as qkv_words
from ui.shell.view import View


def draw(view: View) -> None:
    """The whole page, under the frame."""
    x = stages.x_symbol(view.config, view.layer)
    layout.header(
        view,
        "Q, K, V projections",
        qkv_words.qkv_intro(view.controls.positional),
        [
            rf"Q = {x} W_Q,\qquad K = {x} W_K,\qquad V = {x} W_V",
            *stages.depth_formulas(view.config, view.layer),
        ],
    )
    projections.draw(view)
