"""Page 0: the sentence, its tokens and the vectors the block starts from.

The page's header (its title, intro and formulas), then its sections: pages/inputs.py calls draw."""

from __future__ import annotations

from ui.lessons import listing
from ui.page import layout
from ui.prose import stages
from ui.sections.inputs import matrix
from ui.sections.inputs import words as inputs_words
from ui.shell.view import View


def draw(view: View) -> None:
    """The whole page, under the frame."""
    layout.header(
        view,
        "Inputs X",
        inputs_words.inputs_intro(view.training is not None, matrix.stand_in_of(view)),
        [
            r"X \in \mathbb{R}^{T \times d_{model}}"
            + (
                r",\qquad X_{\text{in}} = X + P\ \text{(sinusoidal positions, before layer 0)}"
                if view.config.positional == "sinusoidal"
                else ""
            ),
            *stages.depth_formulas(view.config, view.layer),
        ],
    )
    matrix.draw(view)
    listing.draw(view)
