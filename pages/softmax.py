"""Page 3: the softmax turns each row of scaled scores into weights that sum to 1."""
import pandas as pd
import streamlit as st

import engine
from engine import analysis
from ui import charts, compute, frame, inspector, layout, session
from ui.prose import rows as row_words

view = frame.view()
layout.header(
    view,
    "Softmax weights",
    "Each row of scaled scores goes through the softmax: every entry becomes e to its power, divided "
    "by the row's total. The result is a row of positive weights that sum to 1: how much each query "
    "token takes from each key token.",
    r"w_{ij} = \frac{e^{s_{ij}}}{\sum_{j'} e^{s_{ij'}}},\qquad \sum_j w_{ij} = 1",
)
t = compute.trace(view.config, view.words)
cfg, h, present = view.config, view.controls.head, view.present
cell = view.cell
weights = t.weights[h]
rows = analysis.read_rows(weights, t.visible)

left, right = layout.columns(view, [3, 2])
with left:
    charts.heatmap(weights, t.labels, t.labels, title=f"weights, head {h}: {t.T} × {t.T}", x_title="key",
                   y_title="query", signed=False, mask=t.mask, pick=cell,
                   key=session.SOFTMAX_MAP, present=present, width=left.width, area=320, fmt=".2f", selectable=True)
with right:
    sums = pd.DataFrame({"query": list(t.labels), "keys": [r.keys for r in rows], "row sum": weights.sum(axis=-1),
                         "weight": [r.weight for r in rows], "uniform": [r.uniform for r in rows],
                         "spread": [r.spread for r in rows],
                         "attends most to": [row_words.top_cell(r, t.labels) for r in rows]})
    layout.table(sums, {"row sum": ".6f", "weight": ".4f", "uniform": ".4f", "spread": ".3f"})
    st.caption("weight: the row's largest weight; uniform: 1 ÷ the keys the row can see; spread: entropy ÷ "
               "log₂(keys), 1 when every key gets the same weight.")

query = st.selectbox("Query row to plot", range(t.T), format_func=lambda i: f"{i}: {t.labels[i]}",
                     index=cell[0] if cell else 0, key=session.SOFTMAX_QUERY)
charts.bars(weights[query], t.labels, title=f"weights of query {t.labels[query]!r}, head {h}",
            highlight=rows[query].top[0] if rows[query].kind == "lean" and len(rows[query].top) == 1 else None, present=present)

layout.notice(row_words.softmax_notice(rows, t.labels, quote=layout.quote))
inspector.show(t, h, cell)
layout.exports("softmax", t, {f"weights head {h}": (weights, t.labels, t.labels)},
               code=[engine.softmax])
