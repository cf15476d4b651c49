"""Page 4: every head's weights on one colour scale, then the concat and the output projection.

The page's header (its title, intro and formulas), then its sections: pages/heads.py calls draw."""

from __future__ import annotations

import streamlit as st

from ui.page import layout
from ui.poll import drawq
from ui.prose import stages
from ui.sections.heads import maps, role, sentence
from ui.shell.view import View


def draw(view: View) -> None:
    """The whole page, under the frame."""
    layout.header(
        view,
        "Per-head maps",
        "Each head has its own slice of Q, K and V, so each head can attend differently. Their outputs "
        "(weights · V) are placed side by side (the concat) and, in the Part 4 block, mixed by the output "
        "projection W_O.",
        [
            r"\text{head}_h = \text{softmax}\!\Big("
            + stages.scaled(r"Q_h K_h^\top", view.config, r"\tfrac")
            + stages.masked(view.config)
            + r"\Big) V_h,\qquad "
            + (
                r"\text{attn} = [\text{head}_0, \dots, \text{head}_{H-1}]\, W_O"
                if view.config.output_projection
                else r"\text{attn} = [\text{head}_0, \dots, \text{head}_{H-1}]"
            ),
            *stages.mask_line(view.config),
            *stages.depth_formulas(view.config, view.layer),
        ],
    )
    if drawq.hides(view):  # a student while the class draws a row: every head's weights would show it
        st.info(drawq.HIDDEN, icon=":material/draw:")
        return
    maps.draw(view)
    sentence.draw(view)
    role.draw(view)
