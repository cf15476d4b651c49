"""Line charts: measured points beside the theory, loss and accuracy by position; the text alternative of
every line chart from its numbers (a run's own charts: ui/charts/run_charts.py)."""

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
            f"{describe_num(xs[0])} to {describe_num(ys[-1])} at {describe_num(xs[-1])}, "
            f"largest {describe_num(ys[hi])} at {describe_num(xs[hi])}, "
            f"smallest {describe_num(ys[lo])} at {describe_num(xs[lo])}"
        )
    head = f"{title}. " if title else ""
    return f"{head}Line chart against {x_title}: " + "; ".join(parts) + "."
