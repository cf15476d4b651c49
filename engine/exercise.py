"""The T → T+1 token exercise in numbers: the new token, each old row's factor, the verdict on a
prediction, and the sentences a page prints. Pure NumPy; every number is read from an Extension
(two traces whose first T inputs are identical).

Sentences are plain text. Token labels go through `quote`, so a page can escape them for its markup.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from .analysis import Extension, logsumexp, strongest_keys
from .config import Config
from .tokens import MAX_WORD_CHARS, Token, clean_word, token_id

Quote = Callable[[str], str]
KINDS = ("id", "word")                       # how the new token is given: a vocabulary id or a typed word
MAX_TYPED = 64                               # characters a page lets a student type for the new word
SAME = 1e-12                                 # differences at or below this are rounding, not change

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


def tiny(x: float) -> str:
    """A rounding-sized number: exactly 0 as '0', otherwise one significant digit, e.g. 6e-17."""
    return "0" if x == 0 else f"{x:.0e}"


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


def variant(cfg: Config, twist: str) -> Config:
    """The config with the causal mask, or with sinusoidal positions, switched on."""
    changes = {"causal": {"causal": True}, "positions": {"positional": "sinusoidal"}}
    if twist not in changes:
        raise ValueError(f"twist must be one of {tuple(changes)}, got {twist!r}")
    return replace(cfg, **changes[twist])


def _check_head(ext: Extension, head: int) -> None:
    H = ext.before.num_heads
    if not isinstance(head, (int, np.integer)) or isinstance(head, bool) or not 0 <= head < H:
        raise ValueError(f"head={head} is outside 0..{H - 1}")


# --------------------------------------------------------------------------- the old rows
@dataclass(frozen=True)
class Rows:
    """One head's old rows before and after the new token, with the numbers behind each factor."""

    head: int
    labels: tuple[str, ...]    # the T old tokens
    new_label: str             # the appended token
    score_new: np.ndarray      # (T,) s_i,new: old query i's scaled score against the new key (-inf if hidden)
    exp_new: np.ndarray        # (T,) e^{s_i,new} (0 where hidden)
    z: np.ndarray              # (T,) Z_i = Σ_j<T e^{s_ij}: the old row's softmax denominator
    factor: np.ndarray         # (T,) Z_i / (Z_i + e^{s_i,new}), from the extension
    lost: np.ndarray           # (T,) 1 − factor: the share each old row now gives the new token
    ratio_min: np.ndarray      # (T,) smallest new/old over the row's visible keys
    ratio_max: np.ndarray      # (T,) largest new/old: equal to ratio_min when the ratios are kept
    row_error: np.ndarray      # (T,) max_j |new_ij − factor_i · old_ij|
    max_change: float          # max |new − old| over the old block
    biggest: int               # the old row that lost the most

    @property
    def T(self) -> int:
        return len(self.labels)

    def table(self) -> dict[str, np.ndarray | list]:
        """Columns for a page's table, one row per old query."""
        return {
            "query": list(self.labels),
            "s (new key)": self.score_new,
            "e^s": self.exp_new,
            "Z (old row)": self.z,
            "factor Z/(Z+e^s)": self.factor,
            "new ÷ old, min": self.ratio_min,
            "new ÷ old, max": self.ratio_max,
            "lost to new": self.lost,
        }


def rows(ext: Extension, head: int) -> Rows:
    """Read one head's factors, their ingredients and the ratio check from the two traces."""
    _check_head(ext, head)
    T = ext.before.T
    old = ext.before.weights[head]                                    # (T, T)
    new = ext.after.weights[head, :T, :T]                             # (T, T)
    score_new = ext.new_scores[head]                                  # (T,)
    with np.errstate(over="ignore"):
        exp_new = np.exp(score_new)                                   # (T,); e^-inf = 0
        z = np.exp(logsumexp(ext.after.scaled[head, :T, :T], axis=-1))  # (T,)
    factor = ext.factors[head]                                        # (T,)
    seen = old > 0                                                    # (T, T) keys the old row looks at
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(seen, new / np.where(seen, old, 1.0), np.nan)   # (T, T)
    ratio_min = np.min(np.where(seen, ratio, np.inf), axis=-1)
    ratio_max = np.max(np.where(seen, ratio, -np.inf), axis=-1)
    lost = 1.0 - factor
    return Rows(
        head=head, labels=ext.before.labels, new_label=ext.after.labels[T], score_new=score_new,
        exp_new=exp_new, z=z, factor=factor, lost=lost, ratio_min=ratio_min, ratio_max=ratio_max,
        row_error=np.max(np.abs(new - factor[:, None] * old), axis=-1),
        max_change=float(np.max(np.abs(new - old))), biggest=int(np.argmax(lost)),
    )


