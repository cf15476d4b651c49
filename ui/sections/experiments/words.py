"""The Experiments page's live words: each section's 'what to notice' and the sentences that depend on the
settings, from engine.experiments' results (pure Python; labels go through `quote`)."""

from __future__ import annotations

from collections.abc import Sequence

from engine import experiments as xp
from ui.prose import text
from ui.prose.numbers import every, fmt, is_rounding
from ui.prose.text import Quote


def at_most(x: float, scale: float = 1.0) -> str:
    """'not at all', 'only by rounding (6·10⁻¹⁷)' or 'by up to 0.123': how much something changed."""
    if x == 0:
        return "not at all"
    if is_rounding(x, scale):
        return f"only by rounding ({fmt(abs(x), '.0e')})"
    return f"by up to {fmt(x, '.3f')}"


INTRO = (
    "Three choices the articles make without showing why: the scores are divided by a square root "
    "(Day 33 divides by √d_model, which is √d_head with its single head; Part 4 writes √d_k, which is "
    "d_head here; with more heads this app divides by √d_head, as multi-head attention does), "
    "positions are mentioned, and a mask is optional. Each experiment below changes one of these "
    "choices and measures what happens, with the same engine and the sidebar's block."
)

POSITIONS_LAW = (
    r"\text{with positions: } P X + E \neq P (X + E) \text{ in general} \;\Rightarrow\; "
    r"A' \neq P A P^\top \text{ in general}"
)


# --------------------------------------------------------------------------- 2 · init scale
INIT_LABEL = "Init scale s: how large the weights are drawn (every score grows with s², an inverse temperature)"


def init_notice(r: xp.ScalingRows, published: bool, trained: bool = False) -> str:
    """Section 2's notice. `published`: the sidebar is exactly the Part 4 preset at its own scale."""
    s = r.init_scale
    on, off = r.one_hot_count
    peak_on, peak_off = r.mean_peak
    rows = f"{r.choice_rows} rows that have a choice"
    if off > on:
        said = (
            f"In this block at ×{s:g}, {off} of the {rows} are nearly one-hot without the division "
            f"({on} with it): such a row copies one token and ignores the rest. "
        )
    elif on and trained and s == r.base_scale:
        said = (
            f"The trained block has {on} of its {rows} nearly one-hot even with the division; the task it was "
            "trained on asks each row for one key. "
        )
    elif on:
        said = (
            f"At ×{s:g} the weights are so large that even the scaled block has {on} of its {rows} nearly "
            "one-hot: the division only fixes the width, not oversized weights. "
        )
    else:
        said = f"In this block at ×{s:g} no row is nearly one-hot, with or without the division. "
    if peak_on < 1.25 * r.uniform_peak:
        said += (
            f"The rows are almost uniform: the largest weight averages {fmt(peak_on, '.2f')}, a uniform row "
            f"{fmt(r.uniform_peak, '.2f')}; small weights make small scores, like a high temperature (a "
            f"small inverse temperature s²)"
        )
        return said + (
            ". That is the Part 4 preset as published: its ×0.1 weights spread attention almost evenly."
            if published
            else "."
        )
    return said + (
        f"The largest weight averages {fmt(peak_on, '.2f')} with the division and "
        f"{fmt(peak_off, '.2f')} without (uniform {fmt(r.uniform_peak, '.2f')})."
    )


# --------------------------------------------------------------------------- 3 · positions
def positions_notice(
    pt: xp.PositionTest, head: int, labels: Sequence[str], residual: bool, quote: Quote = text.quote
) -> str:
    """Section 3's notice: what the shuffle changes without and with positions, attention's own part first."""
    plain, enc = pt.plain, pt.encoded
    said = (
        f"without positions the shuffled block's attention, put back in order, differs from the original "
        f"{at_most(plain.weights_error)} and its outputs {at_most(plain.output_error)}: the block cannot "
        "tell the orders apart. "
    )
    if is_rounding(enc.weights_error):
        return said + f"With sinusoidal positions the weights barely move here either ({at_most(enc.weights_error)})."
    i, j, before, after = pt.biggest_change(enc, head)
    said += (
        f"With sinusoidal positions the same shuffle changes the weights {at_most(enc.weights_error)} "
        f"(in head {head} the weight of {quote(labels[i])} on {quote(labels[j])} goes from "
        f"{fmt(before, '.3f')} to {fmt(after, '.3f')}) and attention's own output {at_most(enc.attn_error)}"
    )
    if residual:
        said += (
            f". The block's output changes {at_most(enc.output_error)}, but most of that is the position "
            f"code itself, carried through the residual (the inputs differ {at_most(enc.input_error)}): "
            "evidence that attention sees order is the change in its weights and its own output"
        )
    else:
        said += f", and the block's output {at_most(enc.output_error)} (this preset has no residual)"
    return said + "."


# --------------------------------------------------------------------------- 4 · causal mask
def mask_notice(ct: xp.CausalTest, head: int, quote: Quote = text.quote) -> str:
    """Section 4's notice: what the unmasked rows give the future, and that masked rows never change."""
    labels, T = ct.open.labels, ct.T
    k = int(ct.past_share[head, :-1].argmin()) if T > 1 else 0
    future = 1 - ct.past_share[head, k]
    return (
        f"without the mask {quote(labels[k])} gives {fmt(future, '.0%')} of its weight in head {head} to tokens "
        f"that come after it. The mask hides them (largest hidden weight: {ct.hidden_weight:g}) and every "
        f"masked row is the unmasked row's past divided by its share (they differ "
        f"{at_most(ct.renorm_error)}), so it sums to 1 over the keys it sees. Grown one token at a time, "
        f"the masked rows change {at_most(ct.drift_masked.max())} (outputs: "
        f"{at_most(ct.output_drift_masked.max())}): a generator can keep every earlier row and compute "
        f"only the new one. Without the mask, the row of {quote(labels[0])} changes by "
        f"{fmt(ct.drift_open[0], '.3f')} by the time {every(T, 'token')} are there."
    )
