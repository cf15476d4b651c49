"""Vega-Lite specs written as plain dicts: sizing, the axes, legend and title every heatmap shares,
and templates whose per-chart values are set on a copy.

A spec depends on small things only (shape, titles, colour domain, sizes). A template is built once
per shape and remembers where its per-chart values go (its slots); filling it copies just the dicts
along those paths, so a new title or domain costs microseconds and the shared template is never
changed. The cells travel separately, as Arrow tables in the spec's named datasets.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

FONT, FONT_PRESENT = 13, 17          # axis labels and titles; presenter view is for a projector
MAX_CELL, MAX_CELL_PRESENT = 52, 64  # px: a cell never grows beyond this
MAX_HEIGHT = 520                     # px of cells
LABEL_LIMIT = 140                    # px: Vega cuts longer axis labels with …
X_LABEL_ALL_PX = 22                  # from this cell width every column label is drawn (Vega's overlap
Y_LABEL_ALL_PX = 16                  # test counts a tilted label's whole box and would drop every other one)
TILT = np.cos(np.radians(40))        # a tilted column label reaches this share of its length to the right


def font(present: bool) -> int:
    return FONT_PRESENT if present else FONT


def text_px(chars: int, size: int) -> float:
    """About how wide a label of `chars` characters is drawn (sans serif), cut at LABEL_LIMIT."""
    return min(LABEL_LIMIT, 0.58 * size * chars)


def tilt(cols: Sequence[str]) -> bool:
    """Column labels are drawn at an angle when there are many or any is long."""
    return len(cols) > 6 or max(map(len, cols)) > 4


@dataclass(frozen=True)
class Size:
    """A heatmap's cells: the side of one square cell, and the cells' area (axes and legend around it)."""

    cell: float
    width: float
    height: float


def fit(n_rows: int, n_cols: int, row_chars: int, col_chars: int, tilted: bool, legend: bool,
        present: bool, width: float, area: float) -> Size:
    """Square cells as large as fit a chart of `width` px in all (the row labels and the y title on
    the left, the legend or a tilted last label on the right, the cells between), with the cells'
    area at most `area` px wide (a third more in presenter view, which has no sidebar)."""
    size = font(present)
    # Measured in Chromium: the y axis (labels, ticks, its title, Vega's padding) takes the labels' width
    # plus about 2 fonts and 22 px; the legend sits 18 px right of the cells (gradient 16, its labels,
    # padding). A tilted last column label may reach further right than the legend.
    left = text_px(row_chars, size) + 2 * size + 22
    legend_px = 45 + text_px(5, size - 2) if legend else 5
    reach = TILT * text_px(col_chars, size) if tilted else text_px(col_chars, size) / 2
    right = max(legend_px, reach + 5)
    room = max(min(width - left - right, area * (1.35 if present else 1.0)), n_cols)   # ≥ 1 px a cell
    cell = min(room / max(n_cols, 1), MAX_CELL_PRESENT if present else MAX_CELL, MAX_HEIGHT / max(n_rows, 1))
    return Size(cell=float(cell), width=float(cell * n_cols), height=float(cell * n_rows))


def x_axis(cell: float, tilted: bool, present: bool, **extra) -> dict:
    size = font(present)
    return {"labelAngle": -40 if tilted else 0, "labelLimit": LABEL_LIMIT, "labelFontSize": size,
            "titleFontSize": size, "orient": "top", "labelOverlap": bool(cell < X_LABEL_ALL_PX), **extra}


def y_axis(cell: float, present: bool) -> dict:
    size = font(present)
    return {"labelLimit": LABEL_LIMIT, "labelFontSize": size, "titleFontSize": size,
            "labelOverlap": bool(cell < Y_LABEL_ALL_PX)}


def legend(present: bool, height: float) -> dict:
    return {"title": None, "labelFontSize": font(present) - 2, "gradientLength": max(120.0, min(height, 320.0))}


def title(present: bool, offset: int | None = 10, limit: float | None = None) -> dict:
    """A chart title whose text is a template slot (cut with … beyond `limit` px)."""
    out = {"text": "", "fontSize": font(present) + 2, "anchor": "start"}
    if limit is not None:
        out["limit"] = limit
    return out if offset is None else {**out, "offset": offset}


def colour_scale(colours: Sequence[str]) -> dict:
    """A colour scale over a per-chart domain (a slot), linear in RGB, clamped to the domain's ends."""
    return {"domain": [], "range": list(colours), "interpolate": "rgb", "clamp": True}


# --------------------------------------------------------------------------- templates
def assoc(tree: Any, path: Sequence, value: Any) -> Any:
    """A copy of `tree` with the entry at `path` replaced; only the containers on the path are copied."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = list(tree) if isinstance(tree, list) else dict(tree)
    copy[head] = assoc(tree[head], rest, value)
    return copy


@dataclass(frozen=True)
class Template:
    """A spec shared by every chart of one shape, and where each per-chart value goes."""

    spec: dict
    slots: dict[str, tuple[tuple, ...]]     # slot name -> every path where its value goes

    def fill(self, **values) -> dict:
        """A new spec with these slots set (the template itself is never changed)."""
        spec = dict(self.spec)                    # a new top level even with no slot set
        for name, value in values.items():
            for path in self.slots[name]:
                spec = assoc(spec, path, value)
        return spec