def sentences(ext: Extension, head: int, quote: Quote = _plain_quote) -> tuple[str, str]:
    """Two sentences from the live numbers: who lost most to the new token and why, and the invariant."""
    r = rows(ext, head)
    new, T = quote(r.new_label), r.T
    i = r.biggest
    if r.lost[i] <= SAME:                                             # the causal mask hides the new key
        key, weight = strongest_keys(ext.after.weights[head])
        top = int(key[T])
        return (
            f"No old row lost any attention: the causal mask lets no old query see {new}, which comes "
            f"after all of them, so its score for them is −∞, e^−∞ = 0 and every factor Z/(Z + 0) is exactly 1.",
            f"The first {T} rows are identical to the {T}-token run (largest change {tiny(r.max_change)}); "
            f"attention is only shared out in the new row, where {new} attends most to "
            f"{quote(ext.after.labels[top])} ({float(weight[T]):.3f}).",
        )
    row, s, e, z = quote(r.labels[i]), float(r.score_new[i]), float(r.exp_new[i]), float(r.z[i])
    highest = int(np.argmax(r.score_new))
    if highest == i:
        why = (f"it has the highest score against the new key of any old query (s = {s:.3f}, "
               f"so e^s = {e:.3f} is large next to its old total Z = {z:.3f})")
    else:
        why = (f"its score against the new key is the largest relative to its own old scores (s = {s:.3f}, "
               f"e^s = {e:.3f} against its old total Z = {z:.3f}); {quote(r.labels[highest])} scores the new "
               f"key higher (s = {float(r.score_new[highest]):.3f}), but its old total is bigger "
               f"(Z = {float(r.z[highest]):.3f})")
    least = int(np.argmin(r.lost))
    return (
        f"Appending {new} took the most attention from {row}: its row was multiplied by {float(r.factor[i]):.4f}, "
        f"so {float(r.lost[i]):.1%} of its attention now goes to {new}, because {why}.",
        f"Every old row is multiplied by one number of its own, Z/(Z + e^s), here from "
        f"{float(r.factor[i]):.4f} ({row}) to {float(r.factor[least]):.4f} ({quote(r.labels[least])}), so the "
        f"ratios between a row's old weights, and their order, stay the same (largest deviation "
        f"{tiny(ext.ratio_error)}); what a row loses, 1 − factor, is exactly the weight it now gives {new}.",
    )


def verdict(ext: Extension, head: int, choice: str | None, quote: Quote = _plain_quote) -> tuple[str, str]:
    """How a prediction fared: ('right' | 'partly' | 'wrong' | 'none', one sentence why)."""
    r = rows(ext, head)
    unchanged = r.max_change <= SAME
    spread = float(np.max(r.factor) - np.min(r.factor))
    lo, hi = int(np.argmin(r.factor)), int(np.argmax(r.factor))
    if choice is None:
        return "none", "You revealed without choosing a prediction."
    if choice not in PREDICTIONS:
        raise ValueError(f"unknown prediction {choice!r}; choose one of {tuple(PREDICTIONS)}")
    if choice == "unchanged":
        if unchanged:
            return "right", "Right: no old query can see the new token, so every factor is exactly 1."
        return "wrong", (f"Not quite: every old row changed, by up to {r.max_change:.4f}, because every "
                         f"old query also scores the new key and shares its attention with it.")
    if choice == "own_factor":
        if unchanged:
            return "partly", ("True, but the factor is exactly 1 for every row: the old rows did not change "
                              "at all.")
        return "right", (f"Right: each row kept its ratios (largest deviation {tiny(ext.ratio_error)}), and "
                         f"the factors differ from row to row, from {float(r.factor[lo]):.4f} "
                         f"({quote(r.labels[lo])}) to {float(r.factor[hi]):.4f} ({quote(r.labels[hi])}).")
    if choice == "same_factor":
        if unchanged:
            return "partly", "True only because that factor is exactly 1: the old rows did not change at all."
        if spread <= SAME:
            return "right", f"Right here: every factor is {float(r.factor[0]):.4f}."
        return "wrong", (f"Not quite: each row has its own factor, from {float(r.factor[lo]):.4f} "
                         f"({quote(r.labels[lo])}) to {float(r.factor[hi]):.4f} ({quote(r.labels[hi])}), "
                         "because each old query scores the new key differently.")
    return "wrong", ("Not quite: a whole row is multiplied by one positive number, and that cannot change "
                     "which of its weights is larger than another.")


# --------------------------------------------------------------------------- the block output
@dataclass(frozen=True)
class Outputs:
    change: np.ndarray         # (T,) ‖after.output_i − before.output_i‖ for the old rows
    relative: np.ndarray       # (T,) change / ‖before.output_i‖
    changed: int               # rows that moved by more than rounding
    sentence: str


