"""The exercise's words: the new token a student types (and why it cannot be used), the verdict on a
prediction, and the sentences that explain what appending one token did. Every number comes from
engine.exercise; token labels go through `quote`, so a page can escape them for its markup."""
from __future__ import annotations

import re
from typing import Callable

import numpy as np

from engine.analysis import Extension, read_rows
from engine.config import Config
from engine.exercise import SAME, Outputs, Twist, old_rows
from engine.tokens import MAX_WORD_CHARS, Token, clean_word, token_id
from ui.prose.numbers import diff, every, fmt, next_to

Quote = Callable[[str], str]
KINDS = ("id", "word")                       # how the new token is given: a vocabulary id or a typed word
MAX_TYPED = 64                               # characters a page lets a student type for the new word

# What a student may predict for the old rows when one token is appended.
PREDICTIONS = {
    "unchanged": "The old rows stay exactly as they were.",
    "own_factor": "Each old row is multiplied by one factor of its own, so the ratios inside a row are kept.",
    "same_factor": "Every old row shrinks by the same factor.",
    "reorder": "The order of the weights within a row can change.",
}

_MARKUP = re.compile(r"<\s*/?\s*[A-Za-z!?][^<>]*>")   # an HTML-like tag such as <b>, </p> or <!-- x -->


def _plain_quote(text: str) -> str:
    return "‘" + text + "’"


