"""Evidence of what a trained model does, from the one forward: its accuracy on a task, whole and
per position, with heads knocked out; and each head's attention on the keys known roles look at."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import log_softmax
from .config import Config
from .measure import expected_share
from .model import check_batch, forward
from .params import Params
from .sample import Sample, measured
from .tasks import Task, get_task

ABLATE_MODES = ("zero", "mean")  # a knocked-out head outputs zeros, or its mean output over a batch
MEANS_SEED, MEANS_N = 3, 1000  # the task's sequences whose mean head outputs mean-ablation uses


def head_means(cfg: Config, params: Params, tokens) -> np.ndarray:
    """(L, H, T, D): each head's output (weights · V) at each position, averaged over the sequences
    tokens (n, T) in the untouched model: what mean-ablation puts in a knocked-out head's place."""
    tokens, _ = check_batch(cfg, params, tokens)
    stack = forward(cfg, params, params.embeddings[tokens])  # (n, T, C) -> every block
    return np.stack([trace.heads.mean(axis=0) for trace in stack.layers])  # L × (n, H, T, D) -> (L, H, T, D)


def task_means(
    task: str | Task, cfg: Config, params: Params, ablate_mode: str = "zero", T: int | None = None
) -> np.ndarray | None:
    """The means a knock-out in ablate_mode uses on task's sequences of length T: None for "zero",
    head_means over MEANS_N of the task's sequences from RandomState(MEANS_SEED) for "mean"."""
    if ablate_mode not in ABLATE_MODES:
        raise ValueError(f"ablate_mode must be one of {ABLATE_MODES}, got {ablate_mode!r}")
    if ablate_mode == "zero":
        return None
    tokens, _ = get_task(task).sample(np.random.RandomState(MEANS_SEED), MEANS_N, T)
    return head_means(cfg, params, tokens)


def predict(cfg: Config, params: Params, tokens, ablate=(), means: np.ndarray | None = None) -> np.ndarray:
    """The most likely next token (B, T) at every position of every sequence in tokens (B, T)."""
    tokens, _ = check_batch(cfg, params, tokens)
    stack = forward(cfg, params, params.embeddings[tokens], ablate=ablate, means=means)  # logits (B, T, V)
    return stack.logits.argmax(axis=-1)  # (B, T)


def evaluate(
    task: str | Task, cfg: Config, params: Params, n: int = 1000, seed: int = 1, ablate=(), ablate_mode: str = "zero"
) -> float:
    """Share of scored positions predicted right on n fresh sequences drawn from RandomState(seed) (the
    task's held-out text where it has some), with the (layer, head) pairs in ablate knocked out (their
    output zeroed, or their mean output): position_metrics' overall accuracy, from the same forward."""
    return position_metrics(task, cfg, params, n, seed, ablate, ablate_mode).overall_accuracy


@dataclass(frozen=True)
class PositionMetrics:
    """A task's loss and accuracy at each position over n fresh sequences."""

    scored: np.ndarray  # (T,) True where at least one sequence has a target
    count: np.ndarray  # (T,) how many sequences score this position
    loss: np.ndarray  # (T,) mean -log p(target) over those sequences (0 where unscored)
    accuracy: np.ndarray  # (T,) share predicted right over those sequences (0 where unscored)
    next_loss: np.ndarray  # (T-1,) mean -log p(the token that follows) at positions 0..T-2, scored or not
    right: np.ndarray  # (T,) how many of those sequences are predicted right there
    sequences: int = 0  # n: how many sequences were measured
    sample: Sample | None = None  # what they were (ui.prose.sample words it): every figure of these carries it

    @property
    def overall_accuracy(self) -> float:
        """Share of every scored position predicted right: evaluate's number, from the same forward."""
        return float(self.right.sum() / self.count.sum())

    @property
    def overall_loss(self) -> float:
        """Mean -log p(target) over every scored position."""
        return float((self.loss * self.count).sum() / self.count.sum())


CELLS = 8_000_000  # logits computed per forward at most (64 MB in float64): longer batches go in chunks


