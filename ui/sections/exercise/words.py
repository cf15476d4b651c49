"""The exercise's words: the verdict on a prediction, and the sentences that explain what appending one
token did. Every number comes from engine.exercise; token labels go through `quote`, so a page can escape
them for its markup. The old rows are in one of four states, and every sentence reads the same one:

* masked: the causal mask hides the new key, every factor is exactly 1;
* still: the new key is visible, but every row's share of it is at most SAME (rounding), so every factor is
  1 up to rounding (the trained largest-token block: shares of 10⁻²³, factors exactly 1.0 in float64);
* negligible: some share is above rounding, none reaches NEGLIGIBLE (every factor prints as 1.0000);
* moved: the rest.
A "from A to B" range never names one item twice: where both ends read the same, one value is given.
"""

from __future__ import annotations

import numpy as np

from engine.analysis import TIE, Extension, read_rows
from engine.exercise import SAME, old_rows
from ui.prose import text
from ui.prose.numbers import count, diff, every, fmt, names, next_to, power
from ui.prose.text import Quote
from ui.sections.exercise.words_after import later_layers, output_sentence, twist_sentence  # noqa: F401

NEGLIGIBLE = 0.5e-4  # a share of the new key below this leaves every factor printing as 1.0000
FLOAT64_STEP = float(np.finfo(np.float64).eps) / 2  # a share below this leaves 1 − share exactly 1.0 in float64

# What a student may predict for the old rows when one token is appended.
PREDICTIONS = {
    "unchanged": "The old rows stay exactly as they were.",
    "own_factor": "Each old row is multiplied by one factor of its own, so the ratios inside a row are kept.",
    "same_factor": "Every old row shrinks by the same factor.",
    "reorder": "The order of the weights within a row can change.",
}


def change_kind(ext: Extension, head: int) -> str:
    """'masked', 'still', 'negligible' or 'moved' (see the module's docstring)."""
    r = old_rows(ext, head)
    if np.all(np.isneginf(r.score_new)):
        return "masked"
    top = float(np.max(r.lost))
    return "still" if top <= SAME else "negligible" if top < NEGLIGIBLE else "moved"


def _rows(labels, idx, quote: Quote) -> str:
    """Old rows named: "‘a’", "‘a’ and ‘b’", or the first two and how many more."""
    said = [quote(labels[i]) for i in idx]
    return names(said) if len(said) <= 3 else f"{', '.join(said[:2])} and {count(len(said) - 2, 'more row')}"


def _tied(values: np.ndarray, i: int) -> list[int]:
    """The rows whose value equals values[i] up to rounding (TIE, relative)."""
    return [int(j) for j in np.flatnonzero(np.abs(values - values[i]) <= TIE * max(abs(float(values[i])), 1e-300))]


def _log10_ratio(r, i: int) -> float:
    """log₁₀(e^s / Z) for old row i, from logs: e^s and Z may overflow where their ratio does not."""
    return float((r.score_new[i] - np.log(r.z[i])) / np.log(10))


def _ratio_value(r, i: int) -> float:
    """e^s / Z for old row i as a number (10³⁰⁰ at most: a word of magnitude needs no more)."""
    return 10 ** min(_log10_ratio(r, i), 300.0)


