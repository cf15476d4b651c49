"""The model view: every layer × every head at a glance, on one colour scale; click a map to open it.

The page's header (its title, intro and formulas), then its sections: pages/model.py calls draw."""

from __future__ import annotations

from ui.page import layout
from ui.prose import stages
from ui.sections.heads import sentence as head_sentence
from ui.sections.model import grid, roles
from ui.shell.view import View


def draw(view: View) -> None:
    """The whole page, under the frame."""
    cfg = view.config
    layout.header(
        view,
        "Model view: every head",
        "Every attention map of the model at once: one row per layer, one column per head, all on one "
        "colour scale, like BertViz's model view. Layer 0 reads the tokens; each later layer reads the output "
        "of the one before, so its maps can mix what earlier heads found. Click a map to open that layer's "
        "heads on the per-head page.",
        [
            r"X^{(0)} = X"
            + (" + P" if cfg.positional == "sinusoidal" else "")
            + r",\qquad X^{(\ell+1)} = \text{block}_\ell\big(X^{(\ell)}\big),\qquad "
            r"A^{(\ell)}_h = \text{softmax}\Big(\frac{Q^{(\ell)}_h K^{(\ell)\top}_h}{"
            + (r"\sqrt{d_{head}}" if cfg.scale_scores else "1")
            + "}"
            + stages.masked(cfg)
            + r"\Big)",
            r"Q^{(\ell)} = " + (r"\text{LN}(X^{(\ell)})" if cfg.layer_norm else r"X^{(\ell)}") + r"\,W_Q^{(\ell)},\quad"
            r" K^{(\ell)} = " + (r"\text{LN}(X^{(\ell)})" if cfg.layer_norm else r"X^{(\ell)}") + r"\,W_K^{(\ell)}",
            *stages.mask_line(cfg),
        ],
    )
    grid.draw(view)
    head_sentence.draw(view)  # a model of text: the outlined head, in the running text
    roles.draw(view)
