"""Labelled heatmaps: one mark per cell (vector), or one painted picture when cells are tiny (raster).

Every heatmap has token labels on both axes (in the matrix's order), one colour scale per comparison,
the value in every cell while the map is small, the value, row and column in a tooltip while cells are
big enough to aim at, masked cells drawn grey, and outlines for a picked cell and a highlighted token.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import streamlit as st

from ui.charts import arrow, describe, raster
from ui.charts import colours as co
from ui.charts import spec as sp
from ui.charts.map_template import MAX_LABELLED, TOOLTIP_MIN_PX, template


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
