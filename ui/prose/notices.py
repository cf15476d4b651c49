"""The concept pages' live words: intros that depend on the settings and each page's 'what to notice',
from a Trace (pure Python; token labels go through `quote`: ui.prose.text's, escaped for Markdown)."""

from __future__ import annotations

import numpy as np

from engine import Trace, analysis
from ui.prose import text
from ui.prose.numbers import count, fmt, names, next_to, verb
from ui.prose.text import Quote


# --------------------------------------------------------------------------- Inputs X
def inputs_intro(trained: bool, stand_in: str | None) -> str:
    """The Inputs page's intro: where a row of X comes from, and what happens to a word the vocabulary lacks
    (an article's preset: a vector of its own; a trained letter task: left out; the text model: its stand-in)."""
    other = (
        "any other word gets a vector of its own (the same word always the same vector). "
        if not trained
        else "any other word is left out (this model was trained on its task's tokens only) and the sequence is "
        "filled from the task. "
        if stand_in is None
        else f"any other word is read as {text.quote(stand_in)} (the model's one row for every word outside its "
        "vocabulary), and a short text is filled from the task. "
    )
    return (
        "The sentence in the sidebar is split into tokens. Each token becomes one row of **X**: a known word "
        "takes its row of the preset's table, " + other + "Everything on the next pages is computed from this matrix."
    )


def inputs_notice(t: Trace, words: tuple[str, ...], known: int, vocab_title: str, stand_in: str | None = None) -> str:
    """How many tokens the vocabulary knows (with a stand-in for unknown words, such as <unk>, the others are
    that stand-in), and which rows of X (and X + P) are equal."""
    T = len(words)
    repeats = sum(w != stand_in and w in words[:i] for i, w in enumerate(words))  # a stand-in may be any word
    said = f"{known} of {T} tokens are in the {vocab_title} vocabulary"
    if stand_in is not None and known < T:
        said += (
            f" (the other is {text.quote(stand_in)}: a word outside it)"
            if T - known == 1
            else f" (the other {T - known} are {text.quote(stand_in)}: words outside it, all read as the same row)"
        )
    if repeats:
        said += (
            f", and {count(repeats, 'token')} {verb(repeats, 'repeats', 'repeat')} an earlier word: "
            "a repeated word has exactly the same row of X"
        )
        if t.positions is not None:
            said += ", and the position code P makes every row of X + P different"
    elif stand_in is not None and T - known > 1:  # only the stand-in's rows are equal
        said += f"; no known word comes twice: the only equal rows of X are the {T - known} {text.quote(stand_in)} rows"
        if t.positions is not None:
            said += ", and the position code P makes every row of X + P different"
    else:
        said += "; every word is different, so every row of X is different"
        if t.positions is not None:
            said += ", and so is every row of X + P"
    return said + "."


# --------------------------------------------------------------------------- Q, K, V
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


def _three(x: float) -> str:
    """Three decimals from 1 up, three significant digits below (0.00136, not 0.001): a ratio of two such
    numbers reads true to about 1%."""
    return fmt(x, ".3f") if abs(x) >= 1 else fmt(x, "#.3g")


three = _three  # public: a lesson's facts print the page's spreads and scores the same way


def pairs(found: list[tuple[int, int]], labels, quote: Quote = text.quote, shown: int = 6) -> str:
    """(query, key) pairs tied at the top, named: 'query ‘a’ with key ‘b’', 'query ‘a’ with keys ‘b’ and ‘c’,
    tied', 'queries … with keys …, tied (n pairs)' where every such query ties with every such key, else
    the pairs (the first `shown`, then how many more)."""

    def some(idx):
        said = [quote(labels[k]) for k in idx]
        return names(said[:shown] + ([f"{len(said) - shown} more"] if len(said) > shown else []))

    queries = sorted({i for i, _ in found})
    keys = sorted({j for _, j in found})
    if len(found) == 1:
        return f"query {quote(labels[queries[0]])} with key {quote(labels[keys[0]])}"
    if len(found) == len(queries) * len(keys):
        who = f"query {some(queries)}" if len(queries) == 1 else f"queries {some(queries)}"
        return f"{who} with keys {some(keys)}, tied" + (f" ({len(found)} pairs)" if len(queries) > 1 else "")
    listed = [f"{quote(labels[i])} → {quote(labels[j])}" for i, j in found]
    return "the tied pairs " + names(
        listed[:shown] + ([count(len(listed) - shown, "more pair")] if len(listed) > shown else [])
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
        f"{_three(top)}{' each' * several}{first} = |q| |k| cos θ = {_three(qn)} × {_three(kn)} × "
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
            + f" (cos θ = {fmt(best, '.3f')}, q·k = {_three(float(t.scores[head, ci, cj]))}). "
        )
    how = (
        "dividing every score by the same √d_head keeps their order"
        if t.config.scale_scores
        else "with scaling off the scores go on unchanged"
    )
    if several:
        return said + f"On the next page the same pairs have head {head}'s largest scaled score too: {how}."
    return said + (
        f"On the next page the largest-dot-product pair, {quote(t.labels[i])} → {quote(t.labels[j])}, has "
        f"head {head}'s largest scaled score too: {how}."
    )


# --------------------------------------------------------------------------- Scaled scores
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
        said += f"Scaling is off here: the scores go to the softmax as they are (std {fmt(raw, '.2f')}, every head). "
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
            f"{pair}: {_three(raw)}{' each' * several}. Scaling is switched off, so nothing is divided: the softmax sees "
            "the raw scores and their full spread."
        )
    d = cfg.d_head
    divisor = float(np.sqrt(d))
    said = f"{pair}: {_three(raw)} ÷ √{d} = {_three(top)}{' each' * several}. "
    if d == 1:
        return said + (
            "With d_head = 1 the divisor is √1 = 1, so the division changes nothing: scaled and raw "
            "scores are the same numbers."
        )
    before, after = analysis.score_spread(t, head)  # the poll's question reads the same
    return said + (
        f"Dividing every score by the same √{d} = {fmt(divisor, '.3f')} keeps the order within each "
        f"row and shrinks the spread the softmax will see by that factor (std {_three(before)} → "
        f"{_three(after)})."
    )


# --------------------------------------------------------------------------- Block output
def output_notice(t: Trace) -> str:
    """What the ReLU zeroed and how far the feed-forward layer moved the vectors, compared, not asserted."""
    T, F = t.ffn_hidden.shape
    zeros = float((t.ffn_hidden == 0).mean())
    said = f"the ReLU zeroed {fmt(zeros, '.0%')} of the {count(T * F, 'hidden value')}"
    if not t.config.residual:
        return said + (
            f"; without residuals the output is only what the feed-forward layer makes of the "
            f"attention output (mean |output| {fmt(float(np.abs(t.output).mean()), '.3f')} per entry)."
        )
    moved = float(np.abs(t.output - t.after_attn).mean())  # the FFN's own part: hidden·W₂ + b₂
    carried = float(np.abs(t.after_attn).mean())  # what the residual path brings
    compare = next_to(moved / carried if carried > 0 else float("inf"))  # the one scale of magnitude words
    return said + (
        f"; the feed-forward layer then moved the vectors by {fmt(moved, '.3f')} on average per entry, "
        f"{compare} the {fmt(carried, '.3f')} the residual path carries through (mean "
        f"|{'X + P' if t.positions is not None else 'X'} + attn|)."
    )
