"""A training run's charts: its loss and accuracy against the step (with the step where the loss fell), and each
head's weight on its target over the run; their text alternative from the numbers (ui/charts/line_charts.py)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import pyarrow as pa
import streamlit as st

from ui.charts import colours as co
from ui.charts import spec as sp
from ui.charts.line_charts import LAPTOP_WIDTH, describe

EARLY = 0.25  # a loss drop in this first share of the run is labelled right of its rule, not left


@lru_cache(maxsize=8)
def curves_template(present: bool) -> dict:
    """Loss (left axis) and accuracy (right axis) against the training step, a dotted rule at one step."""
    size = sp.font(present)
    x = {
        "field": "step",
        "type": "quantitative",
        "title": "training step",
        "axis": {"labelFontSize": size, "titleFontSize": size},
    }
    axis = {"labelFontSize": size, "titleFontSize": size}
    return {
        "height": 260 if present else 220,
        "title": {**sp.title(present), "text": "loss and accuracy by training step"},
        "layer": [
            {
                "data": {"name": "run"},
                "mark": {"type": "line", "color": co.ORANGE, "strokeWidth": 2},
                "encoding": {
                    "x": x,
                    "y": {
                        "field": "loss",
                        "type": "quantitative",
                        "title": "loss (cross-entropy)",
                        "axis": {**axis, "titleColor": co.ORANGE},
                    },
                    "tooltip": [
                        {"field": "step", "type": "quantitative"},
                        {"field": "loss", "type": "quantitative", "format": ".3f"},
                    ],
                },
            },
            {
                "data": {"name": "run"},
                "mark": {"type": "line", "color": co.BLUE, "strokeWidth": 2},
                "encoding": {
                    "x": x,
                    "y": {
                        "field": "accuracy",
                        "type": "quantitative",
                        "title": "accuracy",
                        "scale": {"domain": [0, 1]},
                        "axis": {**axis, "format": ".0%", "orient": "right", "titleColor": co.BLUE},
                    },
                    "tooltip": [
                        {"field": "step", "type": "quantitative"},
                        {"field": "accuracy", "type": "quantitative", "format": ".1%"},
                    ],
                },
            },
            {
                "data": {"name": "rule"},
                "mark": {"type": "rule", "color": co.RULE, "strokeDash": [2, 3], "strokeWidth": 2, "aria": False},
                "encoding": {"x": {"field": "step", "type": "quantitative"}},
            },
            {
                "data": {"name": "drop"},
                "mark": {"type": "rule", "color": co.DROP_RULE, "strokeDash": [6, 3], "strokeWidth": 2, "aria": False},
                "encoding": {"x": {"field": "step", "type": "quantitative"}},
            },
            # Below the plateau, left of the rule: the one corner the loss and accuracy lines stay out of; a drop
            # early in the run has no room there (its label would run over the loss axis): right of the rule.
            *(
                {
                    "data": {"name": "drop"},
                    "transform": [{"filter": test}],
                    "mark": {
                        "type": "text",
                        "color": co.DROP_RULE,
                        "align": align,
                        "dx": dx,
                        "baseline": "bottom",
                        "y": {"expr": "height - 2"},
                        "fontSize": size - 1,
                        "fontWeight": "bold",
                    },
                    "encoding": {"x": {"field": "step", "type": "quantitative"}, "text": {"field": "label"}},
                }
                for test, align, dx in (("!datum.early", "right", -5), ("datum.early", "left", 5))
            ),
        ],
        "resolve": {"scale": {"y": "independent"}},
    }


def curves(
    losses: Sequence[float],
    accuracies: Sequence[float],
    *,
    at_step: int | None = None,
    drop=None,
    present: bool = False,
    box=st,
) -> None:
    """The training run so far: per-step batch loss and accuracy (steps count from 1); a dotted rule
    at at_step, a dashed one at the loss's steepest fall `drop` (an engine.loss_curve.Fall: between its two
    stretches)."""
    n = len(losses)
    data = pa.table(
        {
            "step": pa.array(np.arange(1, n + 1, dtype=np.int32)),
            "loss": pa.array(np.asarray(losses, dtype=np.float32)),
            "accuracy": pa.array(np.asarray(accuracies, dtype=np.float32)),
        }
    )
    rule = pa.table({"step": pa.array([] if at_step is None else [int(at_step)], pa.int32())})
    marks = pa.table(
        {
            "step": pa.array([] if drop is None else [int(drop.step)], pa.int32()),
            "label": pa.array([] if drop is None else [f"steepest fall, {drop.window}-step means"], pa.string()),
            "early": pa.array([] if drop is None else [drop.step < EARLY * n], pa.bool_()),
        }
    )
    steps = np.arange(1, n + 1)
    about = describe(
        [("loss", steps, losses), ("accuracy", steps, accuracies)],
        "training step",
        "Training loss and accuracy"
        + (f"; dotted line at step {at_step}" if at_step else "")
        + (
            f"; dashed line at step {drop.step}, between the two neighbouring {drop.window}-step "
            f"stretches whose mean losses differ most (steps {drop.first}–{drop.step} and "
            f"{drop.step + 1}–{drop.last})"
            if drop
            else ""
        ),
    )
    box.vega_lite_chart(
        spec={**curves_template(present), "description": about, "datasets": {"run": data, "rule": rule, "drop": marks}},
        width="stretch",
    )


LEGEND_LEFT = 80  # px from a line chart's left edge to its plot (and its top legend): the y axis and its title
LEGEND_SYMBOL = 30  # px a legend entry takes besides its label: the symbol, its gap, the gap to the next column


def history_legend(names: Sequence[str], width: float, present: bool) -> dict:
    """The top legend of history(): two columns where two of the longest label fit beside the plot, else one,
    its labels at the chart's font or a smaller one (down to LABEL_FONT_MIN), so that it never runs past the
    chart's `width` px (a phone: 8 heads' 'layer 0 head 0: on the previous token' in two columns ran ~170 px
    past the screen's edge)."""
    room = width - LEGEND_LEFT
    longest = max((len(name) for name in names), default=1)
    size = sp.font(present)
    columns = 2 if 2 * (sp.text_px(longest, size, 10_000) + LEGEND_SYMBOL) <= room else 1
    while size > sp.LABEL_FONT_MIN and sp.text_px(longest, size, 10_000) + LEGEND_SYMBOL > room / columns:
        size -= 1
    return {
        "title": None,
        "orient": "top",
        "labelFontSize": size,
        "columns": columns,
        "labelLimit": int(max(40, min(320, room / columns - LEGEND_SYMBOL))),
    }


