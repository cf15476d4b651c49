"""Altair charts for the pages: heatmaps with token labels, bars and lines.

A heatmap's Vega-Lite spec depends only on small things (shape, titles, colour domain, sizes); the
cells travel separately as a compact Arrow table (labels dictionary-encoded, indices int8/int16,
values float32) that also carries the label order (the r and c indices). Altair builds a spec
*template* once per shape: the title and colour domain are filled into its JSON by plain string
substitution, so a new sentence, seed or length costs microseconds instead of an Altair build
(~20 ms a chart), and a new sentence alone leaves the spec unchanged (the browser only swaps the
data). Specs are never deep-copied: Streamlit only adds top-level keys to the dict it is given.
"""
from __future__ import annotations

import base64
import io
import json
import re
from functools import lru_cache
from typing import Sequence

import altair as alt
import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st
from PIL import Image

SIGNED = "blueorange"     # colour-blind-safe diverging scheme, centred on 0
WEIGHTS = "viridis"       # colour-blind-safe sequential scheme, readable in light and dark themes
MASK_FILL = "#9ca3af"
PICK_STROKE = "#e11d48"
HIGHLIGHT_STROKE = "#d946ef"   # outlines one whole row and column, e.g. a newly appended token
MAX_LABELLED = 12         # print values inside cells up to this many rows and columns
CANVAS_CELLS = 1024       # from this many cells a heatmap is painted on a canvas, without per-cell ARIA
TOOLTIP_MIN_PX = 5        # smaller cells get no tooltip (nothing to aim at; ~1 s per 64k cells to encode)
HAIRLINE_MIN_PX = 8       # smaller cells get no white hairline between them
BAR_VALUES_MAX = 24       # bar charts print each value up to this many bars
VALUE_TEXT = "#6b7280"    # values printed outside marks: a grey legible on light and dark backgrounds
X_LABEL_ALL_PX = 22       # from this cell width every column label is drawn (Vega's overlap test
Y_LABEL_ALL_PX = 16       # counts a tilted label's whole box and would drop every other one)


# The colour stops of Vega's own two schemes (vega-scale's data). Every heatmap's colour scale is these
# stops over a piecewise domain, interpolated linearly in RGB; a raster heatmap (tiny cells, painted
# by NumPy) interpolates the same stops the same way, so both kinds of chart share one colour scale.
_SCHEME_STOPS = {
    SIGNED: "134b852f78b35da2cb9dcae1d2e5eff2f0ebfce0bafbbf74e8932fc5690d994a07",
    WEIGHTS: "440154470e61481a6c482575472f7d443a834144873d4e8a39568c35608d31688e2d708e2a788e27818e23888e21918d1f"
             "988b1fa08822a8842ab07f35b77943bf7154c56866cc5d7ad1518fd744a5db36bcdf27d2e21be9e51afde725",
}


@lru_cache(maxsize=None)
def scheme_colours(scheme: str) -> tuple[str, ...]:
    """The scheme's stops as '#rrggbb', low to high."""
    hexes = _SCHEME_STOPS[scheme]
    return tuple("#" + hexes[i:i + 6] for i in range(0, len(hexes), 6))


def ramp_domain(scheme: str, domain: tuple[float, float]) -> list[float]:
    """Where each stop sits: evenly from low to high; a diverging scheme has its middle stop at 0."""
    low, high = float(domain[0]), float(domain[1])
    n = len(scheme_colours(scheme))
    if scheme == SIGNED and low < 0.0 < high:
        half = (n - 1) // 2
        return [*np.linspace(low, 0.0, half + 1).tolist(), *np.linspace(0.0, high, n - half)[1:].tolist()]
    return np.linspace(low, high, n).tolist()


