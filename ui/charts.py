"""Altair charts for the pages: heatmaps with token labels, bars and lines.

A chart's Vega-Lite spec depends only on small things (shape, labels, colour domain, sizes), so it
is built once per combination (lru_cache) and the numbers travel separately as a compact table:
the expensive Altair work is not repeated on every rerun.
"""
from __future__ import annotations

import copy
from functools import lru_cache
from typing import Sequence

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

SIGNED = "blueorange"     # colour-blind-safe diverging scheme, centred on 0
WEIGHTS = "viridis"       # colour-blind-safe sequential scheme, readable in light and dark themes
MASK_FILL = "#9ca3af"
PICK_STROKE = "#e11d48"
HIGHLIGHT_STROKE = "#d946ef"   # outlines one whole row and column, e.g. a newly appended token
MAX_LABELLED = 12         # print values inside cells up to this many rows and columns


def symmetric_domain(*matrices: np.ndarray) -> tuple[float, float]:
    """One colour domain [-m, m] shared by every matrix of a comparison."""
    top = max(float(np.max(np.abs(np.nan_to_num(m, nan=0.0, posinf=0.0, neginf=0.0)))) for m in matrices)
    top = top if top > 0 else 1.0
    return (-top, top)


def weight_domain(*matrices: np.ndarray) -> tuple[float, float]:
    """One colour domain [0, largest weight] shared by every weight map of a comparison."""
    top = max(float(np.max(m)) for m in matrices)
    return (0.0, top if top > 0 else 1.0)


def _sizes(rows: int, cols: int, present: bool, max_width: int) -> tuple[float, float, float]:
    """Square cells that fit max_width (the cells' area, without axes and legend) and ~520 px of height."""
    budget = max_width * (1.35 if present else 1.0)               # presenter view: no sidebar, more room
    cell = float(np.clip(budget / max(cols, 1), 3, 64 if present else 52))
    cell = float(max(3, min(cell, 520 / max(rows, 1))))
    return cell, cell * cols, cell * rows


@lru_cache(maxsize=512)
def _heatmap_spec(rows: tuple[str, ...], cols: tuple[str, ...], title: str, x_title: str, y_title: str,
                  scheme: str, domain: tuple[float, float], labelled: bool, fmt: str, present: bool,
                  max_width: int, selectable: bool, has_mask: bool, mask_word: str,
                  has_highlight: bool = False) -> dict:
    cell, width, height = _sizes(len(rows), len(cols), present, max_width)
    font = 17 if present else 13
    text_size = int(np.clip(cell * 0.3, 9, 20 if present else 14))
    x = alt.X("col:N", sort=list(cols), title=x_title,
              axis=alt.Axis(labelAngle=-40 if len(cols) > 6 or max(map(len, cols)) > 4 else 0,
                            labelLimit=140, labelFontSize=font, titleFontSize=font, orient="top"))
    y = alt.Y("row:N", sort=list(rows), title=y_title,
              axis=alt.Axis(labelLimit=140, labelFontSize=font, titleFontSize=font))
    tooltip = [alt.Tooltip("row:N", title=y_title or "row"), alt.Tooltip("col:N", title=x_title or "column"),
               alt.Tooltip("value:Q", title="value", format=".5~g")]
    scale = alt.Scale(scheme=scheme, domain=list(domain), **({"domainMid": 0} if scheme == SIGNED else {}))
    if scheme == SIGNED:                                          # the ends of blueorange are dark
        dark_test = f"abs(datum.value) > {0.55 * max(abs(domain[0]), abs(domain[1]))!r}"
    else:                                                         # viridis is dark at the low end
        dark_test = f"datum.value < {domain[0] + 0.62 * (domain[1] - domain[0])!r}"
    base = alt.Chart().encode(x=x, y=y)
    rect = base.mark_rect(stroke="#ffffff22", strokeWidth=0.5).encode(
        color=alt.Color("value:Q", scale=scale,
                        legend=alt.Legend(title=None, labelFontSize=font - 2, gradientLength=max(120, min(height, 320)))),
        tooltip=tooltip,
    ).transform_filter("isValid(datum.value)")
    if selectable:
        rect = rect.add_params(alt.selection_point(name="cell", fields=["r", "c"], on="click", clear="dblclick"))
    layers = [rect]
    if has_mask:
        layers.append(base.mark_rect(color=MASK_FILL).encode(
            tooltip=[alt.Tooltip("row:N", title=y_title or "row"), alt.Tooltip("col:N", title=x_title or "column"),
                     alt.Tooltip("why:N", title=mask_word)],
        ).transform_filter("!isValid(datum.value)"))
    if labelled:
        layers.append(base.mark_text(fontSize=text_size).encode(
            text=alt.Text("value:Q", format=fmt),
            color=alt.condition(dark_test, alt.value("#ffffff"), alt.value("#111111")),
            tooltip=tooltip,
        ).transform_filter("isValid(datum.value)"))
        if has_mask:
            layers.append(base.mark_text(fontSize=text_size, color="#111827").encode(
                text=alt.value(mask_word if cell >= 44 else "×"),
            ).transform_filter("!isValid(datum.value)"))
    if has_highlight:
        layers.append(base.mark_rect(fill=None, stroke=HIGHLIGHT_STROKE, strokeWidth=2.5)
                      .transform_filter("datum.hl"))
    layers.append(base.mark_rect(fill=None, stroke=PICK_STROKE, strokeWidth=3.5).transform_filter("datum.pick"))
    chart = alt.layer(*layers).properties(
        width=width, height=height,
        title=alt.Title(title, fontSize=font + 2, anchor="start", offset=10) if title else "",
    )
    spec = chart.to_dict(validate=False)
    spec["autosize"] = {"type": "pad"}                            # width/height are the cells' area, axes added
    spec.pop("datasets", None)
    for layer in spec.get("layer", []):
        layer["data"] = {"name": "cells"}                         # every layer reads the table passed per run
    return spec


