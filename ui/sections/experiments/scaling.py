"""Sections 1 and 2: why the scores are divided by √d_head, with random vectors, then in the sidebar's block."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from engine import experiments as xp
from ui import charts, compute, compute_experiments
from ui.page import footer, layout, tables
from ui.prose import experiments as said
from ui.sections.experiments import common
from ui.sections.experiments.common import TITLES, lines, prose, two_maps
from ui.shell import state
from ui.shell.view import View


# --------------------------------------------------------------------------- 1 · why ÷ √d_head
def random_vectors(view: View) -> None:
    words = view.words
    st.subheader(TITLES["scale"])
    prose(
        view,
        "Give every query and key entry a spread of 1. A score adds up d_head products, each with "
        "variance 1, so the scores spread out like √d_head: the wider the head, the more extreme the "
        "softmax. Dividing by √d_head brings the variance back to 1 for any width.",
    )
    st.latex(
        r"\operatorname{Var}(q\cdot k) = \sum_{d=0}^{d_{head}-1} \operatorname{Var}(q_d\,k_d) = d_{head},"
        r"\qquad \operatorname{Var}\Big(\frac{q\cdot k}{\sqrt{d_{head}}}\Big) = 1"
    )
    d = st.select_slider(
        "d_head of the random q and k (powers of 2)",
        options=list(xp.D_HEADS),
        value=64,
        key=common.DHEAD,
        persist_state="session",
    )
    curve = compute_experiments.variance_curve(xp.D_HEADS, xp.SAMPLES, xp.SEED)
    i = curve.index(d)
    T = len(words)
    rnd = compute_experiments.random_rows(d, T, xp.ROWS, xp.SEED)
    cols = st.columns(4)
    cols[0].metric(
        "raw variance", f"{curve.raw[i]:.2f}", border=True, help=f"Var(q·k) measured at d_head = {d}; theory: {d}"
    )
    cols[1].metric(
        "scaled variance", f"{curve.scaled[i]:.3f}", border=True, help=f"Var(q·k / √{d}) measured; theory: 1"
    )
    cols[2].metric(
        "max weight, raw",
        f"{rnd.raw_peak:.3f}",
        border=True,
        help=f"softmax without ÷√d: mean largest weight over {xp.ROWS} random rows of {T} keys; "
        f"a uniform row has {rnd.uniform:.3f}",
    )
    cols[3].metric(
        "max weight, ÷√d",
        f"{rnd.scaled_peak:.3f}",
        border=True,
        help=f"softmax with ÷√d: mean largest weight over {xp.ROWS} random rows of {T} keys; "
        f"a uniform row has {rnd.uniform:.3f}",
    )
    left, right = st.columns([3, 1], gap="medium")
    with left:
        lines(
            view,
            pd.DataFrame(curve.long_table()),
            "d_head",
            "variance",
            x_title="d_head (log scale)",
            y_title="variance of the scores (log scale)",
            series=[xp.RAW, xp.SCALED],
            reference="datum.kind == 'theory'",
            x_values=list(xp.D_HEADS),
            log_base=2,
            y_log=True,
            pick=d,
            fmt="d",
        )
    with right:
        st.caption(
            f"Points: measured over {xp.SAMPLES:,} random (q, k) pairs per width (seed {xp.SEED}). "
            "Dashed: theory, y = d_head for the raw scores and y = 1 for the scaled ones. "
            f"The dotted rule marks d_head = {d}."
        )
        st.caption(
            f"Max weight per row: the softmax of one random query against {T} random keys (the "
            f"sidebar's sequence length), averaged over {xp.ROWS} rows. A uniform row has {rnd.uniform:.3f}."
        )

    said = (
        f"at d_head = {d} the raw scores' variance is {curve.raw[i]:.1f}, {abs(curve.raw_off[i]):.1%} from "
        f"the theory's {d}, and the scaled scores' {curve.scaled[i]:.2f} (theory 1); over {T} random keys the "
        f"softmax row peaks at {rnd.raw_peak:.2f} without the division and {rnd.scaled_peak:.2f} with it "
        f"(uniform {rnd.uniform:.3f}). Section 2 shows what this does in the sidebar's block."
    )
    layout.notice(said)
    widths = [str(w) for w in xp.D_HEADS]
    footer.exports(
        "experiment-variance",
        compute.trace(view.model, words),
        {
            "variance of q·k by d_head": (np.column_stack([curve.raw, curve.scaled]), widths, ["raw", "scaled"]),
        },
        code=["experiments.score_variance", "experiments.random_rows"],
    )


# --------------------------------------------------------------------------- 2 · ÷ √d_head in this block
def in_this_block(view: View) -> None:
    cfg, words, h = view.config, view.words, view.head
    st.subheader(TITLES["init"])
    trained = view.training is not None
    prose(
        view,
        "The same division in the sidebar's block, next to the block without it. How large the weights "
        "are decides how large the scores are: small weights give nearly uniform rows, large ones "
        "push rows towards one-hot, and the division only removes the part that comes from the width."
        + (
            " Here the weights are the trained ones, multiplied by the slider's scale over the preset's own "
            f"(×{cfg.init_scale:g} is the trained model itself)."
            if trained
            else ""
        ),
    )
    common.init_scale_for(view.controls.preset, min(xp.INIT_SCALES, key=lambda s: abs(s - cfg.init_scale)))
    s = st.select_slider(
        said.INIT_LABEL,
        options=list(xp.INIT_SCALES),
        key=common.INIT,
        format_func=lambda s: f"×{s:g}",
        persist_state="session",
        help=(
            f"The trained weights are multiplied by s / {cfg.init_scale:g}."
            if trained
            else f"This preset draws weights with std = {cfg.init_scale:g}"
            + ("" if cfg.init == "fixed" else " / √fan_in")
        )
        + " Every score grows with s².",
    )
    rule = "s^2" if cfg.init == "fixed" else r"s^2/\text{fan\_in}"
    weights_are = (
        rf"W_Q, W_K = \frac{{s}}{{{cfg.init_scale:g}}}\,W^{{\text{{trained}}}}_{{Q,K}}"
        if trained
        else rf"W_Q, W_K \sim \mathcal{{N}}(0,\ {rule})\ \text{{(the initial draw)}}"
    )
    st.latex(
        rf"{weights_are} \;\Rightarrow\; Q K^\top \propto s^2:\quad "
        r"\text{softmax}\Big(s^2\,\frac{Q_1 K_1^\top}{\sqrt{d_{head}}}\Big):\ \ \beta = s^2,\ \ \text{temperature} = 1/s^2"
        + (r"\quad(Q_1, K_1\text{: at } s = 1)" if trained else r"\quad(Q_1, K_1\text{: drawn at } s = 1)")
    )
    r = compute_experiments.scaling_rows(view.model, words, s)
    sweep = compute_experiments.init_sweep(view.model, words, xp.INIT_SCALES)
    t = r.scaled
    mask = t.mask
    domain = charts.weight_domain(r.scaled.weights[h], r.unscaled.weights[h])
    weights = dict(rows=t.labels, cols=t.labels, x_title="key", y_title="query", signed=False, domain=domain, mask=mask)
    two_maps(
        view,
        dict(
            matrix=r.scaled.weights[h],
            title=f"÷ √{cfg.d_head}, weights ×{s:g}, head {h}",
            key="xp_map_scaled",
            **weights,
        ),
        dict(
            matrix=r.unscaled.weights[h],
            title=f"raw (no ÷√d), weights ×{s:g}, head {h}",
            key="xp_map_unscaled",
            **weights,
        ),
    )
    table = pd.DataFrame(
        {
            "query": list(t.labels),
            "entropy ÷√d": r.entropy_scaled[h],
            "entropy, raw": r.entropy_unscaled[h],
            "entropy, uniform": r.entropy_uniform,
            "max weight ÷√d": r.peak_scaled[h],
            "max weight, raw": r.peak_unscaled[h],
            "one-hot ÷√d": r.one_hot_scaled[h],
            "one-hot, raw": r.one_hot_unscaled[h],
        }
    )
    tables.table(table, {c: ".3f" for c in table.columns[1:6]})
    st.caption(
        f"Head {h}; raw = without ÷√d. Entropy in bits: 0 when one key takes everything, log₂(keys) "
        f"when the row is uniform. One-hot: one key takes at least {xp.ONE_HOT:.0%} of the row."
    )
    lines(
        view,
        pd.DataFrame(sweep.long_table()),
        "init_scale",
        "peak",
        x_title="init scale s (log scale)",
        y_title="mean max weight per row",
        series=["÷ √d_head", "raw (no ÷√d)", "uniform rows"],
        reference="datum.series == 'uniform rows'",
        x_values=list(xp.INIT_SCALES),
        log_base=10,
        y_log=False,
        pick=s,
        fmt="~g",
    )
    st.caption(
        "Every head and row of this block at each init scale; 1 means every row is one-hot, the "
        "dashed line is a uniform row."
    )

    own = replace(view.controls, head=0, cell=None, present=False, beta=1.0)
    published = own == state.preset_controls("part4") and s == cfg.init_scale
    layout.notice(said.init_notice(r, published, trained))
    footer.exports(
        "experiment-scale",
        t,
        {
            f"weights ÷√d head {h}": (r.scaled.weights[h], t.labels, t.labels),
            f"weights no scaling head {h}": (r.unscaled.weights[h], t.labels, t.labels),
        },
        code=["experiments.scaling_rows"],
    )
