"""Bar charts: one row of numbers (a query's weights, a poll's answers), in token order, values printed;
their text alternative from the numbers."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import pyarrow as pa
import streamlit as st

from ui.charts import colours as co
from ui.charts import spec as sp
from ui.charts.describe import number as describe_num

BAR_VALUES_MAX = 24  # bar charts print each value up to this many bars (thinner bars: the tooltip has it)


@lru_cache(maxsize=128)
def bars_template(n: int, present: bool, fmt: str) -> sp.Template:
    """A bar chart with n bars, in token order, as wide as its column and as tall as its bars need."""
    size = sp.font(present)
    layers = [
        {
            "mark": {"type": "bar"},
            "encoding": {"color": {"condition": {"test": "datum.top", "value": co.BAR_TOP}, "value": co.BAR_REST}},
        }
    ]
    if n <= BAR_VALUES_MAX:
        layers.append(
            {
                "mark": {"type": "text", "align": "left", "dx": 4, "fontSize": size - 1, "color": co.VALUE_TEXT},
                "encoding": {"text": {"field": "value", "type": "quantitative", "format": fmt}},
            }
        )
    spec = {
        "data": {"name": "bars"},
        "height": max(120, min(30 * n, 720)),
        "autosize": {"type": "fit-x", "contains": "padding"},  # fit the width, keep the height
        "title": sp.title(present, offset=None),
        "encoding": {
            "y": {
                "field": "token",
                "type": "nominal",
                "sort": [],
                "title": None,
                "axis": {"labelFontSize": size, "labelFlush": False},
            },  # each label on its own bar
            "x": {
                "field": "value",
                "type": "quantitative",
                "title": None,
                "axis": {"labelFontSize": size - 2, **({"tickMinStep": 1, "format": "d"} if fmt == "d" else {})},
            },  # counts: whole ticks
            "tooltip": [
                {"field": "token", "type": "nominal"},
                {"field": "value", "type": "quantitative", "format": "d" if fmt == "d" else ".6f"},
            ],
        },
        "layer": layers,
    }
    return sp.Template(spec=spec, slots={"title": (("title", "text"),), "labels": (("encoding", "y", "sort"),)})


def bars(
    values: Sequence[float],
    labels: Sequence[str],
    *,
    title: str,
    highlight=None,
    present: bool = False,
    fmt: str = ".3f",
) -> None:
    """Horizontal bars of one row (e.g. a query's weights), in token order, values printed; highlight:
    the index of a bar to colour, or several (tied keys, every right answer)."""
    labels = [str(x) for x in labels]
    highlight = {highlight} if isinstance(highlight, (int, np.integer)) else set(highlight or ())
    data = pa.table(
        {
            "token": pa.array(labels, pa.string()),
            "value": pa.array(np.asarray(values, dtype=np.float64)),
            "top": pa.array([i in highlight for i in range(len(labels))], pa.bool_()),
        }
    )
    spec = bars_template(len(labels), present, fmt).fill(title=title, labels=labels)
    spec["datasets"] = {"bars": data}
    spec["description"] = describe(values, labels, title)
    st.vega_lite_chart(spec=spec, width="stretch")


def describe(values: Sequence[float], labels: Sequence[str], title: str = "") -> str:
    """A bar chart: how many bars, the largest and the smallest and where."""
    values = np.asarray(values, dtype=np.float64)
    head = f"{title}. " if title else ""
    if values.size == 0:
        return f"{head}Bar chart with no bars."
    hi, lo = int(np.nanargmax(values)), int(np.nanargmin(values))
    return (
        f"{head}Bar chart of {values.size} values: largest {describe_num(values[hi])} at {str(labels[hi])!r}, "
        f"smallest {describe_num(values[lo])} at {str(labels[lo])!r}."
    )
