"""A class experiment's charts (issue 52), for the presenter: every run's loss curve (thin, one colour per value of
the varied setting, Okabe-Ito) under the median curve (dashed grey: legible on light and dark), the histogram of
the steps at which the task's head formed, and each run's final accuracy; each with its text alternative from the
numbers. The curves come thinned (services/classview.py), so 300 runs stay light."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import streamlit as st

from ui.charts import colours as co
from ui.charts import spec as sp
from ui.charts.describe import number
from ui.charts.line_charts import describe


def _axis(present: bool) -> dict:
    size = sp.font(present)
    return {"labelFontSize": size, "titleFontSize": size}


def _varied(shown) -> list[str]:
    """The varied setting's values, one group of runs each; [] when nothing varies (the one group is named "")."""
    groups = [g.group for g in shown.groups]
    return [] if groups == [""] else groups


def _by_value(groups: list[str], setting: str) -> list[dict]:
    """A tooltip's line naming the run's value of the varied setting, where one varies."""
    return [{"field": "group", "type": "nominal", "title": setting}] if groups else []


def _colour(groups: list[str], setting: str) -> dict:
    """One colour per value of the varied setting (one scale for the whole figure); blue when nothing varies."""
    if not groups:
        return {"value": co.BLUE}
    return {
        "field": "group",
        "type": "nominal",
        "title": setting,
        "scale": {"domain": groups, "range": list(co.SERIES[: len(groups)])},
    }


def curves(shown, setting: str, present: bool = False, box=st) -> None:
    """Every run's loss against the step, thin and translucent, and the hall's median curve on top."""
    groups = _varied(shown)
    rows = {"k": [], "group": [], "step": [], "loss": []}
    for k, group, steps, loss in shown.curves:
        rows["k"] += [k] * len(steps)
        rows["group"] += [group] * len(steps)
        rows["step"] += steps.tolist()
        rows["loss"] += loss.tolist()
    data = pa.table(
        {
            "k": pa.array(rows["k"], pa.int32()),
            "group": pa.array(rows["group"], pa.string()),
            "step": pa.array(rows["step"], pa.int32()),
            "loss": pa.array(np.asarray(rows["loss"], dtype=np.float32)),
        }
    )
    middle = pa.table(
        {
            "group": pa.array([g for g, steps, _ in shown.medians for _ in steps], pa.string()),
            "step": pa.array(np.concatenate([steps for _, steps, _ in shown.medians]), pa.int32()),
            "loss": pa.array(np.concatenate([m for _, _, m in shown.medians]).astype(np.float32)),
        }
    )
    x = {"field": "step", "type": "quantitative", "title": "training step", "axis": _axis(present)}
    y = {"field": "loss", "type": "quantitative", "title": "loss (cross-entropy)", "axis": _axis(present)}
    about = (
        f"The loss curves of {len(shown.curves)} runs, one thin line each"
        + (
            ", and their median as a thick dashed grey line. "
            if not groups
            else f", coloured by {setting} ({', '.join(groups)}), and each value's median as a thick dashed line. "
        )
        + describe(
            [(f"median loss{f' ({setting} {g})' if g else ''}", steps, m) for g, steps, m in shown.medians],
            "training step",
        )
    )
    spec = {
        "height": 300 if present else 240,
        "title": {**sp.title(present), "text": ["every run's loss,", "and the median"]},
        "description": about,
        "layer": [
            {
                "data": {"name": "runs"},
                "mark": {"type": "line", "strokeWidth": 1, "opacity": 0.35},
                "encoding": {
                    "x": x,
                    "y": y,
                    "detail": {"field": "k", "type": "nominal"},
                    "color": _colour(groups, setting),
                    "tooltip": [
                        {"field": "k", "type": "quantitative", "title": "run"},
                        {"field": "step", "type": "quantitative"},
                        {"field": "loss", "type": "quantitative", "format": ".3f"},
                    ],
                },
            },
            {
                "data": {"name": "median"},
                "mark": {"type": "line", "strokeWidth": 3, "strokeDash": [8, 3], "color": co.VALUE_TEXT},
                "encoding": {
                    "x": x,
                    "y": y,
                    "detail": {"field": "group", "type": "nominal"},
                    **({"color": _colour(groups, setting)} if groups else {}),
                    "tooltip": [
                        *_by_value(groups, setting),
                        {"field": "step", "type": "quantitative"},
                        {"field": "loss", "type": "quantitative", "format": ".3f", "title": "median loss"},
                    ],
                },
            },
        ],
    }
    box.vega_lite_chart(spec={**spec, "datasets": {"runs": data, "median": middle}}, width="stretch")


