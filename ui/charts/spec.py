"""Vega-Lite specs written as plain dicts: sizing, the axes, legend and title every heatmap shares,
and templates whose per-chart values are set on a copy.

A spec depends on small things only (shape, titles, colour domain, sizes). A template is built once
per shape and remembers where its per-chart values go (its slots); filling it copies just the dicts
along those paths, so a new title or domain costs microseconds and the shared template is never
changed. The cells travel separately, as Arrow tables in the spec's named datasets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

FONT, FONT_PRESENT = 13, 17  # axis labels and titles; presenter view is for a projector
MAX_CELL, MAX_CELL_PRESENT = 52, 64  # px: a cell never grows beyond this
MAX_HEIGHT = 520  # px of cells
MIN_CELL = 1 / 3  # px: a cell never shrinks below this, one device pixel of a 3× phone screen
# (a wide map, 256 hidden units, fits a phone's column in a 1-pixel-a-cell
# picture scaled down: at 2× and 3× every cell still has its own pixels)
LABEL_LIMIT = 140  # px: Vega cuts longer axis labels with …
NARROW = 380  # px: a chart narrower than this is in a phone's column (a laptop's half
NARROW_LABEL_LIMIT = 90  # column is 386): shorter labels, and the legend below if that gives room
X_LABEL_ALL_PX = 22  # from this cell width every column label is drawn tilted (Vega's overlap
# test counts a tilted label's whole box and would drop every other one);
# below it column labels are turned by 90°, one font wide
LABEL_GAP = 1  # px a cell needs beyond its labels' font to draw every label
LABEL_FONT_MIN = 10  # px: axis labels shrink to fit narrow cells, down to this size
TILT = np.cos(np.radians(40))  # a tilted column label reaches this share of its length to the right


def font(present: bool) -> int:
    return FONT_PRESENT if present else FONT


def label_limit(width: float) -> int:
    """px at which Vega cuts an axis label with …, for a chart `width` px wide."""
    return LABEL_LIMIT if width >= NARROW else NARROW_LABEL_LIMIT


def text_px(chars: int, size: int, limit: int = LABEL_LIMIT) -> float:
    """About how wide a label of `chars` characters is drawn (sans serif), cut at `limit`."""
    return min(limit, 0.58 * size * chars)


def tilt(cols: Sequence[str], cell: float | None = None, size: int = FONT) -> bool:
    """Column labels are drawn at an angle when there are many, any is long, or (given the cells'
    width) the longest is too wide to stand upright over its cell."""
    crowded = cell is not None and text_px(max(map(len, cols)), size) + 4 > cell
    return len(cols) > 6 or max(map(len, cols)) > 4 or crowded


ROW_MIN_PX = LABEL_FONT_MIN + LABEL_GAP  # px: a row this high keeps its label (cells grow taller to it)


@dataclass(frozen=True)
class Size:
    """A heatmap's cells: a cell's width and height, and the cells' area (axes and legend around it).
    Cells are square unless they are too narrow for a row's label in a matrix wider than it would then be
    tall: there rows are ROW_MIN_PX high, so every row keeps its token's label."""

    cell: float  # a cell's width
    row: float  # a cell's height: its width, or ROW_MIN_PX in a wide matrix's narrow cells
    width: float
    height: float
    below: float = 0.0  # the legend's length when it goes below the cells (0: it stands beside them)


LEGEND_TITLE_CHARS = 9  # a weight legend's title: "fixed 0–1" or "stretched"


def legend_px(size: int) -> float:
    """How far right of the cells a vertical legend reaches: 18 px of gap, then its gradient (16 px) and
    labels (up to 5 characters), or its title, whichever is wider."""
    return 18 + max(27 + text_px(5, size - 2), 10 + text_px(LEGEND_TITLE_CHARS, size - 2))


