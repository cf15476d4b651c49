"""A chart's text alternative, computed from its numbers: what it shows, its shape, its largest and
smallest value and where. Vega reads a spec's top-level `description` as the chart's accessible name
(the aria-label of its graphics-document), which a screen reader announces in place of the picture.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def _num(x: float) -> str:
    return f"{x:.3g}"


def matrix(values: np.ndarray, rows: Sequence[str], cols: Sequence[str], title: str = "", row_title: str = "",
           col_title: str = "", mask: np.ndarray | None = None) -> str:
    """A heatmap: '<title>. Heatmap of R rows (query) × C columns (key): largest 0.91 at row 'AI',
    column 'models'; smallest …; 6 cells hidden'."""
    values = np.asarray(values, dtype=np.float64)
    R, C = values.shape
    shown = np.isfinite(values) if mask is None else np.asarray(mask, dtype=bool) & np.isfinite(values)
    head = f"{title}. " if title else ""
    shape = f"Heatmap of {R} rows{f' ({row_title})' if row_title else ''} × {C} columns" \
            f"{f' ({col_title})' if col_title else ''}"
    if not shown.any():
        return f"{head}{shape}: every cell is hidden."
    picked = np.where(shown, values, np.nan)
    hi = np.unravel_index(np.nanargmax(picked), picked.shape)
    lo = np.unravel_index(np.nanargmin(picked), picked.shape)

    def at(ij) -> str:
        return f"{_num(values[ij])} at row {ij[0]} {str(rows[ij[0]])!r}, column {ij[1]} {str(cols[ij[1]])!r}"

    hidden = int(shown.size - shown.sum())
    tail = f"; {hidden} cell{'s' * (hidden != 1)} hidden" if hidden else ""
    return f"{head}{shape}: largest {at(hi)}; smallest {at(lo)}; mean {_num(np.nanmean(picked))}{tail}."


def grid(weights: np.ndarray, title: str = "") -> str:
    """The model view: L × H maps of T × T weights; which map is the sharpest and which the flattest."""
    weights = np.asarray(weights, dtype=np.float64)
    L, H, T, _ = weights.shape
    top = np.nan_to_num(weights, nan=0.0).max(axis=-1).mean(axis=-1)           # (L, H) mean largest weight
    sharp = np.unravel_index(np.argmax(top), top.shape)
    flat = np.unravel_index(np.argmin(top), top.shape)
    head = f"{title}. " if title else ""
    return (f"{head}Grid of {L} layer{'s' * (L != 1)} × {H} head{'s' * (H != 1)}, each a {T} × {T} map of "
            f"attention weights from {_num(np.nanmin(weights))} to {_num(np.nanmax(weights))}: sharpest "
            f"layer {sharp[0]} head {sharp[1]} (mean largest weight {_num(top[sharp])}), flattest layer "
            f"{flat[0]} head {flat[1]} ({_num(top[flat])}).")


def bars(values: Sequence[float], labels: Sequence[str], title: str = "") -> str:
    """A bar chart: how many bars, the largest and the smallest and where."""
    values = np.asarray(values, dtype=np.float64)
    head = f"{title}. " if title else ""
    if values.size == 0:
        return f"{head}Bar chart with no bars."
    hi, lo = int(np.nanargmax(values)), int(np.nanargmin(values))
    return (f"{head}Bar chart of {values.size} values: largest {_num(values[hi])} at {str(labels[hi])!r}, "
            f"smallest {_num(values[lo])} at {str(labels[lo])!r}.")


def series(named: Sequence[tuple[str, Sequence[float], Sequence[float]]], x_title: str, title: str = "") -> str:
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
        parts.append(f"{name}: {ys.size} point{'s' * (ys.size != 1)} from {_num(ys[0])} at {x_title} "
                     f"{_num(xs[0])} to {_num(ys[-1])} at {_num(xs[-1])}, largest {_num(ys[hi])} at "
                     f"{_num(xs[hi])}, smallest {_num(ys[lo])} at {_num(xs[lo])}")
    head = f"{title}. " if title else ""
    return f"{head}Line chart against {x_title}: " + "; ".join(parts) + "."
