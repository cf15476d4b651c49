"""A small table whose names carry their glosses (issue 50): each column's name (by='head'), or each row's first
cell (by='row'), is a button that shows its one-line gloss in plain words on hover and on keyboard focus (a
role="tooltip" element the button points to with aria-describedby; Escape hides it). A table wider than its
column reflows into one card per row (a phone: no sideways scrolling). One Components v2 component, no iframe
and no data grid; the page prints the glosses as text too (the table's text alternative is the table itself).

Every text is the app's own (column and control names, glosses, numbers already through ui.prose.numbers.fmt);
gloss_table.js writes them with textContent, never as HTML."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import streamlit as st

NAME = "attention_lab_gloss_table"  # unique in the app
_HERE = Path(__file__).resolve().parent
_component = st.components.v2.component(
    NAME,
    html='<div class="gtab"></div>',
    css=(_HERE / "gloss_table.css").read_text(encoding="utf-8"),
    js=(_HERE / "gloss_table.js").read_text(encoding="utf-8"),
)


def _numeric(cells: Sequence[str]) -> bool:
    """A column of numbers (right-aligned): every cell starts like one ('0.77', '+1.818 (…)', 'both ends 1.000',
    '—')."""
    return all(c[:1].isdigit() or c[:1] in "+−-—" or c.startswith("both ends ") for c in cells)


def payload(columns: dict[str, Sequence[str]], glosses: dict[str, str], by: str, caption: str, key: str) -> dict:
    """What the browser gets: the names, the rows of texts, which columns are numbers, and the glosses used."""
    heads = list(columns)
    rows = [list(cells) for cells in zip(*columns.values())]
    named = heads if by == "head" else [row[0] for row in rows]
    return {
        "key": key,
        "by": by,
        "caption": caption,
        "heads": heads,
        "rows": rows,
        "numeric": [j > 0 and _numeric(columns[h]) for j, h in enumerate(heads)],
        "glosses": {name: glosses[name] for name in named if name in glosses},
    }


def gloss_table(
    columns: dict[str, Sequence[str]], glosses: dict[str, str], *, key: str, caption: str, by: str = "head"
) -> None:
    """Draw the table: `columns` maps a name to its cells (texts as printed, the first column the rows' names);
    `glosses` a name to its one line; `by` 'head' glosses the column names, 'row' the first column's cells."""
    data = payload(columns, glosses, by, caption, key)
    _component(key=key, data=json.dumps(data, ensure_ascii=False).encode("utf-8"))


def decoded(element) -> dict:
    """What a gloss table's element (AppTest's bidi_component) carries: its payload."""
    return json.loads(element.proto.bytes.decode("utf-8"))
