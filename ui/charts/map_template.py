"""A heatmap's Vega-Lite spec without its data (ui/charts/maps.py fills it): the cells, their printed values,
hairlines, masked cells' words, the picked cell's and the highlighted token's outlines, token labels on both axes,
sized to the page; cached per shape and options, so a page's many maps share a few templates."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

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
