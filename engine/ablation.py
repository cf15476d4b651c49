"""Three ways to knock a head out, all in the one forward (engine.model.forward's means): zero ablation (its output
becomes zeros: values the next layer never saw), mean ablation (its mean output over the sample, position by
position) and resample ablation (its output on another unit of the sample, as causal scrubbing does); and what a
knock-out costs each unit (window or sequence) of a sample: its loss with the heads knocked out, less its loss
without."""

from __future__ import annotations

import numpy as np

from .attention import log_softmax
from .config import Config
from .evidence import CELLS, head_means
from .model import check_batch, forward
from .params import Params

ABLATIONS = ("zero", "mean", "resample")  # how a knocked-out head's output is replaced
RESAMPLE_SEED = 0  # the permutation of units resample ablation draws from, unless told


def derangement(n: int, seed: int = RESAMPLE_SEED) -> np.ndarray:
    """(n,) a permutation of 0..n-1 from RandomState(seed) that moves every unit (no unit gets its own), for n >= 2:
    a random cyclic order, each unit taking the next one's place."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 2:
        raise ValueError(f"a derangement needs at least 2 units, got {n!r}")
    cycle = np.random.RandomState(seed).permutation(n)  # (n,) the units in a random circle
    order = np.empty(n, dtype=np.int64)
    order[cycle] = np.roll(cycle, -1)  # unit cycle[k] takes unit cycle[k+1]'s output
    return order


def head_outputs(cfg: Config, params: Params, tokens) -> np.ndarray:
    """(L, n, H, T, D): each head's output (weights · V) on each sequence of tokens (n, T), nothing knocked out."""
    tokens, _ = check_batch(cfg, params, tokens)
    stack = forward(cfg, params, params.embeddings[tokens])  # (n, T, C) -> every block
    return np.stack([trace.heads for trace in stack.layers])  # L × (n, H, T, D) -> (L, n, H, T, D)


def replacement(cfg: Config, params: Params, tokens, mode: str, seed: int = RESAMPLE_SEED) -> np.ndarray | None:
    """What a knocked-out head outputs on tokens (n, T) in mode: None for "zero" (forward's zeros), its mean output
    over the n sequences (L, H, T, D) for "mean", and for "resample" its output on unit derangement(n, seed)[b] in
    place of unit b's (L, n, H, T, D)."""
    if mode not in ABLATIONS:
        raise ValueError(f"mode must be one of {ABLATIONS}, got {mode!r}")
    if mode == "zero":
        return None
    if mode == "mean":
        return head_means(cfg, params, tokens)  # (L, H, T, D)
    outputs = head_outputs(cfg, params, tokens)  # (L, n, H, T, D)
    return outputs[:, derangement(outputs.shape[1], seed)]  # (L, n, H, T, D): another unit's output


def unit_losses(
    cfg: Config, params: Params, tokens, targets, ablate=(), mode: str = "zero", seed: int = RESAMPLE_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """Each unit's mean -log p(target) over its scored positions (targets >= 0), with the (layer, head) pairs in
    ablate knocked out in mode (the replacement drawn from these very tokens), and how many positions each scores:
    (n,) losses (0 where a unit scores none) and (n,) counts. A chunk of units per forward."""
    tokens, targets = check_batch(cfg, params, tokens, targets)
    n, T = tokens.shape
    means = replacement(cfg, params, tokens, mode, seed) if ablate else None
    chunk = max(1, CELLS // (T * cfg.vocab_size))
    sums = np.zeros(n)
    for at in range(0, n, chunk):
        part = slice(at, at + chunk)
        own = means[:, part] if means is not None and means.ndim == 5 else means  # a resample: this chunk's rows
        logits = forward(cfg, params, params.embeddings[tokens[part]], ablate=ablate, means=own).logits  # (c, T, V)
        wanted = np.maximum(targets[part], 0)[..., None]  # (c, T, 1)
        picked = np.take_along_axis(log_softmax(logits, axis=-1), wanted, axis=-1)[..., 0]  # (c, T)
        sums[part] = np.where(targets[part] >= 0, -picked, 0.0).sum(axis=-1)  # (c,)
    counts = (targets >= 0).sum(axis=-1)  # (n,)
    return sums / np.maximum(counts, 1), counts


def knockout_effects(
    cfg: Config, params: Params, tokens, targets, ablate, mode: str = "mean", seed: int = RESAMPLE_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """What knocking the pairs in ablate out in mode costs each unit of tokens (n, T): (n,) its mean loss over its
    scored positions with them out, less without (positive: the heads helped), and (n,) the positions it scores."""
    clean, counts = unit_losses(cfg, params, tokens, targets)
    knocked, _ = unit_losses(cfg, params, tokens, targets, ablate, mode, seed)
    return knocked - clean, counts
