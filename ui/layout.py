"""What every page shares: the header with its formula, notes, 'what to notice', exports, the code."""
from __future__ import annotations

import inspect
import io
import re
import string
import sys
from functools import lru_cache
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import pyarrow as pa
import streamlit as st

from ui import figures, frame, session
from ui.lazy import opened
from ui.prose.numbers import fmt

if TYPE_CHECKING:
    import pandas as pd

_PUNCT = set(string.punctuation)
GAP_PX = 17                     # between two of st.columns (Streamlit's "small" gap: 1rem at a 17 px base font)


@dataclass(frozen=True)
class Column:
    """A place to draw (`with column:`) and how many px wide it is, for charts that must fit it."""

    box: Any
    width: float

    def __enter__(self):
        return self.box.__enter__()

    def __exit__(self, *exc):
        return self.box.__exit__(*exc)


def columns(view: frame.View, spec: Sequence[float] | int, **options) -> list[Column]:
    """st.columns, each with its width in px (from the main column's width and the shares; on a
    phone, where Streamlit stacks the columns, each is the main column's full width)."""
    shares = [1.0] * spec if isinstance(spec, int) else [float(s) for s in spec]
    room = view.width - GAP_PX * (len(shares) - 1)
    boxes = st.columns(shares, **options)
    if view.stacked:
        return [Column(box, view.width) for box in boxes]
    return [Column(box, room * share / sum(shares)) for box, share in zip(boxes, shares)]


def two(view: frame.View, side_by_side: bool) -> list[Column]:
    """Two places for the two maps of a comparison: side by side, or one under the other (full width)."""
    return columns(view, 2) if side_by_side else [Column(st.container(), view.width) for _ in range(2)]


def md_escape(text: str) -> str:
    """Show user text literally inside Markdown: every ASCII punctuation mark is backslash-escaped."""
    return "".join("\\" + ch if ch in _PUNCT else ch for ch in str(text))


def quote(label: str) -> str:
    """A token label quoted for a Markdown sentence."""
    return "‘" + md_escape(label) + "’"


def header(view: frame.View, title: str, intro: str, formula: str | Sequence[str]) -> None:
    """Title, a few sentences (hidden in presenter view), the formula(s), and any notes of this run."""
    st.title(title)
    if not view.present:
        st.markdown(intro)
    for line in [formula] if isinstance(formula, str) else formula:
        latex(view, line)
    for note in view.notes:
        st.info(md_escape(note), icon=":material/info:")


def latex(view: frame.View, formula: str) -> None:
    """st.latex, on a phone one equation a line (see formula_lines)."""
    for part in formula_lines(formula) if view.stacked else [formula]:
        st.latex(part)


