"""The one heatmap call the pages make: one labelled map drawn by the attention-map component
(ui/charts/attention_map.py), at any shape (T × T attention maps, T × d projections).

Token labels on both axes (in the matrix's order), one colour scale per comparison (the `domain` a page
passes), the value in every cell while the map is small, a tooltip per cell, masked cells drawn masked, the
highlighted token's row and column outlined, a task's expected cells dashed, and a large map painted on a
canvas: all drawn in the browser from Python's texts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ui.charts import colours as co
from ui.charts.attention_map import Panel, attention_map


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
    mask_word: str = "masked",
    why: str = "the key comes after the query",
    highlight: int | None = None,
    expected: np.ndarray | None = None,
    work: dict | None = None,
    link: str | None = None,
    on_pick=None,
    legend: str | None = None,
):
    """Draw one labelled heatmap no wider than `width` px (the width of the column it is in), its cells' area at
    most `area` px wide.

    highlight=k outlines every cell of row k and of column k (e.g. a newly appended token); expected (R, C) bools
    dash the cells a task's solution attends to; pick=(row, col) outlines a cell picked on the server; work (from
    attention_map.worked) is the worked calculation a pick shows, answered in the browser; link='cell' writes a
    pick into the page's URL; on_pick (a callback) makes each pick also run the script once, with the pick in
    st.session_state[key].pick ({'map', 'row', 'col'}), for a part the server draws. A masked cell reads '−∞'
    on a signed map (a score), '0' on a weights map. legend: what the colours stand for (attention_map.payload's
    default: 'entry' on a signed map, 'weight' on a weights map).
    """
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or matrix.shape != (len(rows), len(cols)):
        raise ValueError(f"matrix {matrix.shape} does not match {len(rows)} row and {len(cols)} column labels")
    if domain is None:
        shown = matrix if mask is None else np.where(mask, matrix, 0.0)
        domain = co.symmetric_domain(shown) if signed else co.weight_domain(shown)
    return attention_map(
        [Panel(matrix, title, mask, work, expected)],
        key=key,
        rows=rows,
        cols=cols,
        signed=signed,
        domain=(float(domain[0]), float(domain[1])),
        x_title=x_title,
        y_title=y_title,
        spec=fmt,
        highlight=highlight,
        pick=None if pick is None else (0, int(pick[0]), int(pick[1])),
        present=present,
        mask_word=mask_word,
        why=why,
        mask_text=mask_word if mask_word != "masked" else "−∞" if signed else "0",
        width=int(width),
        area=int(area),
        link=link,
        report_pick=on_pick is not None,
        legend=legend,
        on_pick=on_pick,
    )
