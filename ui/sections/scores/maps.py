"""The Scaled scores page's parts: the divisor, the raw and scaled maps on one scale, the worked cell."""

from __future__ import annotations

import streamlit as st

from ui import charts, compute
from ui.charts.attention_map import Panel, attention_map
from ui.page import footer, layout
from ui.poll import drawq
from ui.prose import stages
from ui.sections.cell import worked
from ui.sections.scores import words as scores_words
from ui.shell import frame, session
from ui.shell.view import View


def draw(view: View) -> None:
    """Everything under the header."""
    t = compute.trace(view.model, view.words, view.layer)
    cfg, h = view.config, view.controls.head
    if cfg.scale_scores:
        divisor = stages.divisor(cfg)
        st.latex(
            rf"d_{{head}} = {cfg.d_model}/{cfg.num_heads} = {cfg.d_head},\quad \sqrt{{{cfg.d_head}}} = "
            rf"{divisor},\quad \text{{scaled}} = \frac{{Q K^\top}}{{{divisor}}}" + stages.masked(cfg)
        )
    else:
        st.warning(f"{stages.scaling_off()} (a switch in the sidebar): the scaled scores equal the raw scores.")
    picked(view)
    footer.exports(
        "scores",
        t,
        {f"scores head {h}": (t.scores[h], t.labels, t.labels), f"scaled head {h}": (t.scaled[h], t.labels, t.labels)},
        code=("block_forward",),
    )


@frame.fragment
def picked(view: View) -> None:
    """The two maps on one colour scale in one component (a pick on either is answered in the browser, with its
    worked calculation, and written into the URL's cell=), their notice and the keyboard path's selectors (which
    rerun only this part)."""
    if drawq.hides(view):  # a student while the class draws a row: a worked cell gives its softmax share
        st.info(drawq.HIDDEN, icon=":material/draw:")
        return
    t = compute.trace(view.model, view.words, view.layer)
    cfg, h, present = view.config, view.controls.head, view.present
    mask = t.mask
    domain = charts.symmetric_domain(t.scores[h], t.scaled[h])
    work = compute.worked_cells(view.model, view.words, view.layer, h)
    scaled_title = (f"÷ √{cfg.d_head}" if cfg.scale_scores else "not divided (scaling off)") + (
        " and masked" if mask is not None else ""
    )
    attention_map(
        [
            Panel(t.scores[h], f"raw scores Q·K^T, head {h}{stages.where(cfg, view.layer)}: {t.T} × {t.T}", None, work),
            Panel(t.scaled[h], scaled_title, mask, work),
        ],
        key=session.SCORES_MAPS,
        rows=t.labels,
        domain=domain,
        pick=None if view.cell is None else (1, *view.cell),
        present=present,
        width=view.width,
        area=230,
        link="cell",
        legend="score",
    )
    st.caption(
        "One colour scale for both maps, so the shrinking shows. Hover a cell for its exact value; click (or tap) it, "
        "or Tab to a map and use the arrow keys and Enter, for its worked calculation under the maps."
    )

    layout.notice(scores_words.scores_notice(t, h))
    worked.show(t, h, view.cell)
