"""Page 2: every query meets every key; the scores are divided by √d_head."""

from ui import app, compute
from ui.page import layout
from ui.prose import notices, stages
from ui.sections.scores import maps

view = app.view()
t = compute.trace(view.model, view.words, view.layer)
layout.header(
    view,
    "Scaled scores",
    notices.scores_intro(t),
    [
        (
            r"\text{scaled} = \frac{Q K^\top}{\sqrt{d_{head}}}"
            if view.config.scale_scores
            else r"\text{scaled} = Q K^\top"
        )
        + stages.masked(view.config),
        *stages.mask_line(view.config),
        *stages.depth_formulas(view.config, view.layer),
    ],
)
maps.draw(view)