def outputs(ext: Extension, quote: Quote = _plain_quote) -> Outputs:
    """Which old output rows moved, by how much, and a sentence saying so."""
    T = ext.before.T
    change = ext.output_change                                        # (T,)
    length = np.linalg.norm(ext.before.output, axis=-1)               # (T,)
    relative = np.divide(change, length, out=np.zeros(T), where=length > 0)
    changed = int(np.count_nonzero(change > SAME))
    new = quote(ext.after.labels[T])
    heads = ext.before.num_heads
    mix = f" in each of the {heads} heads" if heads > 1 else ""
    if changed == 0:
        text = (f"No old output row changed (largest ‖Δ‖ = {tiny(float(np.max(change)))}): their attention "
                "rows are identical, and the rest of the block works on each row on its own.")
    else:
        hi, lo = int(np.argmax(change)), int(np.argmin(change))
        count = f"All {T}" if changed == T else f"{changed} of the {T}"
        text = (f"{count} old output rows changed: {quote(ext.before.labels[hi])} moved most "
                f"(‖Δ‖ = {float(change[hi]):.4f}, {float(relative[hi]):.1%} of its length) and "
                f"{quote(ext.before.labels[lo])} least ({float(change[lo]):.4f}), because each output row is "
                f"a weighted sum of the value vectors of every key it can see{mix}, and {new}'s value "
                "vector now takes a share of that sum.")
    return Outputs(change=change, relative=relative, changed=changed, sentence=text)


# --------------------------------------------------------------------------- the twists
@dataclass(frozen=True)
class Twist:
    name: str                  # "causal" or "positions"
    already_on: bool           # the base config already had it: the twisted run is the main run
    max_row_change: float      # max |new − old| over the first T rows, every head
    ratio_error: float         # max |new − factor · old|, every head
    score_change: float        # max |old scores in the T+1 run − scores in the T run|
    input_shift: float         # max |twisted inputs − base inputs| over the old tokens
    factor_range: tuple[float, float]
    output_change: float       # max ‖Δ output row‖ over the old rows
    sentence: str


def twist(base: Extension, twisted: Extension, name: str, quote: Quote = _plain_quote) -> Twist:
    """Compare the exercise with the causal mask or positions switched on against the base run."""
    if name not in ("causal", "positions"):
        raise ValueError(f"twist must be 'causal' or 'positions', got {name!r}")
    T = twisted.before.T
    if base.before.T != T:
        raise ValueError(f"the two runs have {base.before.T} and {T} old tokens")
    cfg = twisted.before.config
    already = cfg == base.before.config
    max_row = float(np.max(np.abs(twisted.diff)))
    finite = np.isfinite(twisted.before.scaled)                       # (H, T, T); -inf where masked
    score_change = float(np.max(np.abs(np.where(finite, twisted.after.scaled[:, :T, :T], 0.0)
                                       - np.where(finite, twisted.before.scaled, 0.0))))
    shift = float(np.max(np.abs(twisted.before.x_in - base.before.x_in)))
    lo, hi = float(np.min(twisted.factors)), float(np.max(twisted.factors))
    out = float(np.max(twisted.output_change))
    new = quote(twisted.after.labels[T])
    note = " (already on in the sidebar, so this is the run above)" if already else ""
    if name == "causal":
        text = (f"With the causal mask{note}, the largest change in the first {T} rows is "
                f"{tiny(max_row)} in every head, and their outputs move by at most {tiny(out)}: no old "
                f"query can see {new}, so nothing about them changes.")
    else:
        moved = ("the inputs already carry positions" if already else
                 f"positions change the inputs (by up to {shift:.3f} per entry), so the scores and factors "
                 "differ from the run above")
        text = (f"With sinusoidal positions{note}, {moved}; but position i's code depends only on i, so "
                f"the first {T} inputs and their scores are the same in both runs (largest change "
                f"{tiny(score_change)}) and each old row is still multiplied by one factor "
                f"(here {lo:.4f} to {hi:.4f}; ratio error {tiny(twisted.ratio_error)}).")
    return Twist(name=name, already_on=already, max_row_change=max_row, ratio_error=twisted.ratio_error,
                 score_change=score_change, input_shift=shift, factor_range=(lo, hi), output_change=out,
                 sentence=text)


def new_row(ext: Extension, head: int, quote: Quote = _plain_quote) -> str:
    """One sentence on the new token's own row: where it looks, against a uniform row."""
    _check_head(ext, head)
    T = ext.before.T
    row = ext.after.weights[head, T]                                  # (T+1,)
    top = int(np.argmax(row))
    return (f"the new token {quote(ext.after.labels[T])} has a row of its own: it attends most to "
            f"{quote(ext.after.labels[top])} ({float(row[top]):.3f}; a uniform row would give "
            f"{1 / (T + 1):.3f} each)")


def notice(ext: Extension, head: int, quote: Quote = _plain_quote) -> str:
    """The page's 'what to notice': what the old rows did, and the new token's own row."""
    r = rows(ext, head)
    if r.max_change <= SAME:
        first = f"the {r.T} old rows are untouched"
    else:
        first = (f"no old row was reshuffled, each only shrank (factors {float(np.min(r.factor)):.4f} to "
                 f"{float(np.max(r.factor)):.4f}), and what each gave up is exactly its entry in the new column")
    return f"{first}; {new_row(ext, head, quote)}."


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st, …"""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
