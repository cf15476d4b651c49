"""Small next-token tasks whose solution is one attention pattern, each with the keys that pattern uses.

A task draws sequences of token ids (n, T) and targets (n, T) (-1 where a position is not scored),
and says, for every query, which keys a head that solves it attends to: expected_keys (n, T, T).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .config import MAX_TOKENS, Config
from .sequences import (
    first_answers,
    first_draw,
    first_keys,
    induction_answers,
    induction_draw,
    induction_keys,
    max_answers,
    max_draw,
    max_keys,
    previous_answers,
    previous_draw,
    previous_keys,
    reverse_answers,
    reverse_draw,
    reverse_keys,
)
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


# Adding a task: its functions (engine/sequences.py) and one entry here; the app reads names, titles and words from it.
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
