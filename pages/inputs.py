"""Page 0: the sentence, its tokens and the vectors the block starts from."""

from ui import app
from ui.lessons import listing
from ui.page import layout
from ui.prose import notices, stages
from ui.sections.inputs import matrix

view = app.view()
layout.header(
    view,
    "Inputs X",
    notices.inputs_intro(view.training is not None, matrix.stand_in_of(view)),
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
