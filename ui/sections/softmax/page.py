"""Page 3: the softmax turns each row of scaled scores into weights that sum to 1; β sharpens or flattens it.

The page's header (its title, intro and formulas), then its sections: pages/softmax.py calls draw."""

from __future__ import annotations

from ui.page import layout
from ui.prose import stages
from ui.sections.softmax import weights
from ui.shell.view import View


def draw(view: View) -> None:
    """The whole page, under the frame."""
    layout.header(
        view,
        "Softmax weights",
        "Each row of scaled scores goes through the softmax: every entry becomes e to its power, divided "
        "by the row's total. The result is a row of positive weights that sum to 1: how much each query "
        "token takes from each key token. The slider β (an inverse temperature) multiplies the scores first: "
        "above 1 the rows get sharper, below 1 flatter, and at 0 every visible key gets the same weight. "
        "The model itself uses β = 1.",
        [
            r"w_{ij} = \frac{e^{\beta s_{ij}}}{\sum_{j'} e^{\beta s_{ij'}}},\qquad \sum_j w_{ij} = 1,"
            r"\qquad \beta = 1 \text{ in the model}",
            *stages.depth_formulas(view.config, view.layer),
        ],
    )
    weights.draw(view)
