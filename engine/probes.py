"""The samples a head's role is checked on (issue 50): for each role, the units (windows of text or a task's
sequences) its score is measured on, the keys it looks at, and the loss a knock-out of it is judged on; on the
held-out sample the pages measure, and on transfer samples off it: sequences of random tokens with a repeated
span, held-out windows with their word order shuffled, a task's sequences longer than training."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .config import MAX_TOKENS, Config
from .language import MARKS, SEED, chosen_queries, held_out
from .sequences import induction_keys
from .tasks import Task, get_task
from .text import vocabulary

KINDS = ("previous", "current", "first", "last mark", "induction", "task")  # the roles a probe checks
TEXT_SAMPLES = ("held_out", "shuffled", "random")  # a text model's: the pages', word order shuffled, random tokens
SHUFFLE_SEED = 7  # what the shuffled control's orders are drawn from (added to the windows' seed)


@dataclass(frozen=True)
class Probe:
    """One role on one sample: where it looks, and the loss that says whether it matters."""

    role: str  # the role's name, as the pages write it
    tokens: np.ndarray  # (n, T) the units the score is measured on
    keys: np.ndarray  # (n, T, T) for each query, the keys the role looks at
    queries: np.ndarray  # (n, T) the queries the score counts (each has at least one key)
    loss_tokens: np.ndarray  # (m, T) the units a knock-out's effect is measured on
    loss_targets: np.ndarray  # (m, T) the targets of the role's loss, -1 where not scored
    loss: str  # in words: the loss the role is judged on
    sample: str  # in words: the units


def role_kind(role: str) -> str:
    """The kind of a role named as engine.evidence.HeadScores or engine.language.Roles name it."""
    if role.endswith("(task keys)"):
        return "task"  # first: a task may be called "induction" or "previous token" too
    if role.startswith("previous token"):
        return "previous"
    if role.startswith("first token"):
        return "first"
    if role.startswith("current token"):
        return "current"
    if role.startswith("last punctuation"):
        return "last mark"
    if role.startswith("induction"):
        return "induction"
    raise ValueError(f"no control sample for the role {role!r}; roles checked: {', '.join(KINDS)}")


def _probe(role, tokens, keys, queries, loss_tokens, loss_targets, loss, sample) -> Probe:
    queries = queries & keys.any(axis=-1)  # (n, T): a query without a key of the role says nothing
    if not queries.any():
        raise ValueError(f"no query of the sample has a key of the role {role!r}")
    arrays = [np.array(a) for a in (tokens, keys, queries, loss_tokens, loss_targets)]
    for array in arrays:
        array.setflags(write=False)
    return Probe(role, *arrays, loss=loss, sample=sample)


def positional_keys(kind: str, n: int, T: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, T, T) keys and (n, T) queries of a role of position: key i-1 ("previous") or key 0 ("first") for the
    queries i >= 1, key i ("current") for every query."""
    query, key = np.indices((T, T))  # (T, T) each
    keys = {"previous": key == query - 1, "first": key == 0, "current": key == query}[kind]  # (T, T)
    return np.broadcast_to(keys, (n, T, T)), np.broadcast_to(np.arange(T) >= (kind != "current"), (n, T))


def mark_keys(tokens: np.ndarray) -> np.ndarray:
    """(n, T, T) for each query, the latest punctuation mark before it (engine.language.MARKS), where there is one:
    the "last punctuation" role's key."""
    T = tokens.shape[1]
    query, key = np.indices((T, T))  # (T, T) each
    marks = np.isin(tokens, [vocabulary().index(m) for m in MARKS])  # (n, T)
    before = np.where(marks[:, None, :] & (key < query), key, -1)  # (n, T, T): marks before each query
    return (key == before.max(axis=-1, keepdims=True)) & (before.max(axis=-1, keepdims=True) >= 0)


