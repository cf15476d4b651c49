"""Small next-token tasks whose solution is one attention pattern, each with the keys that pattern uses.

A task draws sequences of token ids (n, T) and targets (n, T) (-1 where a position is not scored),
and says, for every query, which keys a head that solves it attends to: expected_keys (n, T, T).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .config import MAX_TOKENS, Config
from .text import read_text, vocabulary
from .windows import text_answers, text_draw, text_held_out, text_keys, text_shown

LETTERS = tuple("ABCDEFGHIJKLMNOP")
DIGITS = tuple("0123456789")


@dataclass(frozen=True)
class Task:
    """A task, and the model and training defaults that solve it in seconds on one core."""

    name: str  # key in TASKS
    title: str  # a few words for a heading, e.g. "previous token"
    config: Config  # the model: vocab, sizes, mask, positions, layers
    seq_len: int  # T of the training sequences
    steps: int  # Adam steps of a default run
    batch: int  # sequences per step
    lr: float  # Adam's learning rate
    min_len: int  # shortest T the task is defined for
    draw: Callable[[np.random.RandomState, int, int, int], tuple[np.ndarray, np.ndarray]]
    keys: Callable[[np.ndarray], np.ndarray]
    answers: Callable[[np.ndarray], np.ndarray]  # (n, T) ids -> (n, T) the task's answer, -1 where none
    target: str = ""  # a sentence: what the target at position i is
    pattern: str = ""  # the attention pattern that solves it, completing "a head must …"
    note: str = ""  # anything more a student needs (e.g. why one layer is not enough)
    held_out: Callable | None = None  # (rng, n, T) -> (tokens, targets) the pages measure on, where the task
    # has text it never trained on (None: fresh draws of `draw`)
    read: Callable | None = None  # typed text -> (tokens, unknown words shown as a stand-in); None: split and
    # keep the vocabulary's words (the letter and digit tasks)
    prefixes: bool = False  # a prefix of one of its sequences is one of its sequences too (shorter
    # windows of text): shown on fewer tokens, the model is within its training
    shown: Callable | None = None  # (rng, n, T) -> (tokens, targets) sequences a page shows by default (held-out
    # text in which a span repeats); None: draws of `draw`

    @property
    def vocab(self) -> tuple[str, ...]:
        return self.config.vocab

    def sample(self, rng: np.random.RandomState, n: int, T: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """n sequences of T tokens (n, T) and their targets (n, T), -1 where not scored (read-only)."""
        T = self.seq_len if T is None else T
        if not isinstance(rng, np.random.RandomState):
            raise ValueError("rng must be a numpy RandomState (the engine never uses the global stream)")
        for name, value, low, high in (("n", n, 1, 10**6), ("T", T, self.min_len, MAX_TOKENS)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not low <= value <= high:
                raise ValueError(f"{name} must be a whole number in {low}..{high} for {self.name!r}, got {value!r}")
        tokens, targets = self.draw(rng, int(n), int(T), self.config.vocab_size)
        tokens.setflags(write=False)
        targets.setflags(write=False)
        return tokens, targets

    def fresh(self, rng: np.random.RandomState, n: int, T: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """n sequences the pages measure the model on: held-out text where the task has some, else fresh
        draws (sample)."""
        if self.held_out is None:
            return self.sample(rng, n, T)
        T = self.seq_len if T is None else T
        tokens, targets = self.held_out(rng, int(n), int(T))
        tokens.setflags(write=False)
        targets.setflags(write=False)
        return tokens, targets

    def expected_keys(self, tokens) -> np.ndarray:
        """(n, T, T) bools: True where a head that solves the task puts query i's weight on key j."""
        tokens = np.asarray(tokens)
        if tokens.ndim != 2 or not np.issubdtype(tokens.dtype, np.integer):
            raise ValueError(f"tokens must be an (n, T) array of ids, got {tokens.dtype} {tokens.shape}")
        keys = self.keys(tokens)
        keys.setflags(write=False)
        return keys

    def targets(self, tokens) -> np.ndarray:
        """(n, T) the task's answer at every position of any sequence (a typed one too), -1 where the
        task gives none (e.g. induction at a token seen for the first time)."""
        tokens = np.asarray(tokens)
        if tokens.ndim != 2 or not np.issubdtype(tokens.dtype, np.integer):
            raise ValueError(f"tokens must be an (n, T) array of ids, got {tokens.dtype} {tokens.shape}")
        return self.answers(tokens)


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