def _short(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------- the new token
def parse_next_token(cfg: Config, kind: str, value) -> Token:
    """The new token from a page's input: a vocabulary id, or one typed word. ValueError says what to fix."""
    if kind == "id":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if value is None or isinstance(value, str):
            raise ValueError(f"choose a vocabulary id between 0 and {cfg.vocab_size - 1}")
        return token_id(cfg, value)           # ValueError: outside the vocabulary, or not a whole number
    if kind != "word":
        raise ValueError(f"the new token is given as one of {KINDS}, got {kind!r}")
    if not isinstance(value, str):
        raise ValueError(f"the typed word must be text, got {type(value).__name__}")
    parts = value.split()
    if not parts:
        raise ValueError("the word box is empty: type one word for the new token")
    if len(parts) > 1:
        raise ValueError(f"type a single word without spaces; ‘{_short(value.strip())}’ is {len(parts)} words")
    word = parts[0]
    if _MARKUP.search(word):
        raise ValueError(f"‘{_short(word)}’ looks like HTML markup (a <…> tag); "
                         "type a plain word: this page shows tokens as text and never runs markup")
    if len(word) > MAX_WORD_CHARS:
        raise ValueError(f"‘{_short(word)}’ is {len(word)} characters long; "
                         f"a token may have at most {MAX_WORD_CHARS}")
    cleaned = clean_word(word)
    if not cleaned:
        raise ValueError("the typed word has only invisible characters: type a visible word")
    return cleaned


def default_token_note(word: str, vocab_id: int | None, T: int) -> str:
    """Where the default new token comes from (word already quoted): this app's rule, not an article's."""
    said = f"Default: {word}" + (f" (id {vocab_id})" if vocab_id is not None else "")
    return (said + f", the token the sidebar's sequence-length slider appends when moved from {T} to {T + 1}, so "
            f"both give the same {T + 1}-token run. This is this app's choice: the articles name no "
            f"{ordinal(T + 1)} token.")


NEGLIGIBLE = 0.5e-4     # a share of the new key below this leaves every factor printing as 1.0000


def _masked(r) -> bool:
    """The causal mask hides the new key from every old query (every score against it is −∞)."""
    return bool(np.all(np.isneginf(r.score_new)))


def shares(ext: Extension, head: int) -> np.ndarray:
    """(T,) the weight each old row now gives the new key, e^s / (Z + e^s), read from the softmax itself
    (1 − factor would round a share of 10⁻³⁶ to 0)."""
    T = ext.before.T
    return ext.after.weights[head, :T, T]


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
        return fmt(10 ** power, ".4f")
    return "10" + str(round(power)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _factor(ext: Extension, head: int, i: int) -> str:
    """Old row i's factor Z/(Z + e^s): 4 decimals, or '1 − 4.8·10⁻⁶' where 4 decimals would print 1.0000."""
    share = float(shares(ext, head)[i])
    factor = float(ext.factors[head][i])
    return f"1 − {fmt(share, '.2g')}" if 0 < share < NEGLIGIBLE else fmt(factor, ".4f")


def _negligible(ext: Extension, head: int) -> bool:
    """The new key is visible but takes less than NEGLIGIBLE of every old row."""
    return float(np.max(shares(ext, head))) < NEGLIGIBLE


def _visible_but_negligible(ext: Extension, head: int, quote: Quote) -> str:
    """Why the old rows barely moved although every old query sees the new key: its share, from the numbers."""
    r = old_rows(ext, head)
    share = shares(ext, head)
    i = int(np.argmax(share))
    return (f"every old query sees {quote(r.new_label)} (its scores against it are finite, "
            f"{fmt(float(np.min(r.score_new)), '.3f')} to {fmt(float(np.max(r.score_new)), '.3f')}), but e^s is "
            f"{next_to(_ratio_value(r, i))} each old total Z: the largest share, e^s/(Z + e^s) for "
            f"{quote(r.labels[i])}, is "
            f"{fmt(float(share[i]), '.4f')} (s = {fmt(float(r.score_new[i]), '.3f')}), "
            "visible but negligible")


def sentences(ext: Extension, head: int, quote: Quote = _plain_quote) -> tuple[str, str]:
    """Two sentences from the live numbers: who lost most to the new token and why, and the invariant."""
    r = old_rows(ext, head)
    new, T = quote(r.new_label), r.T
    share = shares(ext, head)
    i = int(np.argmax(share))
    if _masked(r):                                                    # the causal mask hides the new key
        return (
            f"No old row lost any attention: the causal mask lets no old query see {new}, which comes "
            f"after all of them, so its score for them is −∞ (masked), e^−∞ = 0 and every factor Z/(Z + 0) "
            "is exactly 1.",
            f"The first {T} rows are identical to the {T}-token run (largest change {diff(r.max_change)}); "
            f"attention is only shared out in the new row, where {_new_row_reading(ext, head, quote)}.",
        )
    row, s = quote(r.labels[i]), float(r.score_new[i])
    factors = (f"Every old row is multiplied by one number of its own, Z/(Z + e^s), here from "
               f"{_factor(ext, head, i)} ({row}) to {_factor(ext, head, int(np.argmin(share)))} "
               f"({quote(r.labels[int(np.argmin(share))])}), so the ratios between a row's old weights, and their "
               f"order, stay the same (largest deviation {diff(ext.ratio_error)}); what a row loses, 1 − factor, is "
               f"exactly the weight it now gives {new}.")
    if share[i] < NEGLIGIBLE:
        return (f"Appending {new} took almost nothing from any old row: {_visible_but_negligible(ext, head, quote)}.",
                factors)
    highest = int(np.argmax(r.score_new))
    if highest == i:
        why = (f"it has the highest score against the new key of any old query (s = {fmt(s, '.3f')}, so "
               f"e^s/Z = {_ratio(r, i)}: e^s is {next_to(_ratio_value(r, i))} its old total Z)")
    else:
        why = (f"its score against the new key is the largest relative to its own old scores (s = {fmt(s, '.3f')}, "
               f"e^s/Z = {_ratio(r, i)}); {quote(r.labels[highest])} scores the new key higher "
               f"(s = {fmt(float(r.score_new[highest]), '.3f')}), but its old total is bigger "
               f"(e^s/Z = {_ratio(r, highest)})")
    return (f"Appending {new} took the most attention from {row}: its row was multiplied by "
            f"{_factor(ext, head, i)}, so {fmt(float(share[i]), '.1%')} of its attention now goes to {new}, "
            f"because {why}.", factors)


def verdict(ext: Extension, head: int, choice: str | None, quote: Quote = _plain_quote) -> tuple[str, str]:
    """How a prediction fared: ('right' | 'partly' | 'wrong' | 'none', one sentence why)."""
    r = old_rows(ext, head)
    masked, negligible = _masked(r), _negligible(ext, head)
    spread = float(np.max(r.factor) - np.min(r.factor))
    lo, hi = int(np.argmin(r.factor)), int(np.argmax(r.factor))
    if choice is None:
        return "none", "You revealed without choosing a prediction."
    if choice not in PREDICTIONS:
        raise ValueError(f"unknown prediction {choice!r}; choose one of {tuple(PREDICTIONS)}")
    if choice == "unchanged":
        if masked:
            return "right", ("Right: no old query can see the new token (the causal mask makes its score −∞), "
                             "so every factor is exactly 1.")
        if negligible:
            return "partly", (f"Nearly: {_visible_but_negligible(ext, head, quote)}; no old weight changed by more "
                              f"than {diff(r.max_change)}.")
        return "wrong", (f"Not quite: every old row changed, by up to {fmt(r.max_change, '.4f')}, because every "
                         f"old query also scores the new key and shares its attention with it.")
    if choice == "own_factor":
        if masked:
            return "partly", ("True, but the factor is exactly 1 for every row: the old rows did not change "
                              "at all.")
        return "right", (f"Right: each row kept its ratios (largest deviation {diff(ext.ratio_error)}), and "
                         f"the factors differ from row to row, from {_factor(ext, head, lo)} "
                         f"({quote(r.labels[lo])}) to {_factor(ext, head, hi)} ({quote(r.labels[hi])})"
                         + (f"; {_visible_but_negligible(ext, head, quote)}." if negligible else "."))
    if choice == "same_factor":
        if masked:
            return "partly", "True only because that factor is exactly 1: the old rows did not change at all."
        if spread <= SAME:
            return "right", f"Right here: every factor is {_factor(ext, head, 0)}."
        return "wrong", (f"Not quite: each row has its own factor, from {_factor(ext, head, lo)} "
                         f"({quote(r.labels[lo])}) to {_factor(ext, head, hi)} ({quote(r.labels[hi])}), "
                         "because each old query scores the new key differently.")
    return "wrong", ("Not quite: a whole row is multiplied by one positive number, and that cannot change "
                     "which of its weights is larger than another.")


# --------------------------------------------------------------------------- the block output
def output_sentence(ext: Extension, out: Outputs, quote: Quote = _plain_quote) -> str:
    """Which old output rows moved, by how much, and why."""
    T = ext.before.T
    change, relative, changed = out.change, out.relative, out.changed
    new = quote(ext.after.labels[T])
    heads = ext.before.num_heads
    mix = f" in each of the {heads} heads" if heads > 1 else ""
    if changed == 0:
        longest = float(np.max(np.linalg.norm(ext.before.output, axis=-1)))
        return (f"No old output row changed (largest ‖Δ‖ = {diff(float(np.max(change)), longest)}): their "
                "attention rows are identical, and the rest of the block works on each row on its own.")
    hi, lo = int(np.argmax(change)), int(np.argmin(change))
    count = every(T, "old output row").capitalize() if changed == T else f"{changed} of the {T} old output rows"
    if T == 1 and changed == T:
        count = "The only old output row"
    return (f"{count} changed: {quote(ext.before.labels[hi])} moved most "
            f"(‖Δ‖ = {fmt(float(change[hi]), '.4f')}, {fmt(float(relative[hi]), '.1%')} of its length) and "
            f"{quote(ext.before.labels[lo])} least ({fmt(float(change[lo]), '.4f')}), because each output row is "
            f"a weighted sum of the value vectors of every key it can see{mix}, and the value vector of "
            f"{new} now takes a share of that sum.")


# --------------------------------------------------------------------------- the twists
def twist_sentence(tw: Twist, twisted: Extension, quote: Quote = _plain_quote) -> str:
    """What switching the causal mask or positions on did to the old rows."""
    T = twisted.before.T
    already, max_row, out, shift = tw.already_on, tw.max_row_change, tw.output_change, tw.input_shift
    score_change, (lo, hi) = tw.score_change, tw.factor_range
    new = quote(twisted.after.labels[T])
    note = " (already on in the sidebar, so this is the run above)" if already else ""
    if tw.name == "causal":
        return (f"With the causal mask{note}, the largest change in the first {T} rows is "
                f"{diff(max_row)} in every head, and their outputs move by at most "
                f"{diff(out, tw.output_scale)}: no old query can see {new}, so nothing about them changes.")
    moved = ("the inputs already carry positions" if already else
             f"positions change the inputs (by up to {fmt(shift, '.3f')} per entry), so the scores "
             + ("" if twisted.before.config.causal else "and factors ") + "differ from the run above")
    same = (f"but position i's code depends only on i, so the first {T} inputs and their scores are the same "
            f"in both runs (largest change {diff(score_change, tw.score_scale)})")
    if twisted.before.config.causal and lo == hi == 1.0:
        return (f"With sinusoidal positions{note}, {moved}; {same}. The causal mask is on too, so no old query "
                f"can see {new}: every old row keeps its weights exactly (every factor is 1).")
    spread = (f"every factor is {fmt(lo, '.4f')}" if hi - lo <= SAME else
              f"here the factors run from {fmt(lo, '.4f')} to {fmt(hi, '.4f')}")
    return (f"With sinusoidal positions{note}, {moved}; {same}, and each old row is still multiplied by one "
            f"factor of its own ({spread}; ratio error {diff(tw.ratio_error)}).")


def _new_row_reading(ext: Extension, head: int, quote: Quote) -> str:
    """The new token's row by the honest rules (ui/prose/rows): even, or its top key(s) against uniform."""
    from ui.prose.rows import winner                                  # rows imports nothing from here
    T = ext.before.T
    r = read_rows(ext.after.weights[head], ext.after.visible)[T]
    new = quote(ext.after.labels[T])
    if r.kind == "even":
        return (f"{new} spreads its weight almost evenly over its {r.keys} keys (largest {fmt(r.weight, '.3f')}, "
                f"uniform {fmt(r.uniform, '.3f')})")
    return f"{new} attends most to {winner(r, ext.after.labels, quote)}, where a uniform row gives {fmt(r.uniform, '.3f')}"


def new_row(ext: Extension, head: int, quote: Quote = _plain_quote) -> str:
    """One sentence on the new token's own row: where it looks, against a uniform row."""
    old_rows(ext, head)                                                   # checks the head
    return "the new token has a row of its own: " + _new_row_reading(ext, head, quote)


def notice(ext: Extension, head: int, quote: Quote = _plain_quote) -> str:
    """The page's 'what to notice': what the old rows did, and the new token's own row."""
    r = old_rows(ext, head)
    if _masked(r):
        first = f"the {r.T} old rows are untouched: the causal mask hides the new token from them"
    elif _negligible(ext, head):
        first = (f"the {r.T} old rows see the new token but give it almost nothing (at most "
                 f"{fmt(float(np.max(shares(ext, head))), '.4f')} of a row), so they barely change")
    else:
        first = (f"no old row was reshuffled, each only shrank (factors {fmt(float(np.min(r.factor)), '.4f')} to "
                 f"{fmt(float(np.max(r.factor)), '.4f')}), and what each gave up is exactly its entry in the new column")
    return f"{first}; {new_row(ext, head, quote)}."


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st, …"""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
