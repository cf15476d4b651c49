"""The Q/K/V page's live words: its intro and what to notice in the dot products (pure Python)."""

from __future__ import annotations

import numpy as np

from engine import Trace, analysis
from ui.prose import stages, text
from ui.prose.numbers import count, fmt, pairs, three
from ui.prose.text import Quote


def qkv_intro(positional: bool) -> str:
    """The Q/K/V page's intro: what the same matrices for every token do, with or without positions."""
    same = (
        "Without positions the same word therefore always gets the same rows, wherever it stands."
        if not positional
        else "With positions on, the same word at two places has two different inputs (its row of X plus "
        "its own position code), so it gets different rows."
    )
    return (
        "Each token enters as a row of **X**. Three weight matrices turn every row into a *query* "
        "(what this token looks for), a *key* (what it offers) and a *value* (what it passes on). "
        f"The same matrices serve every token, so equal input rows get equal Q, K and V rows. {same} "
        "Each head then works with its own slice of columns."
    )


def qkv_notice(t: Trace, head: int, quote: Quote = text.quote) -> str:
    """The largest q·k among the pairs the mask lets through (every pair tied with it named), what it is
    made of, and what it is not."""
    visible = t.visible
    found, top = analysis.largest_all(t.scores[head], visible)
    (i, j), several = found[0], len(found) > 1
    cos = analysis.cosines(t.q, t.k)[head]  # (T, T)
    qn, kn = float(np.linalg.norm(t.q[head, i])), float(np.linalg.norm(t.k[head, j]))
    among = " among the pairs the causal mask lets through (key ≤ query)" if t.config.causal else ""
    first = f" (for {quote(t.labels[i])} → {quote(t.labels[j])})" if several else ""
    said = (
        f"in head {head}, the largest dot product{among} is {'shared by ' * several}"
        f"{pairs(found, t.labels, quote)}: q·k = "
        f"{three(top)}{' each' * several}{first} = |q| |k| cos θ = {three(qn)} × {three(kn)} × "
        f"{fmt(float(cos[i, j]), '.3f')}. "
    )
    if top < 0:
        said += "Every q·k here is negative: the largest is the one closest to 0. "
    aligned, best = analysis.largest_all(cos, visible)
    if set(aligned) == set(found):
        said += (
            f"{'They are' if several else 'It is'} also the pair{'s' * several} whose vectors point most the same way. "
        )
    elif set(found) & set(aligned):  # among the most aligned, with other pairs
        said += (
            f"{'Their' if several else 'Its'} vectors point as much the same way as any pair's (cos θ = "
            f"{fmt(best, '.3f')}, a tie with {count(len(set(aligned) - set(found)), 'other pair')}). "
        )
    elif np.isfinite(best):
        ci, cj = aligned[0]
        said += (
            "A dot product mixes length and direction: the pair pointing most the same way is "
            + (
                f"{quote(t.labels[ci])} with {quote(t.labels[cj])}"
                if len(aligned) == 1
                else pairs(aligned, t.labels, quote)
            )
            + f" (cos θ = {fmt(best, '.3f')}, q·k = {three(float(t.scores[head, ci, cj]))}). "
        )
    how = (
        "dividing every score by the same √d_head keeps their order"
        if t.config.scale_scores
        else stages.scaling_off().lower()
    )
    if several:
        return said + f"On the next page the same pairs have head {head}'s largest scaled score too: {how}."
    return said + (
        f"On the next page the largest-dot-product pair, {quote(t.labels[i])} → {quote(t.labels[j])}, has "
        f"head {head}'s largest scaled score too: {how}."
    )
