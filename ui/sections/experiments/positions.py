"""Section 3: why positions. A shuffle without them only moves the numbers around."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import charts, compute_experiments
from ui.page import footer, layout, tables
from ui.prose.numbers import fmt
from ui.prose.text import quote
from ui.sections.experiments import common
from ui.sections.experiments import words as said
from ui.sections.experiments.common import TITLES, prose, two_maps
from ui.shell.view import View


# --------------------------------------------------------------------------- 3 · positions
def positions(view: View) -> None:
    cfg, words, h, present = view.config, view.words, view.head, view.present
    st.subheader(TITLES["positions"])
    prose(
        view,
        "Attention compares every token with every other, but nothing in QKᵀ says where a token "
        "stands. Shuffle the sentence: without positions the block computes the very same numbers, "
        "only moved around. Adding a position code to every input breaks that symmetry.",
    )
    st.latex(
        r"X' = P X \;\Rightarrow\; A' = \text{softmax}\Big(\frac{P Q (P K)^\top}{\sqrt{d_{head}}}\Big)"
        r" = P A P^\top,\qquad \text{out}' = P\,\text{out}"
    )
    st.latex(said.POSITIONS_LAW)
    seed = common.shuffle_seed()
    pt = compute_experiments.positions_test(view.model, words, seed)
    labels = pt.plain.original.labels
    moved = [labels[p] for p in pt.perm]
    left, right = st.columns([1, 4], vertical_alignment="center")
    left.button("Shuffle again", key=common.SHUFFLE, on_click=common.next_shuffle, icon=":material/shuffle:")
    shown = ", ".join(quote(w) for w in moved[:12]) + (", …" if len(moved) > 12 else "")
    right.markdown(f"Shuffle {seed}: the new order is {shown}.")
    if cfg.causal:
        st.info(
            "The causal mask is switched off for this experiment: a mask knows positions too (query i "
            f"sees keys ≤ i). With it on and no positions, the same shuffle changes the weights by up to "
            f"{fmt(pt.masked.weights_error, '.3f')}.",
            icon=":material/info:",
        )

    errors = pd.DataFrame(
        {
            "inputs": ["X (no positions)", "X + sinusoidal positions"],
            "max |A' − P·A·Pᵀ|, all heads": [pt.plain.weights_error, pt.encoded.weights_error],
            "max |attn' − P·attn|": [pt.plain.attn_error, pt.encoded.attn_error],
            "max |out' − P·out|": [pt.plain.output_error, pt.encoded.output_error],
        }
    )
    tables.table(errors, {c: ".3e" for c in errors.columns[1:]})

    domain = charts.weight_domain(pt.plain.original.weights[h], pt.plain.shuffled.weights[h])
    axes = dict(x_title="key", y_title="query")
    two_maps(
        view,
        dict(
            matrix=pt.plain.original.weights[h],
            rows=labels,
            cols=labels,
            title=f"A: original order, head {h}",
            signed=False,
            domain=domain,
            key="xp_pos_a",
            **axes,
        ),
        dict(
            matrix=pt.plain.shuffled.weights[h],
            rows=moved,
            cols=moved,
            title="A': shuffled, no positions",
            signed=False,
            domain=domain,
            key="xp_pos_shuffled",
            **axes,
        ),
    )
    st.caption(
        "Same colours, same numbers: A' is A with its rows and columns moved to the new order. "
        "Find any pair of tokens in both maps."
    )
    diff_plain, diff_encoded = pt.weight_diff(pt.plain)[h], pt.weight_diff(pt.encoded)[h]
    domain = charts.symmetric_domain(diff_plain, diff_encoded)
    two_maps(
        view,
        dict(
            matrix=diff_plain,
            rows=labels,
            cols=labels,
            title="Pᵀ·A'·P − A, no positions",
            legend="weight change",
            domain=domain,
            key="xp_pos_diff_plain",
            fmt=".0e",
            **axes,
        ),
        dict(
            matrix=diff_encoded,
            rows=labels,
            cols=labels,
            title="Pᵀ·A'·P − A, with sinusoidal positions",
            legend="weight change",
            domain=domain,
            key="xp_pos_diff_encoded",
            **axes,
        ),
    )
    st.caption("Both shuffled maps put back in the original order, minus the original: one colour scale.")

    outputs = pd.DataFrame(
        {
            "new position": range(len(moved)),
            "token": moved,
            "was at": pt.perm,
            "max |out' − out|, no positions": pt.row_output_error(pt.plain),
            "max |out' − out|, with positions": pt.row_output_error(pt.encoded),
        }
    )
    tables.table(outputs, {c: ".3e" for c in outputs.columns[3:]})

    C, N = cfg.d_model, pt.encoding.shape[0]
    positions = [str(p) for p in range(N)]
    dims = [str(c) for c in range(C)]
    if C <= 64:  # positions down, dimensions across
        charts.heatmap(
            pt.encoding,
            positions,
            dims,
            title=f"the sinusoidal code E: {N} positions × {C} dimensions",
            x_title="dimension",
            y_title="position",
            domain=(-1.0, 1.0),
            key="xp_pos_code",
            present=present,
            width=view.width,
            area=560,
        )
    else:  # too many dimensions to fit across: turn it
        charts.heatmap(
            pt.encoding.T,
            dims,
            positions,
            title=f"the sinusoidal code E, turned: {C} dimensions × {N} positions",
            x_title="position",
            y_title="dimension",
            domain=(-1.0, 1.0),
            key="xp_pos_code",
            present=present,
            width=view.width,
            area=560,
        )
    st.caption(
        f"Every position gets its own pattern: fast waves in the first dimensions, slow ones later. "
        f"This sentence uses positions 0 to {len(words) - 1}."
    )
    layout.latex(
        view,
        r"E_{p,\,2i} = \sin\!\big(p / 10000^{2i/d_{model}}\big),\qquad "
        r"E_{p,\,2i+1} = \cos\!\big(p / 10000^{2i/d_{model}}\big)",
    )

    layout.notice(said.positions_notice(pt, h, labels, cfg.residual))
    footer.exports(
        "experiment-positions",
        pt.encoded.original,
        {
            f"A head {h}": (pt.plain.original.weights[h], labels, labels),
            f"A' shuffled head {h}": (pt.plain.shuffled.weights[h], moved, moved),
            f"difference with positions head {h}": (diff_encoded, labels, labels),
            "sinusoidal code": (pt.encoding, positions, dims),
        },
        code=["experiments.shuffle", "experiments.positions_test"],
    )
