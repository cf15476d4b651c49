"""What else appending one token did, in words: the block's old output rows, the later layers' old rows,
and the twists (the causal mask or positions switched on). Every number comes from engine.exercise."""

from __future__ import annotations

import numpy as np

from engine.analysis import Extension
from engine.exercise import SAME, Deeper, Outputs, Twist
from ui.prose import text
from ui.prose.numbers import diff, every, fmt
from ui.prose.text import Quote


def output_sentence(ext: Extension, out: Outputs, quote: Quote = text.quote) -> str:
    """Which old output rows moved, by how much, and why."""
    T = ext.before.T
    change, relative, changed = out.change, out.relative, out.changed
    new = quote(ext.after.labels[T])
    heads = ext.before.num_heads
    mix = f" in each of the {heads} heads" if heads > 1 else ""
    if changed == 0:
        longest = float(np.max(np.linalg.norm(ext.before.output, axis=-1)))
        return (
            f"No old output row changed (largest ‖Δ‖ = {diff(float(np.max(change)), longest)}): their "
            "attention rows are identical, and the rest of the block works on each row on its own."
        )
    hi, lo = int(np.argmax(change)), int(np.argmin(change))
    moved = every(T, "old output row").capitalize() if changed == T else f"{changed} of the {T} old output rows"
    moved = "The only old output row" if T == 1 and changed == T else moved
    least = f" and {quote(ext.before.labels[lo])} least ({fmt(float(change[lo]), '.4f')})" if lo != hi else ""
    return (
        f"{moved} changed: {quote(ext.before.labels[hi])} moved most "
        f"(‖Δ‖ = {fmt(float(change[hi]), '.4f')}, {fmt(float(relative[hi]), '.1%')} of its length){least}, "
        f"because each output row is a weighted sum of the value vectors of every key it can see{mix}, and the "
        f"value vector of {new} now takes a share of that sum."
    )


def later_layers(d: Deeper, causal: bool) -> str:
    """What the new token did to the old rows of every layer, read from both runs (not asserted)."""
    L = len(d.weights)
    changes = [
        f"layer {k}'s old weights by {diff(d.weights[k])} and its old output rows by {diff(d.outputs[k], d.scale[k])}"
        for k in range(L)
    ]
    if all(d.weights[k] <= SAME and d.outputs[k] <= SAME * max(1.0, d.scale[k]) for k in range(L)):
        return (
            f"In {every(L, 'layer')} the old rows stayed as they were: the new token changed "
            + "; ".join(changes)
            + (
                ". The causal mask hides the new token from every old query in every layer, and each layer's old "
                "rows read only the old rows of the layer before."
                if causal
                else "."
            )
        )
    return (
        "A later layer's old rows read layer 0's output and see the new token themselves, so they can change "
        "too: the new token changed " + "; ".join(changes[1:]) + "."
    )


def twist_sentence(tw: Twist, twisted: Extension, quote: Quote = text.quote) -> str:
    """What switching the causal mask or positions on did to the old rows."""
    T = twisted.before.T
    already, max_row, out, shift = tw.already_on, tw.max_row_change, tw.output_change, tw.input_shift
    score_change, (lo, hi) = tw.score_change, tw.factor_range
    new = quote(twisted.after.labels[T])
    note = " (already on in the sidebar, so this is the run above)" if already else ""
    if tw.name == "causal":
        return (
            f"With the causal mask{note}, the largest change in the first {T} rows is "
            f"{diff(max_row)} in every head, and their outputs move by at most "
            f"{diff(out, tw.output_scale)}: no old query can see {new}, so nothing about them changes."
        )
    moved = (
        "the inputs already carry positions"
        if already
        else f"positions change the inputs (by up to {fmt(shift, '.3f')} per entry), so the scores "
        + ("" if twisted.before.config.causal else "and factors ")
        + "differ from the run above"
    )
    same = (
        f"but position i's code depends only on i, so the first {T} inputs and their scores are the same "
        f"in both runs (largest change {diff(score_change, tw.score_scale)})"
    )
    if twisted.before.config.causal and 1.0 - lo <= SAME:
        return (
            f"With sinusoidal positions{note}, {moved}; {same}. The causal mask is on too, so no old query "
            f"can see {new}: every old row keeps its weights exactly (every factor is 1)."
        )
    ends = fmt(lo, ".4f"), fmt(hi, ".4f")
    spread = (
        f"every factor is {ends[0]}"
        if hi - lo <= SAME
        else f"every factor rounds to {ends[0]}"
        if ends[0] == ends[1]
        else f"here the factors run from {ends[0]} to {ends[1]}"
    )
    return (
        f"With sinusoidal positions{note}, {moved}; {same}, and each old row is still multiplied by one "
        f"factor of its own ({spread}; ratio error {diff(tw.ratio_error)})."
    )
