"""Page 0: the sentence, its tokens and the vectors the block starts from."""
from ui import app
from ui.page import layout
from ui.prose import stages
from ui.lessons import listing
from ui.sections.inputs import matrix

view = app.view()
layout.header(
    view,
    "Inputs X",
    "The sentence in the sidebar is split into tokens. Each token becomes one row of **X**: a known "
    "word takes its row of the preset's table, "
    + ("any other word is left out (this model was trained on its task's tokens only) and the sequence is "
       "filled from the task. " if view.training is not None else
       "any other word gets a vector of its own (the same word always the same vector). ")
    + "Everything on the next pages is computed from this matrix.",
    [r"X \in \mathbb{R}^{T \times d_{model}}"
     + (r",\qquad X_{\text{in}} = X + P\ \text{(sinusoidal positions, before layer 0)}"
        if view.config.positional == "sinusoidal" else ""),
     *stages.depth_formulas(view.config, view.layer)],
)
matrix.draw(view)
listing.draw(view)