def fit(
    n_rows: int,
    n_cols: int,
    row_chars: int,
    col_chars: int,
    tilted: bool,
    legend: bool,
    present: bool,
    width: float,
    area: float,
) -> Size:
    """Square cells as large as fit a chart of `width` px in all (the row labels and the y title on the
    left, the legend or a tilted last label on the right, the cells between), with the cells' area at
    most `area` px wide (a third more in presenter view, which has no sidebar); rows taller where a
    square is too small for a label (Size). In a narrow chart the legend goes below the cells when
    beside them it would make them smaller."""
    size = font(present)
    limit = label_limit(width)
    # Measured in Chromium: the y axis (labels, ticks, its title, Vega's padding) takes the labels' width
    # plus about 2 fonts and 22 px; the legend sits 18 px right of the cells (gradient 16, its labels,
    # padding). A tilted last column label may reach further right than the legend.
    left = text_px(row_chars, size, limit) + 2 * size + 22
    right = legend_px(size) if legend else 5
    reach = TILT * text_px(col_chars, size, limit) if tilted else text_px(col_chars, size, limit) / 2

    def cells(right: float) -> float:
        room = max(min(width - left - right, area * (1.35 if present else 1.0)), MIN_CELL * n_cols)
        return min(room / max(n_cols, 1), MAX_CELL_PRESENT if present else MAX_CELL, MAX_HEIGHT / max(n_rows, 1))

    cell = cells(max(right, reach + 5))
    below = 0.0
    if legend and width < NARROW and cells(reach + 5) > cell:
        cell = cells(reach + 5)
        below = max(60.0, min(240.0, width - left - 30))  # its end labels reach ~15 px past the gradient
    # Rows grow taller than the cells are wide only so far as the map stays no taller than it is wide (a
    # square map stays square) and within MAX_HEIGHT: a wide matrix (T × d) then keeps every token's label.
    # (A map scaled below 1 px a cell counts as 1 px a cell here: it is as wide as its picture.)
    taller = cell < ROW_MIN_PX and n_rows * ROW_MIN_PX <= min(MAX_HEIGHT, max(cell, 1.0) * n_cols)
    row = ROW_MIN_PX if taller else cell
    return Size(cell=float(cell), row=float(row), width=float(cell * n_cols), height=float(row * n_rows), below=below)


def label_angle(cell: float, tilted: bool) -> int:
    """Column labels: level, tilted by 40°, or (cells too narrow for a tilted label's box) turned by 90°,
    so that each takes one font's height across and every key keeps its label in narrow cells."""
    if not tilted:
        return 0
    return -40 if cell >= X_LABEL_ALL_PX else -90


def label_font(cell: float, present: bool) -> int:
    """The axis labels' size: the chart's font, or a smaller one (down to LABEL_FONT_MIN) where that lets
    every label of narrow cells be drawn; in cells narrower still Vega drops labels at the chart's font."""
    fits = cell - LABEL_GAP
    return font(present) if fits < LABEL_FONT_MIN else int(min(font(present), fits))


# Streamlit's chart theme aligns an axis's first and last labels flush with its ends (labelFlush), which moves
# them off their rows and columns: every label of a heatmap stays centred on its own row or column.
def x_axis(cell: float, tilted: bool, present: bool, limit: int = LABEL_LIMIT, **extra) -> dict:
    angle = label_angle(cell, tilted)
    size = label_font(cell, present) if angle == -90 else font(present)
    # A turned label's box is a font high; Vega's overlap test counts it with a margin and would drop every
    # other label of cells just wider than the font, where the glyphs themselves do not touch.
    crowded = cell < size + LABEL_GAP if angle == -90 else cell < X_LABEL_ALL_PX
    return {
        "labelAngle": angle,
        "labelLimit": limit,
        "labelFontSize": size,
        "labelFlush": False,
        "titleFontSize": font(present),
        "orient": "top",
        "labelOverlap": bool(crowded),
        **extra,
    }


def y_axis(cell: float, present: bool, limit: int = LABEL_LIMIT) -> dict:
    size = label_font(cell, present)
    return {
        "labelLimit": limit,
        "labelFontSize": size,
        "titleFontSize": font(present),
        "labelFlush": False,
        "labelOverlap": bool(cell < size + LABEL_GAP),
    }


def legend(present: bool, height: float, below: float = 0.0) -> dict:
    """The colour legend: a vertical gradient beside the cells, or (below > 0) a horizontal one under them."""
    out = {"title": None, "labelFontSize": font(present) - 2, "titleFontSize": font(present) - 2}
    if below:
        return {**out, "orient": "bottom", "direction": "horizontal", "gradientLength": below}
    return {**out, "gradientLength": max(120.0, min(height, 320.0))}


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
    slots: dict[str, tuple[tuple, ...]]  # slot name -> every path where its value goes

    def fill(self, **values) -> dict:
        """A new spec with these slots set (the template itself is never changed)."""
        spec = dict(self.spec)  # a new top level even with no slot set
        for name, value in values.items():
            for path in self.slots[name]:
                spec = assoc(spec, path, value)
        return spec
