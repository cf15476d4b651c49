"""Experiments: three design choices made visible (÷√d_head, positions, the causal mask), live numbers."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine import analysis, experiments as xp
from ui import charts, compute, frame, layout, session

SAMPLES, SEED, ROWS = xp.SAMPLES, xp.SEED, xp.ROWS
SECTIONS = {"scale": "1 · Why ÷ √d_head", "init": "2 · ÷ √d_head in this block", "positions": "3 · Why positions",
            "mask": "4 · Why a causal mask"}
ORANGE, BLUE, GREY = "#e8710a", "#3b9ae1", "#8b95a1"   # visible on light and dark backgrounds
COLOURS = {xp.RAW: ORANGE, xp.SCALED: BLUE, "÷ √d_head": BLUE, "raw (no ÷√d)": ORANGE, "uniform rows": GREY}
SIDE_BY_SIDE = 8                          # longest sentence whose two maps sit side by side, readable at 1280 px

v = frame.view()
layout.header(
    v,
    "Experiments: why?",
    "The articles divide the scores by √d_head, mention positions and use an optional mask without "
    "showing why. Each experiment below changes one of these choices and measures what happens, "
    "with the same engine and the sidebar's block.",
    r"\text{softmax}\Big(\frac{Q K^\top}{\sqrt{d_{head}}} + M\Big)\, V,\qquad "
    r"Q, K, V \text{ computed from } X + P",
)
cfg, words, h, present = v.config, v.words, v.head, v.present


def lines(table: pd.DataFrame, x: str, y: str, *, series: list[str], reference: str, x_title: str,
          y_title: str, x_values: list, log_base: int, y_log: bool, pick: float, fmt: str) -> None:
    charts.lines(table, x, y, series=[(name, COLOURS[name]) for name in series], reference=reference,
                 x_title=x_title, y_title=y_title, x_values=x_values, log_base=log_base, y_log=y_log, pick=pick,
                 fmt=fmt, present=present)


def pair(*maps: dict) -> None:
    """Two heatmaps of one comparison: side by side while they fit a half-width column, else stacked."""
    side = len(words) <= SIDE_BY_SIDE
    cols = st.columns(2) if side else [st.container(), st.container()]
    for col, spec in zip(cols, maps):
        with col:
            charts.heatmap(**spec, present=present, max_width=230 if side else 560)


def small(x: float) -> str:
    """A rounding-sized number: 'exactly 0' when it is, else two significant digits."""
    return "exactly 0" if x == 0 else f"{x:.1e}"


def prose(text: str) -> None:
    if not present:
        st.markdown(text)


# --------------------------------------------------------------------------- 1 · why ÷ √d_head
def scaling_section() -> None:
    st.subheader(SECTIONS["scale"])
    prose("Give every query and key entry a spread of 1. A score adds up d_head products, each with "
          "variance 1, so the scores spread out like √d_head: the wider the head, the more extreme the "
          "softmax. Dividing by √d_head brings the variance back to 1 for any width.")
    st.latex(r"\operatorname{Var}(q\cdot k) = \sum_{d=1}^{d_{head}} \operatorname{Var}(q_d\,k_d) = d_{head},"
             r"\qquad \operatorname{Var}\Big(\frac{q\cdot k}{\sqrt{d_{head}}}\Big) = 1")
    d = st.select_slider("d_head of the random q and k (powers of 2)", options=list(xp.D_HEADS), value=64,
                         key=session.XP_DHEAD, persist_state="session")
    curve = compute.variance_curve(xp.D_HEADS, SAMPLES, SEED)
    i = curve.index(d)
    T = len(words)
    rnd = compute.random_rows(d, T, ROWS, SEED)
    cols = st.columns(4)
    cols[0].metric("raw variance", f"{curve.raw[i]:.2f}", border=True,
                   help=f"Var(q·k) measured at d_head = {d}; theory: {d}")
    cols[1].metric("scaled variance", f"{curve.scaled[i]:.3f}", border=True,
                   help=f"Var(q·k / √{d}) measured; theory: 1")
    cols[2].metric("max weight, raw", f"{rnd.raw_peak:.3f}", border=True,
                   help=f"softmax without ÷√d: mean largest weight over {ROWS} random rows of {T} keys; "
                        f"a uniform row has {rnd.uniform:.3f}")
    cols[3].metric("max weight, ÷√d", f"{rnd.scaled_peak:.3f}", border=True,
                   help=f"softmax with ÷√d: mean largest weight over {ROWS} random rows of {T} keys; "
                        f"a uniform row has {rnd.uniform:.3f}")
    left, right = st.columns([3, 1], gap="medium")
    with left:
        lines(pd.DataFrame(curve.rows()), "d_head", "variance", x_title="d_head (log scale)",
              y_title="variance of the scores (log scale)", series=[xp.RAW, xp.SCALED],
              reference="datum.kind == 'theory'", x_values=list(xp.D_HEADS), log_base=2, y_log=True, pick=d,
              fmt="d")
    with right:
        st.caption(f"Points: measured over {SAMPLES:,} random (q, k) pairs per width (seed {SEED}). "
                   "Dashed: theory, y = d_head for the raw scores and y = 1 for the scaled ones. "
                   f"The dotted rule marks d_head = {d}.")
        st.caption(f"Max weight per row: the softmax of one random query against {T} random keys (the "
                   f"sidebar's sequence length), averaged over {ROWS} rows. A uniform row has {rnd.uniform:.3f}.")

    said = (f"at d_head = {d} the raw scores' variance is {curve.raw[i]:.1f}, {abs(curve.raw_off[i]):.1%} from "
            f"the theory's {d}, and the scaled scores' {curve.scaled[i]:.2f} (theory 1); over {T} random keys the "
            f"softmax row peaks at {rnd.raw_peak:.2f} without the division and {rnd.scaled_peak:.2f} with it "
            f"(uniform {rnd.uniform:.2f}). Section 2 shows what this does in the sidebar's block.")
    layout.notice(said)
    widths = [str(w) for w in xp.D_HEADS]
    layout.exports("experiment-variance", compute.trace(cfg, words), {
        "variance of q·k by d_head": (np.column_stack([curve.raw, curve.scaled]), widths, ["raw", "scaled"]),
    }, code=[analysis.score_variance, xp.random_rows])


# --------------------------------------------------------------------------- 2 · ÷ √d_head in this block
def init_section() -> None:
    st.subheader(SECTIONS["init"])
    prose("The same division in the sidebar's block, next to the block without it. How large the weights "
          "are drawn decides how large the scores are: small weights give nearly uniform rows, large ones "
          "push rows towards one-hot, and the division only removes the part that comes from the width.")
    session.init_scale_for(v.controls.preset, min(xp.INIT_SCALES, key=lambda s: abs(s - cfg.init_scale)))
    s = st.select_slider("Init scale s: how large the weights are drawn (works like 1 / temperature)",
                         options=list(xp.INIT_SCALES), key=session.XP_INIT, format_func=lambda s: f"×{s:g}",
                         persist_state="session",
                         help=f"This preset draws weights with std = {cfg.init_scale:g}"
                              + ("" if cfg.init == "fixed" else " / √fan_in") + ". Every score grows with s².")
    rule = "s^2" if cfg.init == "fixed" else r"s^2/\text{fan\_in}"
    st.latex(rf"W_Q, W_K \sim \mathcal{{N}}(0,\ {rule}) \;\Rightarrow\; Q K^\top \propto s^2:\quad "
             r"\text{softmax}\Big(s^2\,\frac{Q_1 K_1^\top}{\sqrt{d_{head}}}\Big),\ \ \text{temperature} = 1/s^2")
    r = compute.scaling_rows(cfg, words, s)
    sweep = compute.init_sweep(cfg, words, xp.INIT_SCALES)
    t = r.scaled
    mask = t.visible if cfg.causal else None
    domain = charts.weight_domain(r.scaled.weights[h], r.unscaled.weights[h])
    weights = dict(rows=t.labels, cols=t.labels, x_title="key", y_title="query", signed=False, domain=domain,
                   mask=mask)
    pair(dict(matrix=r.scaled.weights[h], title=f"÷ √{cfg.d_head}, weights ×{s:g}, head {h}", key="xp_map_scaled",
              **weights),
         dict(matrix=r.unscaled.weights[h], title=f"raw (no ÷√d), weights ×{s:g}, head {h}", key="xp_map_unscaled",
              **weights))
    rows = pd.DataFrame({
        "query": list(t.labels),
        "entropy ÷√d": r.entropy_scaled[h], "entropy, raw": r.entropy_unscaled[h],
        "entropy, uniform": r.entropy_uniform,
        "max weight ÷√d": r.peak_scaled[h], "max weight, raw": r.peak_unscaled[h],
        "one-hot ÷√d": r.one_hot_scaled[h], "one-hot, raw": r.one_hot_unscaled[h],
    })
    layout.table(rows, {c: ".3f" for c in rows.columns[1:6]})
    st.caption(f"Head {h}; raw = without ÷√d. Entropy in bits: 0 when one key takes everything, log₂(keys) "
               f"when the row is uniform. One-hot: one key takes at least {xp.ONE_HOT:.0%} of the row.")
    lines(pd.DataFrame(sweep.rows()), "init_scale", "peak", x_title="init scale s (log scale)",
          y_title="mean max weight per row", series=["÷ √d_head", "raw (no ÷√d)", "uniform rows"],
          reference="datum.series == 'uniform rows'", x_values=list(xp.INIT_SCALES), log_base=10, y_log=False,
          pick=s, fmt="~g")
    st.caption("Every head and row of this block at each init scale; 1 means every row is one-hot, the "
               "dashed line is a uniform row.")

    on, off = r.one_hot_count
    peak_on, peak_off = r.mean_peak
    said = ""
    if off > on:
        said += (f"In this block at ×{s:g}, {off} of {r.choice_rows} rows are nearly one-hot without the division "
                 f"({on} with it): such a row copies one token and ignores the rest. ")
    elif on:
        said += (f"At ×{s:g} the weights are so large that even the scaled block has {on} of {r.choice_rows} "
                 f"rows nearly one-hot: the division only fixes the width, not oversized weights. ")
    else:
        said += f"In this block at ×{s:g} no row is nearly one-hot, with or without the division. "
    if peak_on < 1.25 * r.uniform_peak:
        own = v.controls.preset == "part4" and s == cfg.init_scale
        said += (f"The rows are almost uniform: the largest weight averages {peak_on:.2f}, a uniform row "
                 f"{r.uniform_peak:.2f}; small weights make small scores, like a high temperature"
                 + (". That is the Part 4 preset as published: its ×0.1 weights spread attention almost evenly."
                    if own else "."))
    else:
        said += (f"The largest weight averages {peak_on:.2f} with the division and {peak_off:.2f} without "
                 f"(uniform {r.uniform_peak:.2f}).")
    layout.notice(said)
    layout.exports("experiment-scale", t, {
        f"weights ÷√d head {h}": (r.scaled.weights[h], t.labels, t.labels),
        f"weights no scaling head {h}": (r.unscaled.weights[h], t.labels, t.labels),
    }, code=[xp.scaling_rows])


# --------------------------------------------------------------------------- 3 · positions
def positions_section() -> None:
    st.subheader(SECTIONS["positions"])
    prose("Attention compares every token with every other, but nothing in QKᵀ says where a token "
          "stands. Shuffle the sentence: without positions the block computes the very same numbers, "
          "only moved around. Adding a position code to every input breaks that symmetry.")
    st.latex(r"X' = P X \;\Rightarrow\; A' = \text{softmax}\Big(\frac{P Q (P K)^\top}{\sqrt{d_{head}}}\Big)"
             r" = P A P^\top,\qquad \text{out}' = P\,\text{out}")
    st.latex(r"\text{with positions: } P X + E \neq P (X + E) \;\Rightarrow\; A' \neq P A P^\top")
    seed = session.shuffle_seed()
    pt = compute.positions_test(cfg, words, seed)
    labels = pt.plain.original.labels
    moved = [labels[p] for p in pt.perm]
    left, right = st.columns([1, 4], vertical_alignment="center")
    left.button("Shuffle again", key=session.XP_SHUFFLE, on_click=session.next_shuffle, icon=":material/shuffle:")
    shown = ", ".join(layout.q(w) for w in moved[:12]) + (", …" if len(moved) > 12 else "")
    right.markdown(f"Shuffle {seed}: the new order is {shown}.")
    if cfg.causal:
        st.info("The causal mask is switched off for this experiment: a mask knows positions too (query i "
                f"sees keys ≤ i). With it on and no positions, the same shuffle changes the weights by up to "
                f"{pt.masked.weights_error:.3f}.", icon=":material/info:")

    errors = pd.DataFrame({
        "inputs": ["X (no positions)", "X + sinusoidal positions"],
        "max |A' − P·A·Pᵀ|, all heads": [pt.plain.weights_error, pt.encoded.weights_error],
        "max |out' − P·out|": [pt.plain.output_error, pt.encoded.output_error],
    })
    layout.table(errors, {c: ".3e" for c in errors.columns[1:]})

    domain = charts.weight_domain(pt.plain.original.weights[h], pt.plain.shuffled.weights[h])
    axes = dict(x_title="key", y_title="query")
    pair(dict(matrix=pt.plain.original.weights[h], rows=labels, cols=labels, title=f"A: original order, head {h}",
              signed=False, domain=domain, key="xp_pos_a", **axes),
         dict(matrix=pt.plain.shuffled.weights[h], rows=moved, cols=moved, title="A': shuffled, no positions",
              signed=False, domain=domain, key="xp_pos_shuffled", **axes))
    st.caption("Same colours, same numbers: A' is A with its rows and columns moved to the new order. "
               "Find any pair of tokens in both maps.")
    diff_plain, diff_encoded = pt.weight_diff(pt.plain)[h], pt.weight_diff(pt.encoded)[h]
    domain = charts.symmetric_domain(diff_plain, diff_encoded)
    pair(dict(matrix=diff_plain, rows=labels, cols=labels, title="Pᵀ·A'·P − A, no positions", domain=domain,
              key="xp_pos_diff_plain", fmt=".0e", **axes),
         dict(matrix=diff_encoded, rows=labels, cols=labels, title="Pᵀ·A'·P − A, with sinusoidal positions",
              domain=domain, key="xp_pos_diff_encoded", **axes))
    st.caption("Both shuffled maps put back in the original order, minus the original: one colour scale.")

    outputs = pd.DataFrame({
        "new position": range(len(moved)), "token": moved, "was at": pt.perm,
        "max |out' − out|, no positions": pt.row_output_error(pt.plain),
        "max |out' − out|, with positions": pt.row_output_error(pt.encoded),
    })
    layout.table(outputs, {c: ".3e" for c in outputs.columns[3:]})

    C, N = cfg.d_model, pt.encoding.shape[0]
    positions = [str(p) for p in range(N)]
    dims = [str(c) for c in range(C)]
    if C <= 64:                                            # positions down, dimensions across
        charts.heatmap(pt.encoding, positions, dims, title=f"the sinusoidal code E: {N} positions × {C} dimensions",
                       x_title="dimension", y_title="position", domain=(-1.0, 1.0), key="xp_pos_code",
                       present=present, max_width=560)
    else:                                                  # too many dimensions to fit across: turn it
        charts.heatmap(pt.encoding.T, dims, positions, title=f"the sinusoidal code E, turned: {C} dimensions × "
                       f"{N} positions", x_title="position", y_title="dimension", domain=(-1.0, 1.0),
                       key="xp_pos_code", present=present, max_width=560)
    st.caption(f"Every position gets its own pattern: fast waves in the first dimensions, slow ones later. "
               f"This sentence uses positions 0 to {len(words) - 1}.")
    st.latex(r"E_{p,\,2i} = \sin\!\big(p / 10000^{2i/d_{model}}\big),\qquad "
             r"E_{p,\,2i+1} = \cos\!\big(p / 10000^{2i/d_{model}}\big)")

    i, j, before, after = pt.biggest_change(pt.encoded, h)
    said = (f"without positions the shuffled block's attention, put back in order, differs from the original "
            f"by at most {small(pt.plain.weights_error)} and its outputs by {small(pt.plain.output_error)}: "
            f"rounding only, the block cannot tell the orders apart. ")
    if pt.encoded.weights_error > 1e-9:
        said += (f"With sinusoidal positions the same shuffle changes the weights by up to "
                 f"{pt.encoded.weights_error:.3f} and the outputs by up to {pt.encoded.output_error:.3f}; in head {h} "
                 f"the weight of {layout.q(labels[i])} on {layout.q(labels[j])} goes from {before:.3f} to {after:.3f}.")
    else:
        said += (f"With sinusoidal positions the numbers barely move here either (up to "
                 f"{pt.encoded.weights_error:.1e}).")
    layout.notice(said)
    layout.exports("experiment-positions", pt.encoded.original, {
        f"A head {h}": (pt.plain.original.weights[h], labels, labels),
        f"A' shuffled head {h}": (pt.plain.shuffled.weights[h], moved, moved),
        f"difference with positions head {h}": (diff_encoded, labels, labels),
        "sinusoidal code": (pt.encoding, positions, dims),
    }, code=[analysis.shuffle, xp.positions_test])


# --------------------------------------------------------------------------- 4 · causal mask
def mask_section() -> None:
    st.subheader(SECTIONS["mask"])
    prose("A model that writes text one token at a time cannot look at tokens it has not written yet. "
          "The mask sets every score above the diagonal to −∞ before the softmax: those weights become "
          "exactly 0, and each row shares its weight among the tokens up to itself.")
    st.latex(r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases},\qquad "
             r"w_{ij} = \frac{e^{s_{ij} + M_{ij}}}{\sum_{j' \le i} e^{s_{ij'}}} "
             r"= \frac{A_{ij}}{\sum_{j' \le i} A_{ij'}}\quad (j \le i)")
    ct = compute.causal_test(cfg, words)
    labels = ct.open.labels
    domain = charts.weight_domain(ct.open.weights[h], ct.masked.weights[h])
    weights = dict(rows=labels, cols=labels, x_title="key", y_title="query", signed=False, domain=domain)
    pair(dict(matrix=ct.open.weights[h], title=f"no mask, head {h}", key="xp_mask_open", **weights),
         dict(matrix=ct.masked.weights[h], title=f"causal mask, head {h}", mask=ct.masked.visible, key="xp_mask_on",
              mask_word="hidden", **weights))
    rows = pd.DataFrame({
        "query": list(labels), "keys it sees": range(1, ct.T + 1),
        "weight on its past, no mask": ct.past_share[h], "row sum with mask": ct.row_sums[h],
        "max |masked − past ÷ share|": ct.renorm_row_error[h],
    })
    layout.table(rows, {"weight on its past, no mask": ".4f", "row sum with mask": ".6f",
                 "max |masked − past ÷ share|": ".1e"})
    st.caption(f"Head {h}. A masked row is the unmasked row cut to its past and divided by the weight the "
               "past had: the last column compares the two.")
    st.markdown("##### Generating one token at a time")
    prose("Grow the sentence the way a model writes it: first token 0, then tokens 0–1, and so on. Row i "
          "is computed for the first time when token i arrives. Does it change when later tokens come?")
    steps = pd.DataFrame({
        "row": list(labels),
        "weights change, mask": ct.drift_masked, "weights change, no mask": ct.drift_open,
        "output change, mask": ct.output_drift_masked, "output change, no mask": ct.output_drift_open,
    })
    layout.table(steps, {c: ".2e" for c in steps.columns[1:]})
    st.caption("Largest change of row i (over every head) between the step that produced token i and the "
               "whole sentence. The last row is computed at the last step, so it cannot change.")

    k = int(ct.past_share[h, :-1].argmin()) if ct.T > 1 else 0
    future = 1 - ct.past_share[h, k]
    said = (f"without the mask {layout.q(labels[k])} gives {future:.0%} of its weight in head {h} to tokens "
            f"that come after it. The mask hides them (largest hidden weight: {ct.hidden_weight:g}) and every "
            f"masked row is the unmasked row's past divided by its share (max difference "
            f"{small(ct.renorm_error)}), so it sums to 1 over the keys it sees. Grown one token at a time, the "
            f"masked rows never change beyond rounding (weights: {small(ct.drift_masked.max())}, outputs: "
            f"{small(ct.output_drift_masked.max())}): a generator can keep every earlier row and compute only "
            f"the new one. Without the mask, the row of {layout.q(labels[0])} changes by "
            f"{ct.drift_open[0]:.3f} by the time all {ct.T} tokens are there.")
    layout.notice(said)
    layout.exports("experiment-mask", ct.masked, {
        f"weights no mask head {h}": (ct.open.weights[h], labels, labels),
        f"weights causal head {h}": (ct.masked.weights[h], labels, labels),
    }, code=[xp.growing, xp.causal_test])


section = st.segmented_control("Experiment", options=list(SECTIONS), format_func=SECTIONS.get, default="scale",
                               required=True, key=session.XP_SECTION, persist_state="session") or "scale"
{"scale": scaling_section, "init": init_section, "positions": positions_section, "mask": mask_section}[section]()