def _config(vocab, **changes) -> Config:
    """One head, pre-layer-norm, residuals, sinusoidal positions, a Day 33-style embedding table."""
    base = dict(
        d_model=16,
        num_heads=1,
        d_ff=32,
        seed=0,
        causal=False,
        positional="sinusoidal",
        layer_norm=True,
        init="fan_in",
        init_scale=1.0,
        vocab=vocab,
        embedding_stream="weights",
        unembedding=True,
    )
    return Config(**{**base, **changes})


def _task(
    name, title, config, functions, target, pattern, note="", seq_len=8, steps=400, batch=32, lr=0.04, min_len=2, **text
) -> Task:
    draw, keys, answers = functions
    return Task(
        name=name,
        title=title,
        config=config,
        seq_len=seq_len,
        steps=steps,
        batch=batch,
        lr=lr,
        min_len=min_len,
        draw=draw,
        keys=keys,
        answers=answers,
        target=target,
        pattern=pattern,
        note=note,
        **text,
    )


# Adding a task: its functions above and one entry here; the app reads names, titles and words from it.
# Steps and rates: each one-block task's head is sharp (>= 97 % of queries put >= 0.9 of their weight
# on the expected keys) a little before its last step; induction's loss plateaus for ~300 steps, then
# drops, and the run ends once it is down (tests/test_train_*.py; benchmarks/train_bench.py).
TASKS: dict[str, Task] = {
    "previous": _task(
        "previous",
        "previous token",
        _config(LETTERS[:8], causal=True),
        (previous_draw, previous_keys, previous_answers),
        "The target at position i is the token at position i − 1 (position 0 is not scored).",
        "look one step back: the diagonal just below the main one",
        steps=250,
        lr=0.06,
    ),
    "first": _task(
        "first",
        "first token",
        _config(LETTERS[:8], causal=True),
        (first_draw, first_keys, first_answers),
        "The target at every position after the first is the token at position 0.",
        "look at the first token: column 0",
        steps=100,
        lr=0.06,
    ),
    "reverse": _task(
        "reverse",
        "reverse",
        _config(LETTERS[:8]),
        (reverse_draw, reverse_keys, reverse_answers),
        "The target at position i is the token at position T − 1 − i: the sequence read backwards.",
        "look at the mirrored position: the anti-diagonal",
        min_len=1,
        steps=110,
        lr=0.06,
    ),
    "max": _task(
        "max",
        "largest token",
        _config(DIGITS, positional="none"),
        (max_draw, max_keys, max_answers),
        "The target at every position is the largest token of the whole sequence.",
        "look at the positions holding the largest token: a pattern of content, not of position",
        min_len=1,
        steps=300,
        lr=0.03,
    ),
    "induction": _task(
        "induction",
        "induction",
        _config(LETTERS, d_model=32, num_heads=2, d_ff=32, causal=True, layer_norm=False, n_layers=2),
        (induction_draw, induction_keys, induction_answers),
        "Inside a repeated segment, the target is the token that followed the current one the first time it appeared.",
        "look at the token right after the earlier occurrence of the current one",
        "One layer cannot: a key does not know which token came before it. With two, a first-layer head can "
        "copy the previous token into each position, and a second-layer head (an induction head) can then find "
        "it: the circuit behind much of what large language models copy from their context.",
        seq_len=16,
        steps=480,
        lr=0.02,
        min_len=6,
    ),
    "text": _task(
        "text",
        "English text",
        _config(vocabulary(), d_model=64, num_heads=4, d_ff=256, causal=True, n_layers=2),
        (text_draw, text_keys, text_answers),
        "The target at position i is the token at position i + 1: the next word (or mark) of Jane Austen's "
        "novels, in windows that start at a sentence start.",
        "look at the token right after an earlier copy of the current one, where the text repeats itself",
        "No single pattern solves language: the heads share the work. Half of the windows repeat a span of "
        "their own text, so copying pays there; words outside the 999 most frequent are <unk>.",
        seq_len=64,
        steps=2500,
        batch=32,
        lr=0.01,
        min_len=2,
        held_out=text_held_out,
        read=read_text,
        prefixes=True,
        shown=text_shown,
    ),
}


def get_task(task: str | Task) -> Task:
    """A Task from its name (or the Task itself)."""
    if isinstance(task, Task):
        return task
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose one of: {', '.join(TASKS)}")
    return TASKS[task]
