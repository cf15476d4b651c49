"""The scaled-scores page's live words: its intro (what a score is, what ÷√d_head does, measured) and what to
notice in the largest scaled score (pure Python)."""

from __future__ import annotations

import numpy as np

from engine import Trace, analysis
from ui.prose import stages, text
from ui.prose.numbers import fmt, next_to, pairs, three
from ui.prose.text import Quote


def _std(values: np.ndarray, visible: np.ndarray) -> float:
    return float(np.std(values[visible]))


def scores_intro(t: Trace) -> str:
    """What a score is and what ÷√d_head does, with this head's measured spread."""
    cfg = t.config
    said = (
        "A score is one query's dot product with one key, q·k = |q| |k| cos θ: large when both vectors "
        "are long and point the same way. It adds up d_head products, so it spreads more the wider the "
        "head: when the entries of q and k have variance 1, q·k has variance d_head. Dividing by "
        "√d_head stops the spread from growing with the head's width; it brings it near 1 only when "
        "the entries of q and k have variance 1. "
    )
    q_std, k_std = float(np.std(t.q)), float(np.std(t.k))
    every = np.broadcast_to(t.visible, t.scores.shape)  # (H, T, T)
    raw, scaled = _std(t.scores, every), _std(t.scaled, every)
    if cfg.scale_scores:
        said += (
            f"Here the entries of q and k have std {fmt(q_std, '.2f')} and {fmt(k_std, '.2f')}, and this "
            f"block's scaled scores spread with std {fmt(scaled, '.2f')} (raw {fmt(raw, '.2f')}, every head)"
        )
        product = q_std * k_std  # the scaled std of independent, mean-0 entries
        said += (
            f": {next_to(scaled / product)} the {fmt(product, '.2f')} ({fmt(q_std, '.2f')} × {fmt(k_std, '.2f')}) "
            "that entries drawn independently with mean 0 and those stds would give. "
            if product > 0
            else ". "
        )
    else:
        said += (
            f"{stages.scaling_off(' here')}: the scores go to the softmax as they are "
            f"(std {fmt(raw, '.2f')}, every head). "
        )
    return said + (
        "With the causal mask on, keys that come later are hidden."
        if cfg.causal
        else "The causal mask is off: every query sees every key."
    )


def scores_notice(t: Trace, head: int, quote: Quote = text.quote) -> str:
    """The largest scaled score worked out, and what the division does at these settings."""
    cfg = t.config
    found, top = analysis.largest_all(t.scaled[head])  # -inf (hidden) is never the largest
    (i, j), several = found[0], len(found) > 1
    raw = float(t.scores[head, i, j])
    pair = (
        f"the largest scaled score in head {head} is {quote(t.labels[i])} → {quote(t.labels[j])}"
        if not several
        else f"the largest scaled score in head {head} is shared by {pairs(found, t.labels, quote)}"
    )
    if not cfg.scale_scores:
        return (
            f"{pair}: {three(raw)}{' each' * several}. {stages.scaling_off()}: the softmax sees "
            "the raw scores and their full spread."
        )
    d = cfg.d_head
    divisor = float(np.sqrt(d))
    said = f"{pair}: {three(raw)} ÷ √{d} = {three(top)}{' each' * several}. "
    if d == 1:
        return said + (
            "With d_head = 1 the divisor is √1 = 1, so the division changes nothing: scaled and raw "
            "scores are the same numbers."
        )
    before, after = analysis.score_spread(t, head)  # the poll's question reads the same
    return said + (
        f"Dividing every score by the same √{d} = {fmt(divisor, '.3f')} keeps the order within each "
        f"row and shrinks the spread the softmax will see by that factor (std {three(before)} → "
        f"{three(after)})."
    )
