"""Page 3: the softmax turns each row of scaled scores into weights that sum to 1."""
import pandas as pd
import streamlit as st

import engine
from engine import analysis
from ui import charts, compute, frame, inspector, layout, session

view = frame.view()
layout.header(
    view,
    "Softmax weights",
    "Each row of scaled scores goes through the softmax: every entry becomes e to its power, divided "
    "by the row's total. The result is a row of positive weights that sum to 1: how much each query "
    "token takes from each key token.",
    r"w_{ij} = \frac{e^{s_{ij}}}{\sum_{j'} e^{s_{ij'}}},\qquad \sum_j w_{ij} = 1",
)
t = compute.trace(view.config, view.words, view.training)
cfg, h, present = view.config, view.controls.head, view.present
cell = view.cell
weights = t.weights[h]
best, best_w = analysis.strongest_keys(weights)

left, right = layout.columns(view, [3, 2])
with left:
    charts.heatmap(weights, t.labels, t.labels, title=f"weights, head {h}: {t.T} × {t.T}", x_title="key",
                   y_title="query", signed=False, mask=t.mask, pick=cell,
                   key=session.SOFTMAX_MAP, present=present, width=left.width, area=320, fmt=".2f", selectable=True)
with right:
    sums = pd.DataFrame({"query": list(t.labels), "row sum": weights.sum(axis=-1),
                         "attends most to": [t.labels[b] for b in best], "weight": best_w})
    layout.table(sums, {"row sum": ".6f", "weight": ".4f"})

query = st.selectbox("Query row to plot", range(t.T), format_func=lambda i: f"{i}: {t.labels[i]}",
                     index=cell[0] if cell else 0, key=session.SOFTMAX_QUERY)
charts.bars(weights[query], t.labels, title=f"weights of query {t.labels[query]!r}, head {h}",
            highlight=int(best[query]), present=present)

sentences = [f"{layout.quote(t.labels[i])} attends most to {layout.quote(t.labels[b])} ({w:.2f})"
             for i, (b, w) in enumerate(zip(best, best_w))]
layout.notice("; ".join(sentences[:6]) + ("; …" if t.T > 6 else "") +
              f". A uniform row would give every key {1 / t.T:.2f}.")
inspector.show(t, h, cell)
layout.exports("softmax", t, {f"weights head {h}": (weights, t.labels, t.labels)},
               code=[engine.softmax])
