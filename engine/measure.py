"""How much attention lands where a task says it should, read from the same forward the UI shows."""

from __future__ import annotations

import numpy as np

from .block import Trace
from .config import Config
from .model import Stack, forward
from .params import Params
from .tasks import Task, get_task
from .tokens import display_labels
from .training import TrainRun


def _checked_ids(task: Task, ids) -> list[int]:
    ids = np.asarray(ids)
    if ids.ndim != 1 or ids.size == 0 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"ids must be a non-empty list of token ids, got {ids.dtype} {ids.shape}")
    if ids.min() < 0 or ids.max() >= len(task.vocab):
        raise ValueError(f"token ids must lie in 0..{len(task.vocab) - 1} for {task.name!r}")
    return [int(i) for i in ids]


def task_stack(task: str | Task, cfg: Config, params: Params, ids, ablate=(), means: np.ndarray | None = None) -> Stack:
    """Every block's trace for one sequence of token ids, labelled with the task's words (with the
    (layer, head) pairs in ablate knocked out: see engine.forward)."""
    task = get_task(task)
    ids = _checked_ids(task, ids)
    labels = display_labels([task.vocab[i] for i in ids])
    return forward(cfg, params, params.embeddings[ids], labels, ablate, means)  # (T, C) rows of the table


def task_trace(task: str | Task, cfg: Config, params: Params, ids) -> Trace:
    """The single block's trace for one sequence of token ids (for n_layers > 1 use task_stack)."""
    if cfg.n_layers != 1:
        raise ValueError(f"task_trace shows one block; this config has n_layers={cfg.n_layers}: use task_stack")
    return task_stack(task, cfg, params, ids).layers[0]


def share_per_query(cfg: Config, params: Params, tokens, keys: np.ndarray, scored: np.ndarray) -> np.ndarray:
    """(L, H, Q): the weight each head gives `keys` (n, T, T), for each of the Q queries that are
    scored (n, T) and have at least one such key, in sequence-then-position order."""
    tokens, keys, scored = np.asarray(tokens), np.asarray(keys, dtype=bool), np.asarray(scored, dtype=bool)
    n, T = tokens.shape if tokens.ndim == 2 else (0, 0)
    if tokens.ndim != 2 or keys.shape != (n, T, T) or scored.shape != (n, T):
        raise ValueError(
            f"need tokens (n, T), keys (n, T, T) and scored (n, T); got {tokens.shape}, {keys.shape} and {scored.shape}"
        )
    measured = scored & keys.any(axis=-1)  # (n, T)
    if not measured.any():
        raise ValueError("no scored query has an expected key: nothing to measure")
    stack = forward(cfg, params, params.embeddings[tokens])  # the one forward, every sequence at once
    weights = np.stack([trace.weights for trace in stack.layers])  # (L, n, H, T, T)
    on_keys = (weights * keys[:, None]).sum(axis=-1)  # (L, n, H, T): weight on the expected keys
    return on_keys.transpose(0, 2, 1, 3)[:, :, measured]  # (L, H, n, T) -> (L, H, Q)


def expected_share(task: str | Task, cfg: Config, params: Params, tokens, targets=None) -> np.ndarray:
    """(L, H): each head's mean weight on the task's expected keys, over the scored queries (targets
    >= 0; all queries when targets is None) that have at least one expected key."""
    task = get_task(task)
    tokens = np.asarray(tokens)
    scored = np.ones(tokens.shape, dtype=bool) if targets is None else np.asarray(targets) >= 0
    return share_per_query(cfg, params, tokens, task.expected_keys(tokens), scored).mean(axis=-1)


def lock_step(run: TrainRun, threshold: float = 0.9, n: int = 100, seed: int = 2) -> int | None:
    """The first checkpoint step at which some head's expected_share reaches threshold, on n
    sequences from RandomState(seed) (the same ones at every checkpoint); None if none does."""
    task = get_task(run.task)
    tokens, targets = task.sample(np.random.RandomState(seed), n)
    for step, params in run.checkpoints:
        if expected_share(task, run.config, params, tokens, targets).max() >= threshold:
            return step
    return None


def share_history(run: TrainRun, n: int = 50, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(K,) the run's checkpoint steps and (K, L, H) every head's expected_share at each of them, on
    the same n sequences from RandomState(seed) (scored queries only): how each head locked on."""
    task = get_task(run.task)
    tokens, targets = task.sample(np.random.RandomState(seed), n)
    steps = np.array([step for step, _ in run.checkpoints])
    shares = np.stack([expected_share(task, run.config, params, tokens, targets) for _, params in run.checkpoints])
    return steps, shares