def formula_lines(latex: str) -> list[str]:
    """A formula's parts, one per line on a phone: split at each \\qquad outside any braces (the gap
    this app puts between the equations of one line)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(latex):
        if latex[i] == "\\":
            if depth == 0 and latex.startswith(r"\qquad", i) and not latex[i + 6:i + 7].isalpha():
                parts.append(latex[start:i])
                start = i = i + 6
                continue
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(latex[i], 0)
        i += 1
    parts.append(latex[start:])
    return [p.strip() for p in parts if p.strip()]


TABLE_ROWS = 12            # up to this many rows a table is Markdown; a taller one scrolls, its header in view
_NATIVE = re.compile(r"\.[0-4]f")   # st.table shows every float with 4 decimals by itself


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


def markdown_table(columns: dict[str, tuple[list[str], bool]]) -> str:
    """A GitHub-flavoured Markdown table: {header: (cells, right-aligned)}, every text already escaped."""
    heads = list(columns)
    lines = ["| " + " | ".join(heads) + " |",
             "| " + " | ".join("---:" if columns[h][1] else "---" for h in heads) + " |"]
    rows = len(next(iter(columns.values()))[0]) if columns else 0
    lines += ["| " + " | ".join(columns[h][0][i] for h in heads) + " |" for i in range(rows)]
    return "\n".join(lines)


def _is_frame(x: Any) -> bool:
    """x is a pandas DataFrame. pandas is imported only where a page uses it (a first page does not:
    0.34 s of a fresh server's first run), and nothing is a DataFrame before it is."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(x, pandas.DataFrame)


def table(frame: pd.DataFrame | dict[str, Sequence], formats: dict[str, str] | None = None, *,
          labels_in_header: bool = False, hide_index: bool = True) -> None:
    """A static table of a page's small numbers.

    `frame` is a DataFrame or a dict of equally long columns. `formats` maps a column to a format spec.
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
    items = list(frame.items())
    rows = len(items[0][1]) if items else 0
    if rows <= TABLE_ROWS:
        columns: dict[str, tuple[list[str], bool]] = {}
        if not hide_index and _is_frame(frame):
            index = np.asarray(frame.index)
            columns[" "] = ([md_escape(x) for x in index] if _text(index) else _cells(index, None), False)
        for col, raw in items:
            values = np.asarray(raw)
            name = md_escape(col)                       # a Markdown table's header is Markdown too
            text = _text(values)
            columns[name] = ([md_escape(x) for x in values] if text else _cells(values, formats.get(col)), not text)
        st.markdown(markdown_table(columns))
        return
    shown: dict[str, Any] = {}
    for col, raw in items:
        values, spec = np.asarray(raw), formats.get(col)
        name = md_escape(col) if labels_in_header else str(col)
        if _text(values):
            shown[name] = [md_escape(x) for x in values]
        elif spec and not _NATIVE.fullmatch(spec):
            shown[name] = [fmt(x, spec) for x in values]
        else:
            shown[name] = values
            if values.dtype.kind == "f":                     # a value that prints as 0 is 0, never −0
                digits = int(spec[1]) if spec else 4
                shown[name] = np.where(np.round(values, digits) == 0, 0.0, values)
    height = 38 + 35 * TABLE_ROWS
    if hide_index or not _is_frame(frame):
        st.table(pa.table(shown), hide_index=True, height=height)
    else:                                                     # a labelled index: pandas carries it
        import pandas as pd

        index = np.asarray(frame.index)
        st.table(pd.DataFrame(shown, index=[md_escape(x) for x in index] if _text(index) else index),
                 hide_index=False, height=height)


def notice(text: str) -> None:
    """The page's 'what to notice' line, computed by the page from the live numbers."""
    st.success("**What to notice:** " + text, icon=":material/visibility:")


def _csv(matrices: dict[str, tuple[np.ndarray, Sequence[str], Sequence[str]]]) -> Callable[[], str]:
    def build() -> str:
        import pandas as pd

        out = io.StringIO()
        for name, (matrix, rows, cols) in matrices.items():
            out.write(f"# {name}\n")
            pd.DataFrame(np.asarray(matrix), index=list(rows), columns=list(cols)).to_csv(out)
            out.write("\n")
        return out.getvalue()
    return build


def _npz(trace) -> Callable[[], bytes]:
    def build() -> bytes:
        out = io.BytesIO()
        np.savez_compressed(out, labels=np.array(trace.labels), **trace.arrays())
        return out.getvalue()
    return build


@lru_cache(maxsize=64)
def _source(fn: Callable) -> str:
    return inspect.getsource(fn)


def exports(slug: str, trace, matrices: dict[str, tuple[np.ndarray, Sequence[str], Sequence[str]]],
            code: Sequence[Callable] = ()) -> None:
    """Download this page's matrices (CSV) and the whole trace (.npz), save its charts as figures,
    show the engine's code: each behind an expander, drawn once opened."""
    if frame.view().present:
        return
    if box := opened("Download these numbers, save figures for slides", session.export_key(slug),
                     icon=":material/download:"):
        with box:
            left, right, _ = st.columns([1, 1, 2])
            left.download_button("Matrices (CSV)", _csv(matrices), file_name=f"attention-lab-{slug}.csv",
                                 mime="text/csv", key=session.download_key("csv", slug), icon=":material/table:",
                                 on_click="ignore")
            right.download_button("Whole trace (.npz)", _npz(trace), file_name="attention-lab-trace.npz",
                                  mime="application/octet-stream", key=session.download_key("npz", slug),
                                  icon=":material/download:", on_click="ignore")
            figures.panel(slug)
    if code and (box := opened("Show the NumPy code for this step", session.code_key(slug), icon=":material/code:")):
        with box:
            for fn in code:
                st.code(_source(fn), language="python")