def paint(matrix: np.ndarray, scheme: str, domain: tuple[float, float]) -> np.ndarray:
    """The heatmap as RGB pixels, one per cell: (R, C) -> (R, C, 3) uint8; NaN (masked) is grey."""
    points = np.asarray(ramp_domain(scheme, domain))                            # (n,)
    stops = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in scheme_colours(scheme)], float)  # (n, 3)
    values = np.asarray(matrix, dtype=np.float64)                               # (R, C)
    clipped = np.clip(np.nan_to_num(values, nan=points[0]), points[0], points[-1])
    rgb = np.stack([np.interp(clipped, points, stops[:, k]) for k in range(3)], axis=-1)   # (R, C, 3)
    rgb[np.isnan(values)] = [int(MASK_FILL[i:i + 2], 16) for i in (1, 3, 5)]
    return np.rint(rgb).astype(np.uint8)


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


# Placeholders in a template's JSON (NUL never survives the token cleaner), replaced per chart in one
# pass by _fill: labels and titles are inserted JSON-encoded and never searched again.
_ROWS, _TITLE = "\u0000rows", "\u0000title"
_DOMAIN, _DARK, _COLS = "\u0000domain", "\u0000dark", "\u0000cols"


def _colour_scale(scheme: str) -> alt.Scale:
    """The scheme's stops over a domain filled in per chart (see ramp_domain), linear in RGB."""
    return alt.Scale(domain=[_DOMAIN], range=list(scheme_colours(scheme)), interpolate="rgb", clamp=True)


def _axes(cell: float, tilt: bool, font: int) -> tuple[alt.Axis, alt.Axis]:
    """The x (on top) and y axes every heatmap has, vector or raster."""
    x = alt.Axis(labelAngle=-40 if tilt else 0, labelLimit=140, labelFontSize=font, titleFontSize=font,
                 orient="top", labelOverlap=cell < X_LABEL_ALL_PX)
    y = alt.Axis(labelLimit=140, labelFontSize=font, titleFontSize=font, labelOverlap=cell < Y_LABEL_ALL_PX)
    return x, y


def _legend(font: int, height: float) -> alt.Legend:
    return alt.Legend(title=None, labelFontSize=font - 2, gradientLength=max(120, min(height, 320)))


def _finish(layers: list, width: float, height: float, has_title: bool, font: int, data: Sequence[str]) -> dict:
    """Layers sized to the cells' area (axes and legend added around it), titled, each reading the
    named dataset passed per run instead of inline data."""
    chart = alt.layer(*layers).properties(
        width=width, height=height,
        title=alt.Title(_TITLE, fontSize=font + 2, anchor="start", offset=10) if has_title else "",
    )
    spec = chart.to_dict(validate=False)
    spec["autosize"] = {"type": "pad"}
    spec.pop("datasets", None)
    for layer, name in zip(spec["layer"], data, strict=True):
        layer["data"] = {"name": name}
    return spec


def _tilt(cols: Sequence[str]) -> bool:
    """Column labels are drawn at an angle when there are many or any is long."""
    return len(cols) > 6 or max(map(len, cols)) > 4


