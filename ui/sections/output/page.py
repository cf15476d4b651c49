"""Page 5: the rest of the block: residual, feed-forward layer with ReLU, output.

The page's header (its title, intro and formulas), then its sections: pages/output.py calls draw."""

from __future__ import annotations

from ui.page import layout
from ui.prose import stages
from ui.sections.output import ffn
from ui.shell.view import View


def draw(view: View) -> None:
    """The whole page, under the frame."""
    layout.header(
        view,
        "Block output",
        "After attention, each token's vector goes through the same small two-layer network. "
        "With residual connections (Part 4) each sub-layer's input is added back to its output; the "
        "Day 33 model has none. The ReLU sets every negative hidden value to exactly 0.",
        [*stages.output_formulas(view.config, view.layer), *stages.depth_formulas(view.config, view.layer)],
    )
    ffn.draw(view)