def position_metrics(
    task: str | Task,
    cfg: Config,
    params: Params,
    n: int = 1000,
    seed: int = 1,
    ablate=(),
    ablate_mode: str = "zero",
    T: int | None = None,
) -> PositionMetrics:
    """Per position: the task's loss and accuracy on n fresh sequences of T tokens (None: the task's
    training length) from RandomState(seed) (Task.fresh: held-out text where the task has some; at the
    training length, the sequences engine.evaluate scores), with the (layer, head) pairs in ablate knocked
    out. Forwarded a chunk of sequences at a time, so a large vocabulary's logits fit in memory."""
    task = get_task(task)
    tokens, targets = task.fresh(np.random.RandomState(seed), n, T)  # (n, T) each
    tokens, targets = check_batch(cfg, params, tokens, targets)
    means = task_means(task, cfg, params, ablate_mode, tokens.shape[1]) if ablate else None
    n, T = tokens.shape
    chunk = max(1, CELLS // (T * cfg.vocab_size))
    loss, right, following = np.zeros(T), np.zeros(T, dtype=np.int64), np.zeros(max(T - 1, 0))
    for at in range(0, n, chunk):
        part, wanted = tokens[at : at + chunk], targets[at : at + chunk]  # (c, T) each
        logits = forward(cfg, params, params.embeddings[part], ablate=ablate, means=means).logits  # (c, T, V)
        log_probs = log_softmax(logits, axis=-1)  # (c, T, V)
        has_target = wanted >= 0  # (c, T)
        picked = np.take_along_axis(log_probs, np.maximum(wanted, 0)[..., None], axis=-1)[..., 0]  # (c, T)
        loss += np.where(has_target, -picked, 0.0).sum(axis=0)
        right += ((logits.argmax(axis=-1) == wanted) & has_target).sum(axis=0)
        following -= np.take_along_axis(log_probs[:, :-1], part[:, 1:, None], axis=-1)[..., 0].sum(axis=0)  # (T-1,)
    count = (targets >= 0).sum(axis=0)  # (T,)
    per = np.maximum(count, 1)  # unscored positions divide by 1, sum 0
    metrics = dict(
        scored=count > 0, count=count, loss=loss / per, accuracy=right / per, next_loss=following / n, right=right
    )
    for array in metrics.values():
        array.setflags(write=False)
    return PositionMetrics(**metrics, sequences=n, sample=measured(task, n, seed, T))


@dataclass(frozen=True)
class HeadScores:
    """Each head's mean attention weight on the keys a role looks at, per (layer, head)."""

    previous: np.ndarray  # (L, H) on key i-1, over queries i >= 1
    first: np.ndarray  # (L, H) on key 0, over queries i >= 1
    induction: np.ndarray  # (L, H) on the keys right after an earlier copy of the query's
    # token, over the second half of repeated random sequences
    task: np.ndarray | None  # (L, H) on the task's expected keys (None without a task)
    task_title: str | None = None  # the task's title, the task role's name

    def roles(self) -> dict[str, np.ndarray]:
        """Every measured role by name: (L, H) each."""
        named = {"previous token": self.previous, "first token": self.first, "induction": self.induction}
        return named if self.task is None else {**named, f"{self.task_title} (task keys)": self.task}

    def role(self, layer: int, head: int, threshold: float = 0.5) -> tuple[str, float]:
        """The head's strongest role and its score, or ("no clear role", best score) below threshold."""
        return strongest(self.roles(), layer, head, threshold)


def strongest(roles: dict[str, np.ndarray], layer: int, head: int, threshold: float) -> tuple[str, float]:
    """Of roles' (L, H) scores, the head's strongest role and its score, or ("no clear role", best score)
    below threshold."""
    name, scores = max(roles.items(), key=lambda item: item[1][layer, head])
    score = float(scores[layer, head])
    return (name, score) if score >= threshold else ("no clear role", score)


def _mean_on(weights: np.ndarray, keys: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """(L, H): the weight on keys (n, T, T), summed per query, averaged over queries (n, T)."""
    on_keys = (weights * keys[:, None]).sum(axis=-1)  # (L, n, H, T)
    return on_keys.transpose(0, 2, 1, 3)[:, :, queries].mean(axis=-1)  # (L, H, n, T) -> (L, H, Q) -> (L, H)


def previous_share(cfg: Config, params: Params, tokens) -> np.ndarray:
    """(L, H): each head's mean weight on key i-1 over the queries i >= 1 of tokens (n, T): the
    previous-token score of head_scores, alone (the Learn page reads it at every saved step)."""
    tokens, _ = check_batch(cfg, params, tokens)
    return _position_roles(cfg, params, tokens)[0]


def _position_roles(cfg: Config, params: Params, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(L, H) each, the mean weight on key i-1 and on key 0, over the queries i >= 1 of tokens (n, T)."""
    n, T = tokens.shape
    if T < 2:
        raise ValueError(f"head scores need sequences of at least 2 tokens, got {T}")
    stack = forward(cfg, params, params.embeddings[tokens])
    weights = np.stack([trace.weights for trace in stack.layers])  # (L, n, H, T, T)
    query, key = np.indices((T, T))  # (T, T) each
    later = np.broadcast_to(np.arange(T) >= 1, (n, T))  # (n, T): queries with a token before them
    previous = _mean_on(weights, np.broadcast_to(key == query - 1, (n, T, T)), later)
    first = _mean_on(weights, np.broadcast_to(key == 0, (n, T, T)), later)
    return previous, first


def head_scores(cfg: Config, params: Params, tokens, task: str | Task | None = None, targets=None) -> HeadScores:
    """Score every head on tokens (n, T): the previous and first token on tokens themselves; induction
    on each sequence's first half repeated (a prefix-matching head looks one past the earlier copy);
    the task's expected keys on tokens, when a task is given (over the queries its targets (n, T) score,
    as expected_share counts them; every query when targets is None)."""
    tokens, _ = check_batch(cfg, params, tokens)
    n, T = tokens.shape
    previous, first = _position_roles(cfg, params, tokens)

    half = T // 2
    repeated = np.concatenate([tokens[:, :half], tokens[:, :half]], axis=1)  # (n, 2·half): a random half, twice
    rep_stack = forward(cfg, params, params.embeddings[repeated])
    rep_weights = np.stack([trace.weights for trace in rep_stack.layers])  # (L, n, H, 2h, 2h)
    before = np.concatenate([np.full((n, 1), -1), repeated[:, :-1]], axis=1)  # (n, 2h): the token at j-1
    q2, k2 = np.indices((2 * half, 2 * half))
    after_copy = (
        (before[:, None, :] == repeated[:, :, None]) & (k2 <= q2) & (k2 < half + 1)
    )  # (n, 2h, 2h): first-copy keys
    second = np.broadcast_to(np.arange(2 * half) >= half, (n, 2 * half))  # (n, 2h): queries in the second copy
    induction = _mean_on(rep_weights, after_copy, second)

    task = None if task is None else get_task(task)
    on_task = None if task is None else expected_share(task, cfg, params, tokens, targets)
    scores = dict(previous=previous, first=first, induction=induction, task=on_task)
    for array in scores.values():
        if array is not None:
            array.setflags(write=False)
    return HeadScores(**scores, task_title=None if task is None else task.title)