@lru_cache(maxsize=256)
def _heatmap_template(n_rows: int, n_cols: int, tilt: bool, has_title: bool, x_title: str, y_title: str,
                      scheme: str, labelled: bool, fmt: str, present: bool, max_width: int,
                      selectable: bool, has_mask: bool, mask_word: str, has_highlight: bool) -> str:
    """The Altair-built spec for one shape, as JSON with placeholders for the title and the domain."""
    cell, width, height = _sizes(n_rows, n_cols, present, max_width)
    font = 17 if present else 13
    text_size = int(np.clip(cell * 0.3, 9, 20 if present else 14))
    # Order the labels by their index columns, not by a list of labels: Vega-Lite turns a list into a
    # chain of label comparisons evaluated for every cell of every layer (64 × 512 cells against 512
    # labels: seconds in the browser), an index sort into one aggregate per axis.
    x_axis, y_axis = _axes(cell, tilt, font)
    x = alt.X("col:N", sort=alt.EncodingSortField(field="c", op="min"), title=x_title, axis=x_axis)
    y = alt.Y("row:N", sort=alt.EncodingSortField(field="r", op="min"), title=y_title, axis=y_axis)
    tooltip = [alt.Tooltip("row:N", title=y_title or "row"), alt.Tooltip("col:N", title=x_title or "column"),
               alt.Tooltip("value:Q", title="value", format=".5~g")]
    scale = _colour_scale(scheme)
    if scheme == SIGNED:                                          # the ends of blueorange are dark
        dark_test = f"abs(datum.value) > {_DARK}"
    else:                                                         # viridis is dark at the low end
        dark_test = f"datum.value < {_DARK}"
    base = alt.Chart().encode(x=x, y=y)
    # Every encoded property is an expression Streamlit's CSP-safe Vega interprets for every cell:
    # tiny cells (a 64 × 64 map in a half column) get no hairline and no tooltip (too small to aim
    # at), and only a masked map filters out its hidden cells.
    hover = {"tooltip": tooltip} if cell >= TOOLTIP_MIN_PX else {}
    rect = base.mark_rect(**({"stroke": "#ffffff22", "strokeWidth": 0.5} if cell >= HAIRLINE_MIN_PX else {})).encode(
        color=alt.Color("value:Q", scale=scale, legend=_legend(font, height)),
        **hover,
    )
    if has_mask:
        rect = rect.transform_filter("isValid(datum.value)")
    if selectable:
        rect = rect.add_params(alt.selection_point(name="cell", fields=["r", "c"], on="click", clear="dblclick"))
    layers = [rect]
    if has_mask:
        layers.append(base.mark_rect(color=MASK_FILL).encode(
            **({"tooltip": [alt.Tooltip("row:N", title=y_title or "row"), alt.Tooltip("col:N", title=x_title or "column"),
                            alt.Tooltip("why:N", title=mask_word)]} if hover else {}),
        ).transform_filter("!isValid(datum.value)"))
    if labelled:
        text = base.mark_text(fontSize=text_size).encode(
            text=alt.Text("value:Q", format=fmt),
            color=alt.condition(dark_test, alt.value("#ffffff"), alt.value("#111111")),
            tooltip=tooltip,
        )
        layers.append(text.transform_filter("isValid(datum.value)") if has_mask else text)
        if has_mask:
            layers.append(base.mark_text(fontSize=text_size, color="#111827").encode(
                text=alt.value(mask_word if cell >= 44 else "×"),
            ).transform_filter("!isValid(datum.value)"))
    if has_highlight:
        layers.append(base.mark_rect(fill=None, stroke=HIGHLIGHT_STROKE, strokeWidth=2.5)
                      .transform_filter("datum.hl"))
    layers.append(base.mark_rect(fill=None, stroke=PICK_STROKE, strokeWidth=3.5).transform_filter("datum.pick"))
    spec = _finish(layers, width, height, has_title, font, ["cells"] * len(layers))
    if n_rows * n_cols >= CANVAS_CELLS:
        # Streamlit switches big charts to canvas and drops per-mark ARIA itself, but it does not count
        # rows of filtered layers, so these heatmaps would stay SVG: at 64 × 512 cells that is tens of
        # thousands of DOM nodes with a spoken description each, seconds per redraw.
        spec["usermeta"] = {"embedOptions": {"renderer": "canvas"}}
        spec.setdefault("config", {})["mark"] = {"aria": False}
    return json.dumps(spec)


def _fill(template: str, values: dict[str, str]) -> dict:
    """The template with each placeholder's JSON form replaced by values[form] in one pass, parsed."""
    pattern = _FORMS.get(tuple(values))
    if pattern is None:
        pattern = _FORMS[tuple(values)] = re.compile("|".join(map(re.escape, values)))
    return json.loads(pattern.sub(lambda m: values[m.group(0)], template))


