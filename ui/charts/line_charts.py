"""Line charts: measured points beside the theory, a run's loss and accuracy, each head's weight over a run,
loss and accuracy by position; their text alternative from the numbers."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import streamlit as st

if TYPE_CHECKING:
    import pandas as pd

from ui.charts import colours as co
from ui.charts import spec as sp
from ui.charts.describe import number as describe_num

LAPTOP_WIDTH = 790  # px of a laptop's main column: a chart's width when no page is running


@lru_cache(maxsize=32)
def lines_template(
    x: str,
    y: str,
    series: tuple[tuple[str, str], ...],
    reference: str,
    x_title: str,
    y_title: str,
    x_values: tuple,
    log_base: int,
    y_log: bool,
    fmt: str,
    present: bool,
) -> dict:
    """Measured points joined by lines, dashed reference rows, a dotted rule: built once per shape."""
    size = sp.font(present)
    encoding = {
        "x": {
            "field": x,
            "type": "quantitative",
            "title": x_title,
            "scale": {"type": "log", "base": log_base},
            "axis": {
                "values": list(x_values),
                "labelFontSize": size,
                "titleFontSize": size,
                "format": fmt,
                "grid": False,
            },
        },
        "y": {
            "field": y,
            "type": "quantitative",
            "title": y_title,
            "scale": {"type": "log"} if y_log else {"domain": [0, 1]},
            "axis": {"labelFontSize": size, "titleFontSize": size},
        },
        "color": {
            "field": "series",
            "type": "nominal",
            "scale": {"domain": [n for n, _ in series], "range": [c for _, c in series]},
            "legend": {
                "title": None,
                "orient": "top",
                "labelFontSize": size,
                "symbolStrokeWidth": 3,
                "labelLimit": 260,
            },
        },
        "tooltip": [
            {"field": "series", "type": "nominal"},
            {"field": x, "type": "quantitative", "title": x_title},
            {"field": y, "type": "quantitative", "title": y_title, "format": ".4f"},
        ],
    }
    measured = [{"filter": f"!({reference})"}]
    spec = {
        "height": 340 if present else 300,
        "layer": [
            {
                "data": {"name": "points"},
                "encoding": encoding,
                "transform": measured,
                "mark": {"type": "line", "strokeWidth": 2.5},
            },
            {
                "data": {"name": "points"},
                "encoding": encoding,
                "transform": measured,
                "mark": {"type": "point", "filled": True, "size": 70},
            },
            {
                "data": {"name": "points"},
                "encoding": encoding,
                "transform": [{"filter": reference}],
                "mark": {"type": "line", "strokeDash": [6, 4], "strokeWidth": 2},
            },
            {
                "data": {"name": "rule"},
                "encoding": {"x": {"field": x, "type": "quantitative"}},
                "mark": {"type": "rule", "color": co.RULE, "strokeDash": [2, 3], "strokeWidth": 2, "aria": False},
            },
        ],
    }
    return spec


def lines(
    table: pd.DataFrame,
    x: str,
    y: str,
    *,
    series: Sequence[tuple[str, str]],
    reference: str,
    x_title: str,
    y_title: str,
    x_values: Sequence,
    log_base: int,
    y_log: bool,
    pick: float,
    fmt: str,
    present: bool = False,
) -> None:
    """Measured points joined by lines, dashed reference rows (a Vega test), a dotted rule at x = pick.

    series: (name, colour) pairs in legend order; the spec is built once per shape, the data per call.
    """
    template = lines_template(
        x, y, tuple(series), reference, x_title, y_title, tuple(x_values), log_base, y_log, fmt, present
    )
    spec = {
        **template,
        "datasets": {
            "points": pa.Table.from_pandas(table, preserve_index=False),
            "rule": pa.table({x: pa.array([float(pick)])}),
        },
    }
    lines_of = [(name, rows[x].to_numpy(), rows[y].to_numpy()) for name, rows in table.groupby("series", sort=False)]
    spec["description"] = describe(lines_of, x_title, f"{y_title} against {x_title}; dotted line at {pick:g}")
    st.vega_lite_chart(spec=spec, width="stretch")


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


def by_position(
    loss: Sequence[float], accuracy: Sequence[float], scored: Sequence[bool], *, title: str, present: bool = False
) -> None:
    """Mean loss (left axis) and accuracy (right axis) at each position (from 0) over many sequences;
    positions the task never scores are left out (a gap in both lines)."""
    size = sp.font(present)
    keep = np.asarray(scored, dtype=bool)
    data = pa.table(
        {
            "position": pa.array(np.flatnonzero(keep).astype(np.int32)),
            "loss": pa.array(np.asarray(loss, dtype=np.float64)[keep]),
            "accuracy": pa.array(np.asarray(accuracy, dtype=np.float64)[keep]),
        }
    )
    axis = {"labelFontSize": size, "titleFontSize": size}
    x = {
        "field": "position",
        "type": "quantitative",
        "title": "position i (from 0)",
        "axis": {**axis, "tickMinStep": 1},
    }
    spec = {
        "height": 260 if present else 220,
        "title": {"text": title, "fontSize": size},
        "layer": [
            {
                "data": {"name": "pos"},
                "mark": {"type": "line", "color": co.ORANGE, "strokeWidth": 2, "point": True},
                "encoding": {
                    "x": x,
                    "y": {
                        "field": "loss",
                        "type": "quantitative",
                        "title": "mean loss",
                        "axis": {**axis, "titleColor": co.ORANGE},
                    },
                    "tooltip": [
                        {"field": "position", "type": "quantitative"},
                        {"field": "loss", "type": "quantitative", "format": ".3f"},
                    ],
                },
            },
            {
                "data": {"name": "pos"},
                "mark": {"type": "line", "color": co.BLUE, "strokeWidth": 2, "point": True},
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
                        {"field": "position", "type": "quantitative"},
                        {"field": "accuracy", "type": "quantitative", "format": ".1%"},
                    ],
                },
            },
        ],
        "resolve": {"scale": {"y": "independent"}},
        "datasets": {"pos": data},
        "description": describe(
            [
                ("mean loss", np.flatnonzero(keep), np.asarray(loss)[keep]),
                ("accuracy", np.flatnonzero(keep), np.asarray(accuracy)[keep]),
            ],
            "position i (from 0)",
            title,
        ),
    }
    st.vega_lite_chart(spec=spec, width="stretch")


def describe(named: Sequence[tuple[str, Sequence[float], Sequence[float]]], x_title: str, title: str = "") -> str:
    """A line chart: for each (name, xs, ys) line, its points, start and end, largest and smallest and where."""
    parts = []
    for name, xs, ys in named:
        xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
        ok = np.isfinite(ys)
        if not ok.any():
            parts.append(f"{name}: no points")
            continue
        xs, ys = xs[ok], ys[ok]
        hi, lo = int(np.argmax(ys)), int(np.argmin(ys))
        parts.append(
            f"{name}: {ys.size} point{'s' * (ys.size != 1)} from {describe_num(ys[0])} at {x_title} "
            f"{describe_num(xs[0])} to {describe_num(ys[-1])} at {describe_num(xs[-1])}, largest {describe_num(ys[hi])} at "
            f"{describe_num(xs[hi])}, smallest {describe_num(ys[lo])} at {describe_num(xs[lo])}"
        )
    head = f"{title}. " if title else ""
    return f"{head}Line chart against {x_title}: " + "; ".join(parts) + "."
