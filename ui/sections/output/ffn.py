"""The Block output page's parts: the stages table, the residual, the feed-forward layer, the output."""

from __future__ import annotations

import pandas as pd

from ui import charts, compute
from ui.page import footer, layout, tables
from ui.prose import stages
from ui.sections.output import words as output_words
from ui.shell.view import View


def draw(view: View) -> None:
    """Everything under the header."""
    t = compute.trace(view.model, view.words, view.layer)
    cfg, present = view.config, view.present
    T, C, F = t.T, cfg.d_model, cfg.d_ff
    dims, hidden = t.dims, [str(c) for c in range(F)]

    tables.table(pd.DataFrame(stages.stages(t)))
    domain = charts.symmetric_domain(t.x_in, t.attn, t.after_attn, t.output)
    cols, area = layout.two_maps(view, C)  # wider maps get the full width each
    with cols[0]:
        charts.heatmap(
            t.after_attn,
            t.labels,
            dims,
            title=(f"{stages.block_input(cfg, view.layer)} + attn" if cfg.residual else "attn (no residual)")
            + f": {T} × {C}",
            x_title="column",
            y_title="token",
            domain=domain,
            key="out_after",
            present=present,
            width=cols[0].width,
            area=area,
        )
    with cols[1]:
        charts.heatmap(
            t.output,
            t.labels,
            dims,
            title=f"output{stages.where(cfg, view.layer)}: {T} × {C}",
            x_title="column",
            y_title="token",
            domain=domain,
            key="out_output",
            present=present,
            width=cols[1].width,
            area=area,
        )
    charts.heatmap(
        t.ffn_hidden,
        t.labels,
        hidden,
        title=f"FFN hidden after ReLU: {T} × {F} (grey = exactly 0)",
        x_title="hidden unit",
        y_title="token",
        mask=t.ffn_pre > 0,
        key="out_hidden",
        present=present,
        width=view.width,
        area=600,
        mask_word="0",
        why="ReLU: the value before it was ≤ 0",
        legend="activation",
    )

    layout.notice(output_words.output_notice(t))
    footer.exports(
        "output",
        t,
        {
            "after_attn": (t.after_attn, t.labels, dims),
            "ffn_hidden": (t.ffn_hidden, t.labels, hidden),
            "output": (t.output, t.labels, dims),
        },
        code=("block_forward",),
    )