_FORMS: dict[tuple[str, ...], re.Pattern] = {}


@lru_cache(maxsize=512)
def _heatmap_spec(rows: tuple[str, ...], cols: tuple[str, ...], title: str, x_title: str, y_title: str,
                  scheme: str, domain: tuple[float, float], labelled: bool, fmt: str, present: bool,
                  max_width: int, selectable: bool, has_mask: bool, mask_word: str,
                  has_highlight: bool = False) -> dict:
    """The finished spec (without data). Shared between calls: callers must not mutate it in place."""
    template = _heatmap_template(len(rows), len(cols), _tilt(cols), bool(title), x_title, y_title, scheme, labelled,
                                 fmt, present, max_width, selectable, has_mask, mask_word, has_highlight)
    low, high = float(domain[0]), float(domain[1])
    if scheme == SIGNED:
        dark = 0.55 * max(abs(low), abs(high))
    else:
        dark = low + 0.62 * (high - low)
    return _fill(template, {json.dumps(_TITLE): json.dumps(title),
                            json.dumps([_DOMAIN]): json.dumps(ramp_domain(scheme, (low, high))),
                            json.dumps(_DARK)[1:-1]: repr(dark)})


@lru_cache(maxsize=64)
def _raster_template(n_rows: int, n_cols: int, tilt: bool, has_title: bool, x_title: str, y_title: str,
                     scheme: str, present: bool, max_width: int) -> str:
    """A heatmap of tiny cells as one picture (NumPy paints it, one pixel a cell) under the same axes,
    colour legend and outlines: a handful of marks for Vega instead of one per cell."""
    cell, width, height = _sizes(n_rows, n_cols, present, max_width)
    font = 17 if present else 13
    x_axis, y_axis = _axes(cell, tilt, font)
    x = alt.X("col:N", scale=alt.Scale(domain=[_COLS]), title=x_title, axis=x_axis)
    y = alt.Y("row:N", scale=alt.Scale(domain=[_ROWS]), title=y_title, axis=y_axis)
    picture = alt.Chart().mark_image(width=width, height=height, aspect=False, align="left", baseline="top",
                                     smooth=False).encode(url="url:N", x=alt.value(0), y=alt.value(0))
    legend = alt.Chart().mark_point(opacity=0, size=0).encode(color=alt.Color(
        "value:Q", scale=_colour_scale(scheme), legend=_legend(font, height)))
    base = alt.Chart().encode(x=x, y=y)
    outline = [base.mark_rect(fill=None, stroke=HIGHLIGHT_STROKE, strokeWidth=2.5).transform_filter("datum.hl"),
               base.mark_rect(fill=None, stroke=PICK_STROKE, strokeWidth=3.5).transform_filter("!datum.hl")]
    return json.dumps(_finish([picture, legend, *outline], width, height, has_title, font,
                              ["picture", "ramp", "outline", "outline"]))


@lru_cache(maxsize=256)
def _raster_spec(rows: tuple[str, ...], cols: tuple[str, ...], title: str, x_title: str, y_title: str,
                 scheme: str, domain: tuple[float, float], present: bool, max_width: int) -> dict:
    template = _raster_template(len(rows), len(cols), _tilt(cols), bool(title), x_title, y_title, scheme, present,
                                max_width)
    return _fill(template, {json.dumps(_TITLE): json.dumps(title), json.dumps([_ROWS]): json.dumps(list(rows)),
                            json.dumps([_COLS]): json.dumps(list(cols)),
                            json.dumps([_DOMAIN]): json.dumps(ramp_domain(scheme, domain))})