def formed(shown, setting: str = "", present: bool = False, box=st) -> None:
    """How many runs formed their head in each stretch of steps, stacked by the varied setting's value."""
    by_group, edges = shown.histogram  # (G, bins), (bins + 1,)
    if not by_group.shape[1]:
        return
    names, groups = [g.group for g in shown.groups], _varied(shown)
    counts = by_group.sum(axis=0)  # (bins,)
    data = pa.table(
        {
            "group": pa.array([g for g in names for _ in counts], pa.string()),
            "from": pa.array(np.tile(edges[:-1], len(names)), pa.float64()),
            "to": pa.array(np.tile(edges[1:], len(names)), pa.float64()),
            "runs": pa.array(by_group.ravel(), pa.int32()),
        }
    )
    busiest = int(np.argmax(counts))
    about = (
        f"Histogram of the step at which {int(counts.sum())} runs formed their head, in {len(counts)} stretches "
        f"from step {number(edges[0])} to {number(edges[-1])}; the most, {int(counts[busiest])}, between steps "
        f"{number(edges[busiest])} and {number(edges[busiest + 1])}"
        + (
            "."
            if not groups
            else ". By "
            + setting
            + ": "
            + "; ".join(f"{g}: {int(row.sum())} runs" for g, row in zip(groups, by_group, strict=True))
            + "."
        )
    )
    spec = {
        "height": 200 if present else 160,
        "title": {**sp.title(present), "text": ["the step at which", "each run's head formed"]},
        "description": about,
        "data": {"name": "bins"},
        "mark": {"type": "bar", "color": co.BAR_REST},
        **({"transform": [{"filter": "datum.runs > 0"}]} if groups else {}),
        "encoding": {
            "x": {"field": "from", "type": "quantitative", "bin": {"binned": True}, "title": "training step"}
            | {"axis": _axis(present)},
            "x2": {"field": "to"},
            "y": {
                "field": "runs",
                "type": "quantitative",
                "title": "runs",
                "axis": {**_axis(present), "tickMinStep": 1},
            },
            **({"color": _colour(groups, setting)} if groups else {}),
            "tooltip": [
                *_by_value(groups, setting),
                {"field": "from", "type": "quantitative", "format": ",.0f", "title": "from step"},
                {"field": "to", "type": "quantitative", "format": ",.0f", "title": "to step"},
                {"field": "runs", "type": "quantitative"},
            ],
        },
    }
    box.vega_lite_chart(spec={**spec, "datasets": {"bins": data}}, width="stretch")


def accuracy(shown, setting: str, present: bool = False, box=st) -> None:
    """Each run's final accuracy, a tick per run (by the varied setting's value when one varies)."""
    groups = _varied(shown)
    data = pa.table(
        {
            "k": pa.array([r.k for r in shown.runs], pa.int32()),
            "group": pa.array([r.group or "all runs" for r in shown.runs], pa.string()),
            "accuracy": pa.array([r.accuracy for r in shown.runs], pa.float64()),
        }
    )
    about = "Final accuracy of each run: " + "; ".join(
        f"{g.group or 'all runs'}: {g.runs} runs, median {number(g.accuracy)}" for g in shown.groups
    )
    spec = {
        "height": {"step": 36 if present else 28},
        "title": {**sp.title(present), "text": "each run's final accuracy"},
        "description": about + ".",
        "data": {"name": "runs"},
        "mark": {"type": "tick", "thickness": 2},
        "encoding": {
            "x": {
                "field": "accuracy",
                "type": "quantitative",
                "title": "accuracy on fresh sequences",
                "scale": {"domain": [0, 1]},
                "axis": {**_axis(present), "format": ".0%"},
            },
            "y": {"field": "group", "type": "nominal", "title": setting or None, "axis": _axis(present)},
            "color": _colour(groups, setting),
            "tooltip": [
                {"field": "k", "type": "quantitative", "title": "run"},
                {"field": "accuracy", "type": "quantitative", "format": ".1%"},
            ],
        },
    }
    box.vega_lite_chart(spec={**spec, "datasets": {"runs": data}}, width="stretch")
