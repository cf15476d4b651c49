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


def entry(name: str, first_column: int) -> tuple[str, int, int] | None:
    """A new click on the head-slice chart -> (matrix name, token, column); else the remembered one."""
    picked = session.new_click(keys.SLICE)
    if picked is not None:
        keys.set_entry((name, picked[0], first_column + picked[1]))
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