def raster_data(matrix: np.ndarray, rows: Sequence[str], cols: Sequence[str], scheme: str,
                domain: tuple[float, float], pick: tuple[int, int] | None = None,
                highlight: int | None = None) -> dict[str, pa.Table]:
    """A raster heatmap's datasets: the PNG (a data URL), the colour ramp, and the cells to outline."""
    out = io.BytesIO()
    Image.fromarray(paint(matrix, scheme, domain), "RGB").save(out, format="PNG", compress_level=1)
    url = "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")
    R, C = np.shape(matrix)
    marks = [(pick[0], pick[1], False)] if pick is not None and pick[0] < R and pick[1] < C else []
    if highlight is not None:
        marks += [(highlight, c, True) for c in range(C)] + [(r, highlight, True) for r in range(R) if r != highlight]
    return {
        "picture": pa.table({"url": pa.array([url], pa.string())}),
        "ramp": pa.table({"value": pa.array(ramp_domain(scheme, domain), pa.float64())}),
        "outline": pa.table({"row": pa.array([str(rows[r]) for r, _, _ in marks], pa.string()),
                             "col": pa.array([str(cols[c]) for _, c, _ in marks], pa.string()),
                             "hl": pa.array([h for _, _, h in marks], pa.bool_())}),
    }


def _cell_columns(matrix: np.ndarray, mask: np.ndarray | None, pick: tuple[int, int] | None,
                  highlight: int | None) -> dict[str, np.ndarray]:
    """The per-cell numbers of a heatmap, row-major: indices, values (NaN where masked), flags."""
    R, C = matrix.shape
    values = np.asarray(matrix, dtype=np.float64)
    if mask is not None:
        values = np.where(mask, values, np.nan)                   # hidden cells: drawn grey, not coloured
    r_idx = np.repeat(np.arange(R, dtype=np.int16), C)
    c_idx = np.tile(np.arange(C, dtype=np.int16), R)
    columns = {
        "r": r_idx, "c": c_idx,
        "value": values.ravel().astype(np.float32),
        "pick": (r_idx == pick[0]) & (c_idx == pick[1]) if pick is not None else np.zeros(R * C, dtype=bool),
    }
    if highlight is not None:
        columns["hl"] = (r_idx == highlight) | (c_idx == highlight)   # the whole row and column
    return columns


def heatmap_table(matrix: np.ndarray, rows: Sequence[str], cols: Sequence[str], scheme: str,
                  domain: tuple[float, float], mask: np.ndarray | None = None,
                  pick: tuple[int, int] | None = None, why: str = "",
                  highlight: int | None = None) -> pd.DataFrame:
    """Long-form cells: labels as categories, indices as int16, values as float32."""
    columns = _cell_columns(matrix, mask, pick, highlight)
    r_idx, c_idx = columns.pop("r"), columns.pop("c")
    data = {
        "row": pd.Categorical.from_codes(r_idx, categories=[str(r) for r in rows]),   # labels are unique
        "col": pd.Categorical.from_codes(c_idx, categories=[str(c) for c in cols]),
        "r": r_idx, "c": c_idx, "value": columns["value"], "pick": columns["pick"],
    }
    if mask is not None:
        data["why"] = np.where(mask.ravel(), "", why)
    if "hl" in columns:
        data["hl"] = columns["hl"]
    return pd.DataFrame(data)


def _labels(codes: np.ndarray, labels: Sequence[str]) -> pa.DictionaryArray:
    """A label per cell, each distinct label sent once (Arrow dictionary with int8/int16 codes)."""
    small = codes.astype(np.int8) if len(labels) <= 127 else codes
    return pa.DictionaryArray.from_arrays(small, pa.array([str(x) for x in labels], pa.string()))