def heatmap_table(matrix: np.ndarray, rows: Sequence[str], cols: Sequence[str], scheme: str,
                  domain: tuple[float, float], mask: np.ndarray | None = None,
                  pick: tuple[int, int] | None = None, why: str = "",
                  highlight: int | None = None) -> pd.DataFrame:
    """Long-form cells: labels as categories, indices as int16, values as float32."""
    R, C = matrix.shape
    values = np.asarray(matrix, dtype=np.float64)
    if mask is not None:
        values = np.where(mask, values, np.nan)                   # hidden cells: drawn grey, not coloured
    flat = values.ravel()
    r_idx = np.repeat(np.arange(R), C)
    c_idx = np.tile(np.arange(C), R)
    data = {
        "row": pd.Categorical.from_codes(r_idx, categories=[str(r) for r in rows]),   # labels are unique
        "col": pd.Categorical.from_codes(c_idx, categories=[str(c) for c in cols]),
        "r": r_idx.astype(np.int16), "c": c_idx.astype(np.int16),
        "value": flat.astype(np.float32),
        "pick": (r_idx == pick[0]) & (c_idx == pick[1]) if pick is not None else np.zeros(R * C, dtype=bool),
    }
    if mask is not None:
        data["why"] = np.where(mask.ravel(), "", why)
    if highlight is not None:
        data["hl"] = (r_idx == highlight) | (c_idx == highlight)   # the whole row and column
    return pd.DataFrame(data)


def heatmap(matrix: np.ndarray, rows: Sequence[str], cols: Sequence[str], *, title: str = "",
            x_title: str = "", y_title: str = "", signed: bool = True,
            domain: tuple[float, float] | None = None, mask: np.ndarray | None = None,
            pick: tuple[int, int] | None = None, key: str | None = None, present: bool = False,
            max_width: int = 560, fmt: str = ".2f", selectable: bool = False,
            mask_word: str = "masked", why: str = "the key comes after the query",
            highlight: int | None = None):
    """Draw one labelled heatmap; with selectable=True return the clicked (row, col) or None.

    highlight=k outlines every cell of row k and of column k (e.g. a newly appended token).
    """
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or matrix.shape != (len(rows), len(cols)):
        raise ValueError(f"matrix {matrix.shape} does not match {len(rows)} row and {len(cols)} column labels")
    scheme = SIGNED if signed else WEIGHTS
    if domain is None:
        domain = symmetric_domain(matrix) if signed else weight_domain(matrix)
    labelled = matrix.shape[0] <= MAX_LABELLED and matrix.shape[1] <= MAX_LABELLED
    spec = copy.deepcopy(_heatmap_spec(tuple(map(str, rows)), tuple(map(str, cols)), title, x_title, y_title,
                                       scheme, (float(domain[0]), float(domain[1])), labelled, fmt, present,
                                       max_width, selectable, mask is not None, mask_word,
                                       has_highlight=highlight is not None))
    spec["datasets"] = {"cells": heatmap_table(matrix, rows, cols, scheme, domain, mask, pick, why,
                                               highlight=highlight)}  # sent as Arrow
    if not selectable:
        st.vega_lite_chart(spec=spec, key=key, width="content")
        return None
    event = st.vega_lite_chart(spec=spec, key=key, on_select="rerun", selection_mode="cell", width="content")
    points = (event or {}).get("selection", {}).get("cell") or []
    if points:
        return int(points[0]["r"]), int(points[0]["c"])
    return None


def bars(values: Sequence[float], labels: Sequence[str], *, title: str, highlight: int | None = None,
         present: bool = False, fmt: str = ".3f"):
    """Horizontal bars of one row (e.g. a query's weights), in token order, values printed."""
    font = 17 if present else 13
    data = pd.DataFrame({"token": list(labels), "value": np.asarray(values, dtype=np.float64),
                         "top": [i == highlight for i in range(len(labels))]})
    base = alt.Chart(data).encode(
        y=alt.Y("token:N", sort=list(labels), title=None, axis=alt.Axis(labelFontSize=font)),
        x=alt.X("value:Q", title=None, axis=alt.Axis(labelFontSize=font - 2)),
        tooltip=[alt.Tooltip("token:N"), alt.Tooltip("value:Q", format=".6f")],
    )
    chart = alt.layer(
        base.mark_bar().encode(color=alt.condition("datum.top", alt.value("#e66101"), alt.value("#5e3c99"))),
        base.mark_text(align="left", dx=4, fontSize=font - 1).encode(text=alt.Text("value:Q", format=fmt)),
    ).properties(title=alt.Title(title, fontSize=font + 2, anchor="start"), height=max(120, min(30 * len(labels), 720)),
                 autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))   # fit the width, keep the height
    st.altair_chart(chart, width="stretch")
