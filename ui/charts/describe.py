"""A heatmap's text alternative, computed from its numbers: what it shows, its shape, its largest and
smallest value and where (each other chart kind describes itself in its own module, the same way). Vega reads a
spec's top-level `description` as the chart's accessible name (the aria-label of its graphics-document), which a
screen reader announces in place of the picture.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ui.prose.numbers import fmt


def number(x: float) -> str:
    """Three significant digits, as the pages print them: '−∞' for a masked score, never 'nan', 'inf', '-0'
    or '1e-05'."""
    return fmt(x, ".3g")


def matrix(
    values: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    title: str = "",
    row_title: str = "",
    col_title: str = "",
    mask: np.ndarray | None = None,
) -> str:
    """A heatmap: '<title>. Heatmap of R rows (query) × C columns (key): largest 0.91 at row 'AI',
    column 'models'; smallest …; 6 cells hidden'."""
    values = np.asarray(values, dtype=np.float64)
    R, C = values.shape
    shown = np.isfinite(values) if mask is None else np.asarray(mask, dtype=bool) & np.isfinite(values)
    head = f"{title}. " if title else ""
    shape = (
        f"Heatmap of {R} rows{f' ({row_title})' if row_title else ''} × {C} columns"
        f"{f' ({col_title})' if col_title else ''}"
    )
    if not shown.any():
        return f"{head}{shape}: every cell is hidden."
    picked = np.where(shown, values, np.nan)
    hi = np.unravel_index(np.nanargmax(picked), picked.shape)
    lo = np.unravel_index(np.nanargmin(picked), picked.shape)

    def at(ij) -> str:
        return f"{number(values[ij])} at row {ij[0]} {str(rows[ij[0]])!r}, column {ij[1]} {str(cols[ij[1]])!r}"

    hidden = int(shown.size - shown.sum())
    tail = f"; {hidden} cell{'s' * (hidden != 1)} hidden" if hidden else ""
    return f"{head}{shape}: largest {at(hi)}; smallest {at(lo)}; mean {number(np.nanmean(picked))}{tail}."