def history(
    steps: Sequence[int],
    series: Sequence[tuple[str, Sequence[float], bool]],
    *,
    at_step: int | None,
    y_title: str,
    present: bool = False,
    width: float | None = None,
) -> None:
    """Lines over the training steps, one per (name, values, dashed) series, a dotted rule at at_step, in a
    chart `width` px wide (None: the page's main column)."""
    if width is None:
        from ui.shell.view import current

        shown = current()
        width = shown.width if shown is not None else LAPTOP_WIDTH
    size = sp.font(present)
    names = [name for name, _, _ in series]
    table = pa.table(
        {
            "step": pa.array([int(s) for _ in series for s in steps], pa.int32()),
            "series": pa.array([name for name, values, _ in series for _ in values], pa.string()),
            "dashed": pa.array([dashed for _, values, dashed in series for _ in values], pa.bool_()),
            "value": pa.array([float(v) for _, values, _ in series for v in values], pa.float64()),
        }
    )
    x = {
        "field": "step",
        "type": "quantitative",
        "title": "training step",
        "axis": {"labelFontSize": size, "titleFontSize": size},
    }
    spec = {
        "height": 260 if present else 220,
        "autosize": {"type": "fit-x", "contains": "padding"},  # keep the height
        "title": {**sp.title(present), "text": f"{y_title}, by training step"},
        "layer": [
            {
                "data": {"name": "lines"},
                "mark": {"type": "line", "strokeWidth": 2.5, "point": True},
                "encoding": {
                    "x": x,
                    "y": {
                        "field": "value",
                        "type": "quantitative",
                        "title": y_title,
                        "scale": {"domain": [0, 1]},
                        "axis": {"format": ".0%", "labelFontSize": size, "titleFontSize": size},
                    },
                    "color": {
                        "field": "series",
                        "type": "nominal",
                        "scale": {"domain": names, "range": [co.SERIES[i % len(co.SERIES)] for i in range(len(names))]},
                        "legend": history_legend(names, width, present),
                    },
                    "strokeDash": {"condition": {"test": "datum.dashed", "value": [6, 3]}, "value": [1, 0]},
                    "tooltip": [
                        {"field": "series", "type": "nominal"},
                        {"field": "step", "type": "quantitative"},
                        {"field": "value", "type": "quantitative", "format": ".1%"},
                    ],
                },
            },
            {
                "data": {"name": "rule"},
                "mark": {"type": "rule", "color": co.RULE, "strokeDash": [2, 3], "strokeWidth": 2, "aria": False},
                "encoding": {"x": {"field": "step", "type": "quantitative"}},
            },
        ],
        "description": describe(
            [(name, steps, values) for name, values, _ in series],
            "training step",
            y_title + (f"; dotted line at step {at_step}" if at_step is not None else ""),
        ),
        "datasets": {
            "lines": table,
            "rule": pa.table({"step": pa.array([] if at_step is None else [int(at_step)], pa.int32())}),
        },
    }
    st.vega_lite_chart(spec=spec, width="stretch")
