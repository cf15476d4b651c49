"""The Scaled scores page's parts: the divisor, the raw and scaled maps on one scale, the worked cell."""

from __future__ import annotations

import streamlit as st

from ui import charts, compute
from ui.page import footer, layout
from ui.prose import notices, stages
from ui.sections.cell import worked
from ui.shell import frame, session
from ui.shell.view import View


def draw(view: View) -> None:
    """Everything under the header."""
    t = compute.trace(view.model, view.words, view.layer)
    cfg, h = view.config, view.controls.head
    divisor = cfg.d_head**0.5 if cfg.scale_scores else 1.0
    if cfg.scale_scores:
        st.latex(
            rf"d_{{head}} = {cfg.d_model}/{cfg.num_heads} = {cfg.d_head},\quad \sqrt{{{cfg.d_head}}} = "
            rf"{divisor:.4f},\quad \text{{scaled}} = \frac{{Q K^\top}}{{{divisor:.4f}}}" + stages.masked(cfg)
        )
    else:
        st.warning("Scaling is switched off in the sidebar: the scaled scores equal the raw scores.")
    picked(view)
    footer.exports(
        "scores",
        t,
        {f"scores head {h}": (t.scores[h], t.labels, t.labels), f"scaled head {h}": (t.scaled[h], t.labels, t.labels)},
        code=("block_forward",),
    )


@frame.fragment
def picked(view: View) -> None:
    """The two maps, their notice and the worked cell: a click on a cell (or its selectors) reruns only this,
    and the picked cell is outlined in both maps."""
    t = compute.trace(view.model, view.words, view.layer)
    cfg, h, present = view.config, view.controls.head, view.present
    cell = view.cell
    mask = t.mask
    domain = charts.symmetric_domain(t.scores[h], t.scaled[h])
    raw_col, scaled_col = layout.columns(view, 2)
    with raw_col:
        charts.heatmap(
            t.scores[h],
            t.labels,
            t.labels,
            title=f"raw scores Q·K^T, head {h}{stages.where(cfg, view.layer)}: {t.T} × {t.T}",
            x_title="key",
            y_title="query",
            domain=domain,
            pick=cell,
            key=session.SCORES_RAW,
            present=present,
            width=raw_col.width,
            area=230,
            selectable=True,
        )
    with scaled_col:
        charts.heatmap(
            t.scaled[h],
            t.labels,
            t.labels,
            title=(f"÷ √{cfg.d_head}" if cfg.scale_scores else "not divided (scaling off)")
            + (" and masked" if mask is not None else ""),
            x_title="key",
            y_title="query",
            domain=domain,
            mask=mask,
            pick=cell,
            key=session.SCORES_SCALED,
            present=present,
            width=scaled_col.width,
            area=230,
            selectable=True,
        )
    st.caption(
        "One colour scale for both maps, so the shrinking shows. Hover a cell for its exact value; "
        "click (or tap) it for the worked calculation below (double-click clears the chart's selection)."
    )

    layout.notice(notices.scores_notice(t, h))
    worked.show(t, h, cell)
