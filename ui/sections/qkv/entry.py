"""Click a Q, K or V entry, see it computed: one token's input row dotted with one weight column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine import analysis
from ui.page import tables
from ui.prose.numbers import tex
from ui.prose.text import quote
from ui.sections.qkv import keys
from ui.shell import session


def take(name: str, first_column: int) -> None:
    """A pick on the head-slice map (its component's callback, before the run) -> (matrix name, token, column)."""
    picked = (session.raw(keys.SLICE) or {}).get("pick")
    if isinstance(picked, dict) and isinstance(picked.get("row"), int) and isinstance(picked.get("col"), int):
        keys.set_entry((name, picked["row"], first_column + picked["col"]))


def entry() -> tuple[str, int, int] | None:
    """The remembered entry: (matrix name, token, column), or None."""
    return keys.entry()


def show(trace, params, picked: tuple[str, int, int] | None, symbol: str = "X") -> None:
    """The worked calculation of one entry of Q, K or V; `symbol` names what they are computed from
    (X, (X + P), LN(X), LN(X + P)), as the page's formula does."""
    if picked is None:
        return
    name, token, column = picked
    source = trace.source
    if token >= trace.T or column >= trace.config.d_model:
        keys.set_entry(None)
        st.info("The picked entry no longer exists with these settings.")
        return
    w = {"Q": params.w_q, "K": params.w_k, "V": params.w_v}[name]
    work = analysis.explain_projection(source, w, token, column)
    st.subheader(f"Worked entry: {name}[{token}, {column}] for {quote(trace.labels[token])}")
    bare = symbol.strip("()")
    shown = rf"\text{{{bare}}}" if bare.startswith("LN") else bare
    st.latex(
        rf"{name}_{{{token},{column}}} = \sum_d \big({shown}\big)_{{{token},d}}\,(W_{name})_{{d,{column}}}"
        rf" = {tex(work.value, '.5f')}"
    )
    table = pd.DataFrame(
        {
            "d": np.arange(len(work.products)),
            f"{bare}[{token}][d]": work.x_row,
            f"W_{name}[d][{column}]": work.w_col,
            "product": work.products,
            "running sum": work.running,
        }
    )
    tables.table(table, {c: ".5f" for c in table.columns[1:]})