def _arrow_cells(matrix: np.ndarray, rows: Sequence[str], cols: Sequence[str], mask: np.ndarray | None,
                 pick: tuple[int, int] | None, why: str, highlight: int | None) -> pa.Table:
    """What heatmap_table holds, built straight as Arrow: no pandas index or metadata on the wire."""
    columns = _cell_columns(matrix, mask, pick, highlight)
    R, C = matrix.shape
    arrays = {"row": _labels(columns["r"], rows), "col": _labels(columns["c"], cols),
              "r": pa.array(columns["r"].astype(np.int8) if R <= 127 else columns["r"]),    # int8 when it fits
              "c": pa.array(columns["c"].astype(np.int8) if C <= 127 else columns["c"]),
              "value": pa.array(columns["value"], from_pandas=True),          # NaN → null: masked
              "pick": pa.array(columns["pick"])}
    if mask is not None:
        hidden = (~np.asarray(mask, dtype=bool).ravel()).astype(np.int8)  # 0: "", 1: why it is hidden
        arrays["why"] = pa.DictionaryArray.from_arrays(hidden, pa.array(["", why], pa.string()))
    if "hl" in columns:
        arrays["hl"] = pa.array(columns["hl"])
    return pa.table(arrays)


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
    cell, _, _ = _sizes(matrix.shape[0], matrix.shape[1], present, max_width)
    if cell < TOOLTIP_MIN_PX and not selectable:
        # Cells too small to aim at: one picture instead of one mark per cell (seconds → milliseconds
        # in the browser at 16 maps of 64 × 64), the same colours, axes, legend and outlines.
        spec = _raster_spec(tuple(map(str, rows)), tuple(map(str, cols)), title, x_title, y_title, scheme,
                            (float(domain[0]), float(domain[1])), present, max_width)
        shown = matrix if mask is None else np.where(mask, matrix, np.nan)     # hidden cells: grey
        spec = {**spec, "datasets": raster_data(shown, rows, cols, scheme, domain, pick, highlight)}
        st.vega_lite_chart(spec=spec, key=key, width="content")
        return None
    spec = _heatmap_spec(tuple(map(str, rows)), tuple(map(str, cols)), title, x_title, y_title,
                         scheme, (float(domain[0]), float(domain[1])), labelled, fmt, present,
                         max_width, selectable, mask is not None, mask_word,
                         has_highlight=highlight is not None)
    # A shallow copy: the cached spec is shared, and Streamlit only sets and removes top-level keys.
    spec = {**spec, "datasets": {"cells": _arrow_cells(matrix, rows, cols, mask, pick, why, highlight)}}
    if not selectable:
        st.vega_lite_chart(spec=spec, key=key, width="content")
        return None
    event = st.vega_lite_chart(spec=spec, key=key, on_select="rerun", selection_mode="cell", width="content")
    points = (event or {}).get("selection", {}).get("cell") or []
    if points:
        return int(points[0]["r"]), int(points[0]["c"])
    return None


@lru_cache(maxsize=128)
def _bars_template(n: int, present: bool, fmt: str) -> str:
    """The Altair-built spec of a bar chart with n bars, as JSON with placeholders for labels and title."""
    font = 17 if present else 13
    base = alt.Chart().encode(
        y=alt.Y("token:N", sort=[_ROWS], title=None, axis=alt.Axis(labelFontSize=font)),
        x=alt.X("value:Q", title=None, axis=alt.Axis(labelFontSize=font - 2)),
        tooltip=[alt.Tooltip("token:N"), alt.Tooltip("value:Q", format=".6f")],
    )
    layers = [base.mark_bar().encode(color=alt.condition("datum.top", alt.value("#e66101"), alt.value("#5e3c99")))]
    if n <= BAR_VALUES_MAX:            # more bars are too thin to print on: the tooltip has the value
        layers.append(base.mark_text(align="left", dx=4, fontSize=font - 1, color=VALUE_TEXT)
                      .encode(text=alt.Text("value:Q", format=fmt)))
    chart = alt.layer(*layers).properties(title=alt.Title(_TITLE, fontSize=font + 2, anchor="start"), height=max(120, min(30 * n, 720)),
                 autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))   # fit the width, keep the height
    spec = chart.to_dict(validate=False)
    spec.pop("datasets", None)
    for layer in spec.get("layer", []):
        layer["data"] = {"name": "bars"}
    return json.dumps(spec)


