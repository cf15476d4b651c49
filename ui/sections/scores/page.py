"""Page 2: every query meets every key; the scores are divided by √d_head.

The page's header (its title, intro and formulas), then its sections: pages/scores.py calls draw."""

from __future__ import annotations

from ui import compute
from ui.page import layout
from ui.prose import stages
from ui.sections.scores import maps
from ui.sections.scores import words as scores_words
from ui.shell.view import View


def draw(view: View) -> None:
    """The whole page, under the frame."""
    t = compute.trace(view.model, view.words, view.layer)
    layout.header(
        view,
        "Scaled scores",
        scores_words.scores_intro(t),
        [
            r"\text{scaled} = " + stages.scaled(r"Q K^\top", view.config) + stages.masked(view.config),
            *stages.mask_line(view.config),
            *stages.depth_formulas(view.config, view.layer),
        ],
    )
    maps.draw(view)
