"""Page 1: every token's vector is multiplied by three weight matrices."""

from ui import app
from ui.page import layout
from ui.prose import notices, stages
from ui.sections.qkv import projections

view = app.view()
layout.header(
    view,
    "Q, K, V projections",
    notices.qkv_intro(view.controls.positional),
    [
        rf"Q = {stages.x_symbol(view.config, view.layer)} W_Q,\qquad K = {stages.x_symbol(view.config, view.layer)} W_K,"
        rf"\qquad V = {stages.x_symbol(view.config, view.layer)} W_V",
        *stages.depth_formulas(view.config, view.layer),
    ],
)
projections.draw(view)
