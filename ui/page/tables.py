"""A page's small tables: Markdown up to a dozen rows, a scrolling st.table beyond."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import streamlit as st

from ui.prose.numbers import HUGE, fmt
from ui.prose.text import md_escape
from ui.shell import view

if TYPE_CHECKING:
    import pandas as pd

TABLE_ROWS = 12  # up to this many rows a table is Markdown; a taller one scrolls, its header in view
_NATIVE = re.compile(r"\.[0-4]f")  # st.table shows every float with 4 decimals by itself


def _text(values: np.ndarray) -> bool:
    return values.dtype == object or values.dtype.kind in "US"


def _cells(values: np.ndarray, spec: str | None) -> list[str]:
    """A numeric column as the text a Markdown table shows: `spec` (4 decimals for floats by default),
    never a negative zero; yes or no for a flag."""
    if values.dtype.kind == "f":
        return [fmt(x, spec or ".4f") for x in values]
    if spec and values.dtype.kind in "iu":
        return [fmt(x, spec) for x in values]
    if values.dtype.kind == "b":
        return ["yes" if x else "no" for x in values]
    return [str(x) for x in values]


def _beyond_native(values: np.ndarray, spec: str | None) -> bool:
    """Some value st.table's own 4 decimals would print falsely: NaN, ±∞, huge, or nonzero shown as 0."""
    digits = int(spec[1]) if spec else 4
    size = np.abs(values[np.isfinite(values)])
    return (
        not np.isfinite(values).all()
        or bool(np.any(size >= HUGE))
        or bool(np.any((size > 0) & (size < 0.5 * 10.0**-digits)))
    )


def markdown_table(columns: dict[str, tuple[list[str], bool]]) -> str:
    """A GitHub-flavoured Markdown table: {header: (cells, right-aligned)}, every text already escaped."""
    heads = list(columns)
    lines = [
        "| " + " | ".join(heads) + " |",
        "| " + " | ".join("---:" if columns[h][1] else "---" for h in heads) + " |",
    ]
    rows = len(next(iter(columns.values()))[0]) if columns else 0
    lines += ["| " + " | ".join(columns[h][0][i] for h in heads) + " |" for i in range(rows)]
    return "\n".join(lines)


def drawn_px(columns: dict[str, tuple[list[str], bool]]) -> float:
    """About how wide a Markdown table is drawn: its type is 0.875 × 16 px, a cell has 0.5 rem of padding."""
    return sum(0.6 * 14 * max(len(head), *(len(c) for c in cells)) + 16 for head, (cells, _) in columns.items())


def _is_frame(x: Any) -> bool:
    """x is a pandas DataFrame. pandas is imported only where a page uses it (a first page does not:
    0.34 s of a fresh server's first run), and nothing is a DataFrame before it is."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(x, pandas.DataFrame)


def table(
    data: pd.DataFrame | dict[str, Sequence],
    formats: dict[str, str] | None = None,
    *,
    labels_in_header: bool = False,
    hide_index: bool = True,
) -> None:
    """A static table of a page's small numbers.

    `data` is a DataFrame or a dict of equally long columns. `formats` maps a column to a format spec.
    Up to TABLE_ROWS rows the table is one Markdown element: a browser draws it several times faster
    than st.table, which renders every cell as Markdown of its own (0.1 s of a first page;
    benchmarks/README.md). Every column is shown in its format (floats with 4 decimals by default),
    numbers right-aligned. A taller table is an st.table that scrolls inside a fixed height, its header
    kept in view; there, up to 4 decimals ('.3f', '.4f') a column stays numeric (st.table prints 4
    decimals) and any other spec is applied here and the column sent as text; it goes to the browser
    as an Arrow table built directly (no pandas round trip, no Styler). User text (text cells, a text
    index and, with `labels_in_header`, the column names) is escaped to show literally.
    """
    formats = formats or {}
    items = list(data.items())
    rows = len(items[0][1]) if items else 0
    if rows <= TABLE_ROWS:
        columns: dict[str, tuple[list[str], bool]] = {}
        if not hide_index and _is_frame(data):
            index = np.asarray(data.index)
            columns[" "] = ([md_escape(x) for x in index] if _text(index) else _cells(index, None), False)
        for col, raw in items:
            values = np.asarray(raw)
            name = md_escape(col)  # a Markdown table's header is Markdown too
            text = _text(values)
            columns[name] = ([md_escape(x) for x in values] if text else _cells(values, formats.get(col)), not text)
        shown = view.current()
        if not (shown.stacked and drawn_px(columns) > shown.width):
            st.markdown(markdown_table(columns))
            return
        # Wider than a phone's column: an st.table of the column's width, which scrolls sideways in a box
        # Streamlit makes keyboard-focusable (a Markdown table's box cannot be reached without a mouse).
    shown: dict[str, Any] = {}
    for col, raw in items:
        values, spec = np.asarray(raw), formats.get(col)
        name = md_escape(col) if labels_in_header else str(col)
        if _text(values):
            shown[name] = [md_escape(x) for x in values]
        elif (spec and not _NATIVE.fullmatch(spec)) or (values.dtype.kind == "f" and _beyond_native(values, spec)):
            shown[name] = [fmt(x, spec or ".4f") for x in values]
        else:
            shown[name] = values
            if values.dtype.kind == "f":  # a value that prints as 0 is 0, never −0
                digits = int(spec[1]) if spec else 4
                shown[name] = np.where(np.round(values, digits) == 0, 0.0, values)
    height = 38 + 35 * TABLE_ROWS if rows > TABLE_ROWS else "content"
    width = int(view.current().width) if rows <= TABLE_ROWS else "stretch"
    if hide_index or not _is_frame(data):
        st.table(pa.table(shown), hide_index=True, height=height, width=width)
    else:  # a labelled index: pandas carries it
        import pandas as pd

        index = np.asarray(data.index)
        st.table(
            pd.DataFrame(shown, index=[md_escape(x) for x in index] if _text(index) else index),
            hide_index=False,
            height=height,
            width=width,
        )
