"""Labelled heatmaps: one mark per cell (vector), or one painted picture when cells are tiny (raster).

Every heatmap has token labels on both axes (in the matrix's order), one colour scale per comparison,
the value in every cell while the map is small, the value, row and column in a tooltip while cells are
big enough to aim at, masked cells drawn grey, and outlines for a picked cell and a highlighted token.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import pyarrow as pa
import streamlit as st

from ui.charts import arrow, describe, raster
from ui.charts import colours as co
from ui.charts import spec as sp

MAX_LABELLED = 12  # print values inside cells up to this many rows and columns
CANVAS_CELLS = 1024  # from this many cells a heatmap is painted on a canvas, without per-cell ARIA
TOOLTIP_MIN_PX = 5  # smaller cells get no tooltip (nothing to aim at; ~1 s per 64k cells to encode)
HAIRLINE_MIN_PX = 8  # smaller cells get no white hairline between them
WORD_MIN_PX = 44  # a masked cell shows its word (else ×) from this width


def cell_label(fmt: str) -> str:
    """A Vega expression for the number printed in a cell: `fmt`, except that a value too small to
    show in it but not 0 (cells()'s nz flag, from float64) reads '<0.01' (or '>−0.01'), never 0.00."""
    decimals = int(fmt[1:-1]) if fmt[:1] == "." and fmt[-1:] == "f" and fmt[1:-1].isdigit() else None
    if decimals is None:
        return f"format(datum.value, '{fmt}')"
    unit = f"{10.0**-decimals:.{decimals}f}"
    positive = "(datum.value > 0 || (datum.value == 0 && 1 / datum.value > 0))"  # a float32 0 keeps its sign
    return (
        f"datum.nz && abs(datum.value) < {0.5 * 10.0**-decimals!r} ? "
        f"({positive} ? '<{unit}' : '>\u2212{unit}') : replace(format(datum.value, '{fmt}'), '-', '\u2212')"
    )


@lru_cache(maxsize=256)
def template(
    n_rows: int,
    n_cols: int,
    row_chars: int,
    col_chars: int,
    tilted: bool,
    x_title: str,
    y_title: str,
    scheme: str,
    labelled: bool,
    fmt: str,
    present: bool,
    width: int,
    area: int,
    selectable: bool,
    has_mask: bool,
    mask_word: str,
    has_highlight: bool,
    has_expected: bool = False,
) -> sp.Template:
    """One vector heatmap shape: every cell a rect (and its value as text), reading the 'cells' data."""
    size = sp.fit(n_rows, n_cols, row_chars, col_chars, tilted, True, present, width, area)
    cell = size.cell
    text_size = int(np.clip(cell * 0.3, 9, 20 if present else 14))
    tooltip = [
        {"field": "row", "type": "nominal", "title": y_title or "row"},
        {"field": "col", "type": "nominal", "title": x_title or "column"},
    ]
    hover = cell >= TOOLTIP_MIN_PX
    shown = [{"filter": "isValid(datum.value)"}] if has_mask else []
    hidden = [{"filter": "!isValid(datum.value)"}]
    value_tip = tooltip + [{"field": "value", "type": "quantitative", "title": "value", "format": ".5~g"}]

    rect = {
        "mark": {"type": "rect", **({"stroke": co.HAIRLINE, "strokeWidth": 0.5} if cell >= HAIRLINE_MIN_PX else {})},
        "encoding": {
            "color": {
                "field": "value",
                "type": "quantitative",
                "scale": sp.colour_scale(co.scheme_colours(scheme)),
                "legend": sp.legend(present, size.height, size.below),
            },
            **({"tooltip": value_tip} if hover else {}),
        },
        "transform": shown,
    }
    if selectable:
        rect["params"] = [
            {"name": "cell", "select": {"type": "point", "fields": ["r", "c"], "on": "click", "clear": "dblclick"}}
        ]
    layers = [rect]
    slots: dict[str, tuple] = {
        "title": (("title", "text"),),
        "domain": (("layer", 0, "encoding", "color", "scale", "domain"),),
    }
    if has_mask:
        # aria: false, else an empty layer (no hidden cell) is an unnamed graphic; the description counts them.
        layers.append(
            {
                "mark": {"type": "rect", "color": co.MASK_FILL, "aria": False},
                "encoding": {"tooltip": tooltip + [{"field": "why", "type": "nominal", "title": mask_word}]}
                if hover
                else {},
                "transform": hidden,
            }
        )
    if labelled:
        slots["dark"] = (("layer", len(layers), "encoding", "color", "condition", "test"),)
        layers.append(
            {
                "mark": {"type": "text", "fontSize": text_size},
                "encoding": {
                    "text": {"field": "label", "type": "nominal"},
                    "color": {"condition": {"test": "", "value": co.CELL_TEXT_LIGHT}, "value": co.CELL_TEXT_DARK},
                    "tooltip": value_tip,
                },
                "transform": shown + [{"calculate": cell_label(fmt), "as": "label"}],
            }
        )
        if has_mask:
            layers.append(
                {
                    "mark": {"type": "text", "fontSize": text_size, "color": co.MASK_TEXT, "aria": False},
                    "encoding": {"text": {"value": mask_word if cell >= WORD_MIN_PX else "×"}},
                    "transform": hidden,
                }
            )
    if has_highlight:
        layers.append(
            {
                "mark": {
                    "type": "rect",
                    "fill": None,
                    "stroke": co.HIGHLIGHT_STROKE,
                    "strokeWidth": 2.5,
                    "aria": False,
                },
                "transform": [{"filter": "datum.hl"}],
            }
        )
    if has_expected:
        layers.append(
            {
                "mark": {
                    "type": "rect",
                    "fill": None,
                    "stroke": co.EXPECTED_STROKE,
                    "strokeWidth": 2,
                    "strokeDash": [4, 3],
                    "aria": False,
                },
                "transform": [{"filter": "datum.expected"}],
            }
        )
    # Outlines are decoration (the picked cell is named in the worked calculation): hidden from screen readers.
    layers.append(
        {
            "mark": {"type": "rect", "fill": None, "stroke": co.PICK_STROKE, "strokeWidth": 3.5, "aria": False},
            "transform": [{"filter": "datum.pick"}],
        }
    )
    # Order the labels by their index columns, not by a list of labels: Vega-Lite turns a list into a
    # chain of label comparisons evaluated for every cell of every layer, an index sort into one
    # aggregate per axis.
    spec = {
        "data": {"name": "cells"},
        "width": size.width,
        "height": size.height,
        "autosize": {"type": "pad"},
        "title": sp.title(present, limit=width - 10),
        "encoding": {
            "x": {
                "field": "col",
                "type": "nominal",
                "sort": {"field": "c", "op": "min"},
                "title": x_title,
                "axis": sp.x_axis(cell, tilted, present, sp.label_limit(width)),
            },
            "y": {
                "field": "row",
                "type": "nominal",
                "sort": {"field": "r", "op": "min"},
                "title": y_title,
                "axis": sp.y_axis(size.row, present, sp.label_limit(width)),
            },
        },
        "layer": layers,
    }
    if n_rows * n_cols >= CANVAS_CELLS:
        # Streamlit switches big charts to canvas and drops per-mark ARIA itself, but it does not count
        # rows of filtered layers, so these heatmaps would stay SVG: at 64 × 512 cells that is tens of
        # thousands of DOM nodes with a spoken description each, seconds per redraw.
        spec["usermeta"] = {"embedOptions": {"renderer": "canvas"}}
        spec["config"] = {"mark": {"aria": False}}
    return sp.Template(spec=spec, slots=slots)


def cells(
    matrix: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    mask: np.ndarray | None = None,
    pick: tuple[int, int] | None = None,
    why: str = "",
    highlight: int | None = None,
    expected: np.ndarray | None = None,
) -> pa.Table:
    """The heatmap's cells, row-major, as a compact Arrow table: labels dictionary-encoded (each sent
    once), indices int8 when they fit, values float32 (null where masked), and the outline flags."""
    R, C = matrix.shape
    values = np.asarray(matrix, dtype=np.float64)
    if mask is not None:
        values = np.where(mask, values, np.nan)  # hidden cells: drawn grey, not coloured
    r_idx = np.repeat(np.arange(R, dtype=np.int16), C)  # (R·C,)
    c_idx = np.tile(np.arange(C, dtype=np.int16), R)  # (R·C,)

    def codes(idx: np.ndarray, n: int) -> np.ndarray:
        return idx.astype(np.int8) if n <= 127 else idx

    n = R * C
    columns = {
        "row": arrow.labels(codes(r_idx, R), [str(x) for x in rows]),
        "col": arrow.labels(codes(c_idx, C), [str(x) for x in cols]),
        "r": arrow.numbers(codes(r_idx, R)),
        "c": arrow.numbers(codes(c_idx, C)),
        "value": arrow.numbers(values.ravel().astype(np.float32), valid=~np.isnan(values.ravel())),  # masked: null
        "pick": arrow.flags((r_idx == pick[0]) & (c_idx == pick[1]) if pick is not None else np.zeros(n, bool)),
        "nz": arrow.flags(
            np.nan_to_num(values).ravel() != 0
        ),  # shown and not 0, from float64 (float32 rounds 1e-62 to 0)
    }
    if mask is not None:
        hidden = (~np.asarray(mask, dtype=bool).ravel()).astype(np.int8)  # 0: "", 1: why it is hidden
        columns["why"] = arrow.labels(hidden, ["", why])
    if highlight is not None:
        columns["hl"] = arrow.flags((r_idx == highlight) | (c_idx == highlight))  # the whole row and column
    if expected is not None:
        columns["expected"] = arrow.flags(np.asarray(expected, dtype=bool).ravel())
    return arrow.table(columns)


def _longest(labels: Sequence[str]) -> int:
    return max((len(str(x)) for x in labels), default=1)


def heatmap(
    matrix: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    width: float,
    area: int = 560,
    title: str = "",
    x_title: str = "",
    y_title: str = "",
    signed: bool = True,
    domain: tuple[float, float] | None = None,
    mask: np.ndarray | None = None,
    pick: tuple[int, int] | None = None,
    key: str | None = None,
    present: bool = False,
    fmt: str = ".2f",
    selectable: bool = False,
    mask_word: str = "masked",
    why: str = "the key comes after the query",
    highlight: int | None = None,
    expected: np.ndarray | None = None,
):
    """Draw one labelled heatmap no wider than `width` px (axes and legend included; the width of the
    column it is in), its cells' area at most `area` px wide; with selectable=True return the clicked
    (row, col) or None.

    highlight=k outlines every cell of row k and of column k (e.g. a newly appended token); expected
    (R, C) bools dash the cells a task's solution attends to (vector maps only).
    """
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or matrix.shape != (len(rows), len(cols)):
        raise ValueError(f"matrix {matrix.shape} does not match {len(rows)} row and {len(cols)} column labels")
    scheme = co.SIGNED if signed else co.WEIGHTS
    if domain is None:
        domain = co.symmetric_domain(matrix) if signed else co.weight_domain(matrix)
    domain = (float(domain[0]), float(domain[1]))
    n_rows, n_cols = matrix.shape
    about = describe.matrix(matrix, rows, cols, title, y_title, x_title, mask)  # the chart's text alternative
    shape = (n_rows, n_cols, _longest(rows), _longest(cols), sp.tilt([str(c) for c in cols]))
    budget = (int(width), int(area))
    size = sp.fit(*shape, True, present, *budget)
    if not shape[-1] and sp.tilt([str(c) for c in cols], size.cell, sp.font(present)):
        shape = (*shape[:-1], True)  # upright they would touch: turn them
        size = sp.fit(*shape, True, present, *budget)
    if size.cell < TOOLTIP_MIN_PX and not selectable:
        # Cells too small to aim at: one picture instead of one mark per cell (seconds → milliseconds
        # in the browser at 16 maps of 64 × 64), the same colours, axes, legend and outlines.
        shown = matrix if mask is None else np.where(mask, matrix, np.nan)  # hidden cells: grey
        spec = raster.template(*shape, x_title, y_title, scheme, present, *budget).fill(
            title=title, rows=[str(r) for r in rows], cols=[str(c) for c in cols], domain=co.ramp_domain(scheme, domain)
        )
        spec["datasets"] = raster.datasets(shown, rows, cols, scheme, domain, pick, highlight)
        if scheme == co.WEIGHTS:
            spec = sp.assoc(spec, ("layer", 1, "encoding", "color", "legend", "title"), co.weight_legend(domain))
        spec["description"] = about
        st.vega_lite_chart(spec=spec, key=key, width="content")
        return None
    labelled = n_rows <= MAX_LABELLED and n_cols <= MAX_LABELLED
    spec = template(
        *shape,
        x_title,
        y_title,
        scheme,
        labelled,
        fmt,
        present,
        *budget,
        selectable,
        mask is not None,
        mask_word,
        highlight is not None,
        expected is not None,
    )
    values = {"title": title, "domain": co.ramp_domain(scheme, domain)}
    if labelled:
        values["dark"] = co.light_text_test(scheme, domain)  # black or white text, per cell colour
    spec = spec.fill(**values)
    if scheme == co.WEIGHTS:
        spec = sp.assoc(spec, ("layer", 0, "encoding", "color", "legend", "title"), co.weight_legend(domain))
    spec["datasets"] = {"cells": cells(matrix, rows, cols, mask, pick, why, highlight, expected)}
    spec["description"] = about
    if not selectable:
        st.vega_lite_chart(spec=spec, key=key, width="content")
        return None
    event = st.vega_lite_chart(spec=spec, key=key, on_select="rerun", selection_mode="cell", width="content")
    points = (event or {}).get("selection", {}).get("cell") or []
    if points:
        return int(points[0]["r"]), int(points[0]["c"])
    return None