def _ratio(r, i: int) -> str:
    """e^s / Z for old row i as text, even where e^s and Z themselves overflow or underflow."""
    power = _log10_ratio(r, i)
    if power > -300:
        return fmt(10**power, ".4f")
    return "10" + str(round(power)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _factor(ext: Extension, head: int, i: int) -> str:
    """Old row i's factor Z/(Z + e^s): '1' up to rounding, '1 − 4.8·10⁻⁶' where 4 decimals would print
    1.0000, else 4 decimals."""
    r = old_rows(ext, head)
    share = float(r.lost[i])
    return "1" if share <= SAME else f"1 − {fmt(share, '.2g')}" if share < NEGLIGIBLE else fmt(r.factor[i], ".4f")


def _factor_range(ext: Extension, head: int, quote: Quote | None) -> str:
    """'from 0.7519 (‘AI’) to 0.8056 (‘builds’)', or one value where every row's factor reads the same."""
    r = old_rows(ext, head)
    texts = [_factor(ext, head, i) for i in range(r.T)]
    lo, hi = int(np.argmax(r.lost)), int(np.argmin(r.lost))  # the smallest and the largest factor
    if texts[lo] == texts[hi]:
        return f"{texts[lo]} for {every(r.T, 'row')}" + (" up to rounding" if texts[lo] == "1" else "")
    ends = []
    for i in (lo, hi):
        up = " up to rounding" if texts[i] == "1" else ""
        who = f" ({_rows(r.labels, [j for j in range(r.T) if texts[j] == texts[i]], quote)})" if quote else ""
        ends.append(f"{texts[i]}{up}{who}")
    return f"from {ends[0]} to {ends[1]}"


def _factors_are(ext: Extension, head: int, quote: Quote | None) -> str:
    """'the factors run from A (‘x’) to B (‘y’)', or 'every factor is A' where they all read the same."""
    said = _factor_range(ext, head, quote)
    return (
        f"the factors run {said}"
        if said.startswith("from ")
        else "every factor is "
        + said.split(" for ")[0]
        + (" up to rounding" if said.endswith("up to rounding") else "")
    )


def _unseen(ext: Extension, head: int, quote: Quote) -> str:
    """Why a visible new key changed nothing (every share at most SAME): the shares, from the numbers."""
    r = old_rows(ext, head)
    i = int(np.argmax(r.lost))
    exact = (
        f" (in float64 exactly 1.0: 1 minus a share below {fmt(FLOAT64_STEP, '.2g')} cannot be stored)"
        if r.lost[i] < FLOAT64_STEP
        else ""
    )
    return (
        f"every old query sees {quote(r.new_label)} (its scores against it are finite, "
        f"{fmt(float(np.min(r.score_new)), '.3f')} to {fmt(float(np.max(r.score_new)), '.3f')}), but gives it at "
        f"most {fmt(float(r.lost[i]), '.2g')} of its row ({_rows(r.labels, _tied(r.lost, i), quote)}), below the "
        f"{power(SAME)} this app counts as rounding: every factor Z/(Z + e^s) = 1 − share is 1 up to rounding" + exact
    )


def _percent(share: float) -> str:
    """A share as a percentage with two significant digits where one decimal would hide it: '0.022%'."""
    return fmt(share, ".1%") if share >= 0.0005 else f"{fmt(share * 100, '.2g')}%"


def _visible_but_negligible(ext: Extension, head: int, quote: Quote) -> str:
    """Why the old rows barely moved although every old query sees the new key: its share, from the numbers."""
    r = old_rows(ext, head)
    i = int(np.argmax(r.lost))
    return (
        f"every old query sees {quote(r.new_label)} (its scores against it are finite, "
        f"{fmt(float(np.min(r.score_new)), '.3f')} to {fmt(float(np.max(r.score_new)), '.3f')}), but e^s is "
        f"{next_to(_ratio_value(r, i))} each old total Z: the largest share, e^s/(Z + e^s) for "
        f"{_rows(r.labels, _tied(r.lost, i), quote)}, is {fmt(float(r.lost[i]), '.2g')} "
        f"(s = {fmt(float(r.score_new[i]), '.3f')}), visible but negligible"
    )


def sentences(ext: Extension, head: int, quote: Quote = text.quote) -> tuple[str, str]:
    """Two sentences from the live numbers: who lost most to the new token and why, and the invariant."""
    r, kind = old_rows(ext, head), change_kind(ext, head)
    new, T = quote(r.new_label), r.T
    if kind in ("masked", "still"):
        why = (
            f"the causal mask lets no old query see {new}, which comes after all of them, so its score for them "
            "is −∞ (masked), e^−∞ = 0 and every factor Z/(Z + 0) is exactly 1"
            if kind == "masked"
            else _unseen(ext, head, quote)
        )
        return (
            f"No old row lost any attention{'' if kind == 'masked' else ' beyond rounding'}: {why}.",
            f"The first {T} rows are identical to the {T}-token run (largest change {diff(r.max_change)}); "
            f"attention is only shared out in the new row, where {_new_row_reading(ext, head, quote)}.",
        )
    factors = (
        f"Every old row is multiplied by one number of its own, Z/(Z + e^s), here "
        f"{_factor_range(ext, head, quote)}, so the ratios between a row's old weights, and their order, stay "
        f"the same (largest deviation {diff(ext.ratio_error)}); what a row loses, 1 − factor, is exactly the "
        f"weight it now gives {new}."
    )
    if kind == "negligible":
        return (
            f"Appending {new} took almost nothing from any old row: {_visible_but_negligible(ext, head, quote)}.",
            factors,
        )
    i = int(np.argmax(r.lost))
    row, s, highest = _rows(r.labels, _tied(r.lost, i), quote), float(r.score_new[i]), int(np.argmax(r.score_new))
    if highest == i:
        why = (
            f"it has the highest score against the new key of any old query (s = {fmt(s, '.3f')}, so "
            f"e^s/Z = {_ratio(r, i)}: e^s is {next_to(_ratio_value(r, i))} its old total Z)"
        )
    else:
        why = (
            f"its score against the new key is the largest relative to its own old scores (s = {fmt(s, '.3f')}, "
            f"e^s/Z = {_ratio(r, i)}); {quote(r.labels[highest])} scores the new key higher "
            f"(s = {fmt(float(r.score_new[highest]), '.3f')}), but its old total is bigger "
            f"(e^s/Z = {_ratio(r, highest)})"
        )
    return (
        f"Appending {new} took the most attention from {row}: its row was multiplied by "
        f"{_factor(ext, head, i)}, so {_percent(float(r.lost[i]))} of its attention now goes to {new}, "
        f"because {why}.",
        factors,
    )


def verdict(ext: Extension, head: int, choice: str | None, quote: Quote = text.quote) -> tuple[str, str]:
    """How a prediction fared: ('right' | 'wrong' | 'none', one sentence why). Right is what the poll
    grades right (right_predictions), so the page and the poll never disagree."""
    r, kind = old_rows(ext, head), change_kind(ext, head)
    if choice is None:
        return "none", "You revealed without choosing a prediction."
    if choice not in PREDICTIONS:
        raise ValueError(f"unknown prediction {choice!r}; choose one of {tuple(PREDICTIONS)}")
    masked = "no old query can see the new token (the causal mask makes its score −∞), so every factor is exactly 1"
    why = masked if kind == "masked" else _unseen(ext, head, quote)
    kept = f"no old weight changed by more than {diff(r.max_change)}"
    if choice == "unchanged":
        if kind in ("masked", "still"):
            return "right", (f"Right: {masked}." if kind == "masked" else f"Right, up to rounding: {why}; {kept}.")
        if kind == "negligible":
            return "wrong", (
                f"Not quite, though nearly: {_visible_but_negligible(ext, head, quote)}; old weights "
                f"changed by up to {diff(r.max_change)}."
            )
        moved = int(np.count_nonzero(r.lost > SAME))
        who = "every old row" if moved == r.T else f"{moved} of the {r.T} old rows"
        return "wrong", (
            f"Not quite: {who} changed, by up to {fmt(r.max_change, '.4f')}, because every "
            f"old query also scores the new key and shares its attention with it."
        )
    if choice == "own_factor":
        if kind in ("masked", "still"):
            return "right", (
                f"Right, and more: {why}; the old rows did not change"
                + (" at all." if kind == "masked" else " beyond rounding.")
            )
        return "right", (
            f"Right: each row kept its ratios (largest deviation {diff(ext.ratio_error)}), and "
            f"{_factors_are(ext, head, quote)}"
            + (f"; {_visible_but_negligible(ext, head, quote)}." if kind == "negligible" else ".")
        )
    if choice == "same_factor":
        if kind in ("masked", "still"):
            return "wrong", f"Not quite: no old row shrinks at all: {why}; {kept}."
        if float(np.max(r.factor) - np.min(r.factor)) <= SAME:
            return "right", f"Right here: {_factors_are(ext, head, None)}."
        return "wrong", (
            f"Not quite: each row has its own factor ({_factors_are(ext, head, quote)}), "
            "because each old query scores the new key differently."
        )
    return "wrong", (
        "Not quite: a whole row is multiplied by one positive number, and that cannot change "
        "which of its weights is larger than another."
    )


def right_predictions(ext: Extension, head: int) -> list[str]:
    """Every prediction the page's verdict calls right: the poll's right answers."""
    return [c for c in PREDICTIONS if verdict(ext, head, c)[0] == "right"]


def _new_row_reading(ext: Extension, head: int, quote: Quote) -> str:
    """The new token's row by the honest rules (ui/prose/rows): even, or its top key(s) against uniform."""
    from ui.prose.rows import winner  # rows imports nothing from here

    T = ext.before.T
    r = read_rows(ext.after.weights[head], ext.after.visible)[T]
    new = quote(ext.after.labels[T])
    if r.kind == "even":
        return (
            f"{new} spreads its weight almost evenly over its {r.keys} keys (largest {fmt(r.weight, '.3f')}, "
            f"uniform {fmt(r.uniform, '.3f')})"
        )
    return (
        f"{new} attends most to {winner(r, ext.after.labels, quote)}, where a uniform row gives {fmt(r.uniform, '.3f')}"
    )


def new_row(ext: Extension, head: int, quote: Quote = text.quote) -> str:
    """One sentence on the new token's own row: where it looks, against a uniform row."""
    old_rows(ext, head)  # checks the head
    return "the new token has a row of its own: " + _new_row_reading(ext, head, quote)


def notice(ext: Extension, head: int, quote: Quote = text.quote) -> str:
    """The page's 'what to notice': what the old rows did, and the new token's own row."""
    r, kind = old_rows(ext, head), change_kind(ext, head)
    top = fmt(float(np.max(r.lost)), ".2g")
    first = {
        "masked": f"the {r.T} old rows are untouched: the causal mask hides the new token from them",
        "still": (
            f"the {r.T} old rows see the new token but give it at most {top} of a row, below rounding, so "
            "every factor is 1 and they did not change beyond rounding"
        ),
        "negligible": (
            f"the {r.T} old rows see the new token but give it almost nothing (at most {top} of a "
            "row), so they barely change"
        ),
        "moved": (
            "no old row was reshuffled, each only shrank"
            + (" or, where its factor is 1 up to rounding, stayed" if np.min(r.lost) <= SAME else "")
            + f" ({_factors_are(ext, head, None)}), and what each gave up is exactly its entry in the "
            "new column"
        ),
    }[kind]
    return f"{first}; {new_row(ext, head, quote)}."
