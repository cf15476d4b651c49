"""The per-head page's lesson facts ({heads.…} in a lesson's text), registered with @fact: each computed from
the numbers the page draws, by the page's own functions, and printed as the page prints it. Pure Python."""

from __future__ import annotations

import numpy as np

from engine import analysis
from ui.lessons.registry import NoFact, fact, shape, trace_of
from ui.prose.numbers import fmt, names


@fact("heads.count", "how many heads")
def _heads_count(view, numbers) -> str:
    return str(view.config.num_heads)


@fact("heads.head_shape", "one head's output, T × d_head")
def _headshape(view, numbers) -> str:
    return shape(len(view.words), view.config.d_head)


@fact("heads.concat_shape", "the heads concatenated, T × d_model")
def _concatshape(view, numbers) -> str:
    return shape(*trace_of(view, numbers).concat.shape)


@fact("heads.w_o_shape", "W_O's shape")
def _w_oshape(view, numbers) -> str:
    if not view.config.output_projection:
        raise NoFact("this preset has no output projection W_O (Day 33): use the Part 4 preset")
    return shape(view.config.d_model, view.config.d_model)


@fact(
    "heads.spreads",
    "each head's mean row spread ('head 0 0.97 and head 1 0.92'; with several layers, 'layer 1 head 0 0.97 and …')",
)
def _spreads(view, numbers) -> str:
    t = trace_of(view, numbers)
    per_row = analysis.spread(t.weights, t.visible)  # (H, T); NaN where a row sees one key
    layer = f"layer {view.layer} " if view.config.n_layers > 1 else ""  # the layer the page shows, if there is a choice
    return names([f"{layer}head {h} {fmt(np.nanmean(per_row[h]), '.2f')}" for h in range(view.config.num_heads)])