def repeated_halves(tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each sequence's first half, twice (n, 2h), the keys right after the first copy of each query's token
    (n, 2h, 2h), and the second copy's queries (n, 2h): engine.evidence.head_scores' induction test."""
    half = tokens.shape[1] // 2
    repeated = np.concatenate([tokens[:, :half], tokens[:, :half]], axis=1)  # (n, 2h)
    key = np.arange(2 * half)[None, None, :]  # (1, 1, 2h)
    keys = induction_keys(repeated) & (key < half + 1)  # (n, 2h, 2h): in the first copy
    return repeated, keys, np.broadcast_to(np.arange(2 * half) >= half, repeated.shape)


def next_targets(tokens: np.ndarray, scored: np.ndarray) -> np.ndarray:
    """(n, T) the next token where scored (n, T) says so and there is one, -1 elsewhere."""
    targets = np.full(tokens.shape, -1)
    targets[:, :-1] = np.where(scored[:, :-1], tokens[:, 1:], -1)
    return targets


def task_probe(task: str | Task, role: str, n: int = 200, seed: int = 1, T: int | None = None) -> Probe:
    """A role of a task preset's head on n of the task's fresh sequences of T tokens (None: its training length;
    longer: the transfer sample) from RandomState(seed), judged on the task's own loss over those sequences."""
    task, kind = get_task(task), role_kind(role)
    tokens, targets = task.fresh(np.random.RandomState(seed), n, T)  # (n, T) each
    T = tokens.shape[1]
    words = f"{n} fresh sequences of {T} tokens (seed {seed})"
    loss = f"the {task.title} task's loss"
    if kind == "last mark":
        raise ValueError("the last punctuation role is the text model's")
    if kind in ("previous", "first", "current"):
        keys, queries = positional_keys(kind, n, T)
        return _probe(role, tokens, keys, queries, tokens, targets, loss, words)
    if kind == "induction":
        repeated, keys, queries = repeated_halves(tokens)
        return _probe(role, repeated, keys, queries, tokens, targets, loss, words + ", first half repeated")
    return _probe(role, tokens, task.expected_keys(tokens), targets >= 0, tokens, targets, loss, words)


TRANSFER_STRETCH = 1.25  # a task's transfer sequences are this much longer than its training ones


def transfer_length(task: str | Task) -> int:
    """A task's transfer sample's length: a quarter longer than its training length, rounded up (10 tokens for
    8, 20 for 16; at most the engine's MAX_TOKENS). Every position past the training length is one the model
    never saw, while most of each sequence still sits where it trained: a head that learned its role keeps it,
    one tied to the training length loses it. (At twice the length the previous-token and induction heads of
    every preset fall below 0.8 of their score: that measures a new regime of positions, not the role.)"""
    seq_len = get_task(task).seq_len
    return min(max(seq_len + 1, math.ceil(TRANSFER_STRETCH * seq_len)), MAX_TOKENS)


def shuffled(tokens: np.ndarray, seed: int) -> np.ndarray:
    """(n, T) each row of tokens with its order shuffled, by its own permutation from RandomState(seed)."""
    rng = np.random.RandomState(seed)
    order = np.argsort(rng.rand(*tokens.shape), axis=1)  # (n, T) a permutation per row
    return np.take_along_axis(tokens, order, axis=1)


def random_repeats(vocab_size: int, n: int, T: int, seed: int) -> np.ndarray:
    """(n, 2·(T // 2)) sequences of random tokens (any but id 0, <unk>) from RandomState(seed), their first half
    repeated: the standard test of previous-token and induction heads."""
    if vocab_size < 3 or T < 4:
        raise ValueError(f"random repeats need a vocabulary of at least 3 and T >= 4, got {vocab_size} and {T}")
    half = np.random.RandomState(seed).randint(1, vocab_size, size=(n, T // 2))  # (n, h)
    return np.concatenate([half, half], axis=1)  # (n, 2h)


def text_probe(cfg: Config, role: str, sample: str = "held_out", n: int = 256, seed: int = SEED, T: int = 64) -> Probe:
    """A role of the English text model's head: on the held-out windows the pages measure (engine.language's:
    plain ones for a role of position, ones repeating a span for induction), on those windows with their word
    order shuffled, or on sequences of random tokens with a repeated span. Judged on the next-token loss: over
    every position for a role of position, over the second copy's positions for induction."""
    if sample not in TEXT_SAMPLES:
        raise ValueError(f"sample must be one of {TEXT_SAMPLES}, got {sample!r}")
    kind = role_kind(role)
    if kind == "task":
        raise ValueError("the text model's roles are previous token, first token and induction")
    if sample == "random":
        tokens = random_repeats(cfg.vocab_size, n, T, seed)  # (n, 2h)
        half = tokens.shape[1] // 2
        if kind == "induction":
            _, keys, queries = repeated_halves(tokens)
        elif kind == "last mark":
            keys, queries = mark_keys(tokens), np.ones(tokens.shape, dtype=bool)
        else:
            keys, queries = positional_keys(kind, n, tokens.shape[1])
        scored = queries if kind == "induction" else np.ones(tokens.shape, dtype=bool)
        words = f"{n} sequences of {half} random tokens, repeated (seed {seed})"
        loss = "loss on second-copy positions" if kind == "induction" else "next-token loss"
        return _probe(role, tokens, keys, queries, tokens, next_targets(tokens, scored), loss, words)
    windows = held_out(n, seed + 1, T, repeat_share=1.0) if kind == "induction" else held_out(n, seed, T)
    tokens, targets = windows.tokens, windows.targets  # (n, T) each
    chosen = chosen_queries(cfg, n, T)  # (n, T)
    words = f"{n} held-out windows of {T} tokens" + (" repeating a span" if kind == "induction" else "")
    if sample == "shuffled":
        tokens = shuffled(tokens, seed + SHUFFLE_SEED)
        words += ", word order shuffled"
    if kind == "induction":
        if sample == "held_out":
            keys, queries = windows.copy_keys(), windows.copy_queries()
            targets = np.where(queries, targets, -1)
        else:
            keys = induction_keys(tokens) & (tokens != 0)[:, :, None]  # (n, T, T): after an earlier copy, no <unk>
            queries = keys.any(axis=-1)
            targets = next_targets(tokens, queries)
        return _probe(role, tokens, keys, queries & chosen, tokens, targets, "loss on second-copy positions", words)
    if sample == "shuffled":
        targets = next_targets(tokens, np.ones(tokens.shape, dtype=bool))
    if kind == "last mark":
        keys, queries = mark_keys(tokens), np.ones(tokens.shape, dtype=bool)
    else:
        keys, queries = positional_keys(kind, n, T)
    return _probe(role, tokens, keys, queries & chosen, tokens, targets, "held-out next-token loss", words)
