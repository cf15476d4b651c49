"""The letter and digit tasks' sequences (engine.tasks): for each task, how its sequences are drawn, the answer at
every position, and the keys a head that solves it attends to. Each `<task>_draw(rng, n, T, V)` gives (n, T) token
ids, `<task>_answers(tokens)` the (n, T) targets (-1 where a position is not scored) and `<task>_keys(tokens)` the
(n, T, T) expected keys. The English text's windows are engine.windows'.
"""

from __future__ import annotations

import numpy as np


def _grid(tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(T, T) grids of the query index i and the key index j, to build patterns by comparison."""
    T = tokens.shape[1]
    return np.indices((T, T))


def _every_sequence(pattern: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """(T, T) -> (n, T, T): a position-only pattern, the same in every sequence."""
    return np.repeat(pattern[None], len(tokens), axis=0)


def _uniform(rng, n, T, V):
    return rng.randint(0, V, size=(n, T))  # (n, T)


# --------------------------------------------------------------------------- previous token
def previous_draw(rng, n, T, V):
    tokens = _uniform(rng, n, T, V)  # (n, T)
    return tokens, previous_answers(tokens)


def previous_answers(tokens):
    targets = np.full(tokens.shape, -1)
    targets[:, 1:] = tokens[:, :-1]  # position 0 has no previous token
    return targets


def previous_keys(tokens):
    query, key = _grid(tokens)
    return _every_sequence(key == query - 1, tokens)  # (n, T, T): just below the diagonal


# --------------------------------------------------------------------------- first token
def first_draw(rng, n, T, V):
    tokens = _uniform(rng, n, T, V)  # (n, T)
    return tokens, first_answers(tokens)


def first_answers(tokens):
    targets = np.full(tokens.shape, -1)
    targets[:, 1:] = tokens[:, :1]  # position 0 would only copy itself
    return targets


def first_keys(tokens):
    query, key = _grid(tokens)
    return _every_sequence(key == 0, tokens)  # (n, T, T): column 0


# --------------------------------------------------------------------------- reverse
def reverse_draw(rng, n, T, V):
    tokens = _uniform(rng, n, T, V)  # (n, T)
    return tokens, reverse_answers(tokens)


def reverse_answers(tokens):
    return tokens[:, ::-1].copy()  # target at i: the token at T-1-i


def reverse_keys(tokens):
    query, key = _grid(tokens)
    return _every_sequence(key == tokens.shape[1] - 1 - query, tokens)  # (n, T, T): the anti-diagonal


# --------------------------------------------------------------------------- largest token
def max_draw(rng, n, T, V):
    """The largest token is uniform over the vocabulary (so small maxima are as common as large
    ones); the others are uniform below or equal to it; one random position holds it."""
    largest = rng.randint(0, V, size=(n, 1))  # (n, 1)
    tokens = (rng.rand(n, T) * (largest + 1)).astype(int)  # (n, T) uniform in 0 .. largest
    tokens[np.arange(n), rng.randint(0, T, size=n)] = largest[:, 0]  # at least one copy of it
    return tokens, np.repeat(largest, T, axis=1)  # every position: the largest


def max_answers(tokens):
    return np.repeat(tokens.max(axis=1, keepdims=True), tokens.shape[1], axis=1)  # (n, T)


def max_keys(tokens):
    T = tokens.shape[1]
    holds_max = tokens == tokens.max(axis=1, keepdims=True)  # (n, T)
    return np.repeat(holds_max[:, None, :], T, axis=1)  # (n, T, T): the same keys for every query


# --------------------------------------------------------------------------- induction
def induction_draw(rng, n, T, V):
    """A segment of m distinct tokens (m from 2 to min(8, T // 3)) appears twice, the second copy
    `offset` positions after the first (m and the offset vary from sequence to sequence); filler
    positions hold tokens that are not in the segment. Scored: the positions of the
    second copy but its last, where the next token is the one that followed the current token in
    the first copy. Everything else is -1."""
    m_max = min(8, T // 3, V - 1)
    m = rng.randint(2, m_max + 1, size=n)  # (n,) segment lengths
    start1 = (rng.rand(n) * (T - 2 * m + 1)).astype(int)  # (n,) first copy: start1 .. start1+m-1
    start2 = start1 + m + (rng.rand(n) * (T - 2 * m - start1 + 1)).astype(int)  # (n,) second copy after it
    order = rng.rand(n, V).argsort(axis=1)  # (n, V) a shuffled vocabulary per sequence
    pick = m[:, None] + (rng.rand(n, T) * (V - m)[:, None]).astype(int)  # (n, T) filler: order[m:], uniformly
    tokens = np.take_along_axis(order, pick, axis=1)  # (n, T)
    pos = np.arange(T)[None, :]  # (1, T)
    for start in (start1, start2):
        inside = (pos >= start[:, None]) & (pos < (start + m)[:, None])  # (n, T)
        segment = np.take_along_axis(order, np.clip(pos - start[:, None], 0, V - 1), axis=1)  # (n, T)
        tokens = np.where(inside, segment, tokens)  # order[:m] is the segment
    targets = np.full((n, T), -1)
    scored = (pos >= start2[:, None]) & (pos < (start2 + m - 1)[:, None])  # (n, T)
    following = np.concatenate([tokens[:, 1:], tokens[:, -1:]], axis=1)  # (n, T) the next token
    targets[scored] = following[scored]
    return tokens, targets


def induction_answers(tokens):
    """At i: the token that followed the last earlier copy of token i (-1 if token i is new). On the
    task's own sequences this is the target wherever the task scores one."""
    n, T = tokens.shape
    targets = np.full((n, T), -1)
    for i in range(1, T):
        for j in range(i - 1, -1, -1):  # the latest earlier copy first
            found = (tokens[:, j] == tokens[:, i]) & (targets[:, i] < 0)
            targets[found, i] = tokens[found, j + 1]
    return targets


def induction_keys(tokens):
    """Key j for query i: j <= i and the token at j - 1 is the token at i (what followed it before)."""
    query, key = _grid(tokens)
    before = np.concatenate([np.full((len(tokens), 1), -1), tokens[:, :-1]], axis=1)  # (n, T) token at j-1
    same = before[:, None, :] == tokens[:, :, None]  # (n, T, T): token at j-1 == token at i
    return same & (key <= query)