@lru_cache(maxsize=256)
def _bars_spec(labels: tuple[str, ...], title: str, present: bool, fmt: str) -> dict:
    return _fill(_bars_template(len(labels), present, fmt),
                 {json.dumps([_ROWS]): json.dumps(list(labels)), json.dumps(_TITLE): json.dumps(title)})


def bars(values: Sequence[float], labels: Sequence[str], *, title: str, highlight: int | None = None,
         present: bool = False, fmt: str = ".3f"):
    """Horizontal bars of one row (e.g. a query's weights), in token order, values printed."""
    labels = tuple(map(str, labels))
    data = pa.table({"token": pa.array(labels, pa.string()),
                     "value": pa.array(np.asarray(values, dtype=np.float64)),
                     "top": pa.array([i == highlight for i in range(len(labels))], pa.bool_())})
    spec = {**_bars_spec(labels, title, present, fmt), "datasets": {"bars": data}}
    st.vega_lite_chart(spec=spec, width="stretch")


@lru_cache(maxsize=32)
def _lines_template(x: str, y: str, series: tuple[tuple[str, str], ...], reference: str, x_title: str,
                    y_title: str, x_values: tuple, log_base: int, y_log: bool, fmt: str, present: bool) -> str:
    """The Altair-built spec of a measured-points-and-lines chart, built and validated once."""
    font = 17 if present else 13
    x_enc = alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(type="log", base=log_base),
                  axis=alt.Axis(values=list(x_values), labelFontSize=font, titleFontSize=font, format=fmt,
                                grid=False))
    y_enc = alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(type="log") if y_log else alt.Scale(domain=[0, 1]),
                  axis=alt.Axis(labelFontSize=font, titleFontSize=font))
    colour = alt.Color("series:N", scale=alt.Scale(domain=[n for n, _ in series], range=[c for _, c in series]),
                       legend=alt.Legend(title=None, orient="top", labelFontSize=font, symbolStrokeWidth=3,
                                         labelLimit=260))
    tips = [alt.Tooltip("series:N"), alt.Tooltip(f"{x}:Q", title=x_title),
            alt.Tooltip(f"{y}:Q", title=y_title, format=".4f")]
    base = alt.Chart().encode(x=x_enc, y=y_enc, color=colour, tooltip=tips)
    solid = base.transform_filter(f"!({reference})")
    rule = alt.Chart().mark_rule(color="#9ca3af", strokeDash=[2, 3], strokeWidth=2).encode(x=alt.X(f"{x}:Q"))
    chart = alt.layer(solid.mark_line(strokeWidth=2.5), solid.mark_point(filled=True, size=70),
                      base.transform_filter(reference).mark_line(strokeDash=[6, 4], strokeWidth=2), rule)
    spec = chart.properties(height=340 if present else 300).to_dict()
    spec.pop("datasets", None)
    for layer, name in zip(spec["layer"], ("points", "points", "points", "rule")):
        layer["data"] = {"name": name}
    return json.dumps(spec)


def lines(table: pd.DataFrame, x: str, y: str, *, series: Sequence[tuple[str, str]], reference: str,
          x_title: str, y_title: str, x_values: Sequence, log_base: int, y_log: bool, pick: float, fmt: str,
          present: bool = False) -> None:
    """Measured points joined by lines, dashed reference rows (a Vega test), a dotted rule at x = pick.

    series: (name, colour) pairs in legend order; the spec is built once per shape, the data per call.
    """
    template = _lines_template(x, y, tuple(series), reference, x_title, y_title, tuple(x_values), log_base,
                               y_log, fmt, present)
    spec = {**json.loads(template), "datasets": {"points": pa.Table.from_pandas(table, preserve_index=False),
                                                 "rule": pa.table({x: pa.array([float(pick)])})}}
    st.vega_lite_chart(spec=spec, width="stretch")
