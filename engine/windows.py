"""Windows of real text for next-token training: each starts at a sentence start; in some of them a
span of the window's own text comes again, so that copying it (an induction head) pays.

A window of T tokens reads T + 1 tokens of one chapter, x[0] .. x[T]: its tokens are x[0:T] and its
targets x[1:T+1]. A repeating window puts a span of m earlier tokens x[s:s+m] again at position a
(s + m <= a, a + m <= T), then goes on with the text that followed x[a-1]: x[a], x[a+1], ...
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .text import REPEAT_SHARE, SPLITS, corpus

MIN_SPAN = 4  # a repeated span has MIN_SPAN .. T // 2 tokens
MIN_REPEAT_T = 3 * MIN_SPAN  # shorter windows never repeat


@dataclass(frozen=True)
class Windows:
    """n windows of T tokens, and where their repeated span is (-1 and 0 where none)."""

    tokens: np.ndarray  # (n, T) ids
    begin: np.ndarray  # (n,) where in the corpus each window's text starts (a sentence start)
    targets: np.ndarray  # (n, T) the next token at every position
    first: np.ndarray  # (n,) where the span's first copy starts, -1 without a repeat
    second: np.ndarray  # (n,) where its second copy starts, -1 without a repeat
    span: np.ndarray  # (n,) the span's length m, 0 without a repeat

    def copy_queries(self) -> np.ndarray:
        """(n, T) True at second-copy positions a .. a+m-2, whose next token the first copy shows."""
        pos = np.arange(self.tokens.shape[1])[None, :]  # (1, T)
        second, span = self.second[:, None], self.span[:, None]  # (n, 1) each
        return (second >= 0) & (pos >= second) & (pos < second + span - 1)

    def copy_keys(self) -> np.ndarray:
        """(n, T, T) for each copy query i the one key an induction head reads: the token after the
        earlier copy of token i, at i - (a - s) + 1."""
        n, T = self.tokens.shape
        key = np.arange(T)[None, :] - (self.second - self.first)[:, None] + 1  # (n, T)
        return self.copy_queries()[:, :, None] & (np.arange(T)[None, None, :] == key[:, :, None])


def room_starts(split: str, T: int) -> np.ndarray:
    """(S,) the sentence starts of split with T + 1 tokens of their chapter from them."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    text = corpus()
    usable = (text.start_held_out == (split == "held_out")) & (text.room >= T + 1)
    return text.starts[usable]


def windows(split: str, rng: np.random.RandomState, n: int, T: int, repeat_share: float = REPEAT_SHARE) -> Windows:
    """n windows of T tokens from split ("train" or "held_out"), each starting at a sentence start
    drawn from rng; about repeat_share of them (none when T < MIN_REPEAT_T) repeat a span."""
    if not isinstance(rng, np.random.RandomState):
        raise ValueError("rng must be a numpy RandomState (the engine never uses the global stream)")
    if not 0 <= repeat_share <= 1:
        raise ValueError(f"repeat_share must lie in 0..1, got {repeat_share!r}")
    starts = room_starts(split, T)
    if not len(starts):
        raise ValueError(f"no chapter of {split!r} holds {T + 1} tokens from a sentence start")
    begin = starts[rng.randint(len(starts), size=n)]  # (n,)
    x = corpus().ids[begin[:, None] + np.arange(T + 1)].astype(np.int64)  # (n, T+1)
    top = max(T // 2, MIN_SPAN)
    span = rng.randint(MIN_SPAN, top + 1, size=n)  # (n,) m
    second = span + (rng.rand(n) * (T - 2 * span + 1)).astype(int)  # (n,) a in m .. T-m
    first = (rng.rand(n) * (second - span + 1)).astype(int)  # (n,) s in 0 .. a-m
    repeats = (rng.rand(n) < repeat_share) & (T >= MIN_REPEAT_T)  # (n,)
    pos = np.arange(T + 1)[None, :]  # (1, T+1)
    a, s, m = second[:, None], first[:, None], span[:, None]  # (n, 1) each
    source = np.where(pos < a, pos, np.where(pos < a + m, s + pos - a, pos - m))  # (n, T+1)
    source = np.clip(source, 0, T)  # rows that do not repeat may hold nonsense
    x = np.where(repeats[:, None], np.take_along_axis(x, source, axis=1), x)  # (n, T+1)
    return Windows(
        tokens=x[:, :-1],
        begin=begin,
        targets=x[:, 1:],
        first=np.where(repeats, first, -1),
        second=np.where(repeats, second, -1),
        span=np.where(repeats, span, 0),
    )


# --------------------------------------------------------------------------- the "text" task's functions
def text_draw(rng, n, T, V):
    drawn = windows("train", rng, n, T)
    return drawn.tokens.copy(), drawn.targets.copy()


def text_held_out(rng, n, T):
    """Plain windows of the held-out chapters (no span repeated): the text the pages measure on."""
    drawn = windows("held_out", rng, n, T, repeat_share=0.0)
    return drawn.tokens.copy(), drawn.targets.copy()


def text_shown(rng, n, T):
    """Windows of the held-out chapters in which a span of their text repeats: what a page shows."""
    drawn = windows("held_out", rng, n, T, repeat_share=1.0)
    return drawn.tokens.copy(), drawn.targets.copy()


def text_answers(tokens):
    targets = np.full(tokens.shape, -1)
    targets[:, :-1] = tokens[:, 1:]  # the next token; the last has none here
    return targets


def text_keys(tokens):
    """Key j for query i: what followed an earlier copy of token i (j - 1 holds it, j <= i), where
    that is the next token (i + 1): the keys that make copying right. <unk> is never copied."""
    n, T = tokens.shape
    query, key = np.indices((T, T))  # (T, T) each
    before = np.concatenate([np.full((n, 1), -1), tokens[:, :-1]], axis=1)  # (n, T) token at j-1
    after = np.concatenate([tokens[:, 1:], np.full((n, 1), -1)], axis=1)  # (n, T) token at i+1
    copies = before[:, None, :] == tokens[:, :, None]  # (n, T, T): token at j-1 == token at i
    right = tokens[:, None, :] == after[:, :, None]  # (n, T, T): token at j == token at i+1
    return copies & right & (key <= query) & (tokens != 0)[:, :, None]
