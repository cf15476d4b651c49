"""The controls of a head's role (issue 50), measured: its score per unit of a sample (a window or a sequence) and
a bootstrap interval over the units; the same score with untrained weights and for its layer's other heads; its
score on the transfer samples; its three knock-outs' effects on the role's loss, with intervals; and the unit
where it follows its role least. engine.roles.role_label reads them."""

from __future__ import annotations

import numpy as np

from .ablation import ABLATIONS, RESAMPLE_SEED, knockout_effects
from .config import Config
from .evidence import CELLS
from .model import check_batch, forward
from .params import Params, init_params
from .probes import Probe
from .roles import ROLE_THRESHOLD, Controls, Effect

N_BOOT, BOOT_SEED, LEVEL = 1000, 0, 0.95  # bootstrap draws, their seed, the interval's coverage


def bootstrap_interval(
    per_unit, n_boot: int = N_BOOT, seed: int = BOOT_SEED, counts=None, level: float = LEVEL
) -> tuple[float, float]:
    """The percentile-bootstrap interval (level: 0.95 for 95 %) of the mean of per_unit (n,) over its units, the
    units redrawn with replacement n_boot times from RandomState(seed). With counts (n,), the mean weighs each unit
    by its count (a unit of 10 scored queries counts 10 times: the pooled mean a page shows); a unit of count 0
    weighs nothing."""
    values = np.asarray(per_unit, dtype=float)
    weights = np.ones(values.shape) if counts is None else np.asarray(counts, dtype=float)
    if values.ndim != 1 or len(values) < 2 or weights.shape != values.shape:
        raise ValueError(
            f"need at least 2 units (n,) and counts of the same shape, got {values.shape}, {weights.shape}"
        )
    if not 0 < level < 1 or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise ValueError(f"need 0 < level < 1 and n_boot >= 1, got {level!r} and {n_boot!r}")
    if weights.min() < 0 or weights.sum() <= 0:
        raise ValueError("counts must be >= 0, some above 0")
    values = np.where(weights > 0, values, 0.0)  # (n,): a unit that weighs nothing adds nothing (its NaN too)
    draws = np.random.RandomState(seed).randint(len(values), size=(n_boot, len(values)))  # (n_boot, n)
    totals = weights[draws].sum(axis=1)  # (n_boot,)
    means = (values * weights)[draws].sum(axis=1) / np.maximum(totals, 1e-300)  # (n_boot,)
    means = means[totals > 0]  # a draw of only empty units says nothing
    lo, hi = np.percentile(means, [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi)


def pooled(per_unit: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The mean over units (last axis) of per_unit (..., n), each unit weighed by its count (n,)."""
    return (per_unit * counts).sum(axis=-1) / counts.sum()  # (..., n) -> (...)


def unit_scores(cfg: Config, params: Params, probe: Probe) -> tuple[np.ndarray, np.ndarray]:
    """(L, H, n) each head's mean weight on the role's keys over each unit's queries (0 where a unit has none),
    and (n,) how many queries each unit has: pooled, the role's score (L, H), as the pages compute it."""
    tokens, _ = check_batch(cfg, params, probe.tokens)
    n, T = tokens.shape
    chunk = max(1, CELLS // (T * max(cfg.vocab_size, T * cfg.num_heads)))
    counts = probe.queries.sum(axis=-1)  # (n,)
    sums = []
    for at in range(0, n, chunk):
        part = slice(at, at + chunk)
        stack = forward(cfg, params, params.embeddings[tokens[part]])
        weights = np.stack([trace.weights for trace in stack.layers])  # (L, c, H, T, T)
        on_keys = (weights * probe.keys[part][:, None]).sum(axis=-1)  # (L, c, H, T)
        sums.append((on_keys * probe.queries[part][:, None]).sum(axis=-1))  # (L, c, H)
    per_unit = np.concatenate(sums, axis=1).transpose(0, 2, 1) / np.maximum(counts, 1)  # (L, c·, H) -> (L, H, n)
    return per_unit, counts


def unit_score(weights: np.ndarray, keys: np.ndarray, queries: np.ndarray) -> float:
    """A head's score on one unit: its mean weight (T, T) on the role's keys (T, T) over the unit's queries (T,),
    as unit_scores counts it (0 where it has none)."""
    on_keys = (np.asarray(weights) * keys).sum(axis=-1)  # (T,)
    return float(on_keys[queries].mean()) if np.any(queries) else 0.0


def weakest(per_unit: np.ndarray, counts: np.ndarray) -> int:
    """The unit (index) where a head's per-unit score (n,) is lowest, of those with queries: a counter-example."""
    return int(np.argmin(np.where(counts > 0, per_unit, np.inf)))


def effect(
    cfg: Config,
    params: Params,
    probe: Probe,
    ablate,
    mode: str = "mean",
    seed: int = RESAMPLE_SEED,
    n_boot: int = N_BOOT,
    boot_seed: int = BOOT_SEED,
) -> Effect:
    """The rise of the probe's loss when the pairs in ablate are knocked out in mode, pooled over its loss units,
    with its bootstrap interval over them."""
    rise, counts = knockout_effects(cfg, params, probe.loss_tokens, probe.loss_targets, ablate, mode, seed)
    lo, hi = bootstrap_interval(rise, n_boot, boot_seed, counts)
    return Effect(float(pooled(rise, counts)), lo, hi)


def partner_of(scores: np.ndarray, layer: int, head: int, threshold: float = ROLE_THRESHOLD) -> tuple[int, int] | None:
    """Of the role's scores (L, H), the other head that scores highest, if it reaches threshold: the head it may
    share the role with."""
    others = np.array(scores, dtype=float)  # (L, H)
    others[layer, head] = -np.inf
    best = np.unravel_index(np.argmax(others), others.shape)
    return (int(best[0]), int(best[1])) if others[best] >= threshold else None


def head_controls(
    cfg: Config,
    params: Params,
    layer: int,
    head: int,
    probe: Probe,
    transfer: Probe,
    shuffled: Probe | None = None,
    untrained: Params | None = None,
    n_boot: int = N_BOOT,
    seed: int = BOOT_SEED,
    transfer_words: str = "training-like text",
) -> Controls:
    """Every control of head (layer, head)'s role, probe.role: its score on probe with its interval, the score of
    untrained (None: init_params(cfg), the weights the training started from) and of its layer's other heads, on
    transfer (and shuffled), its three knock-outs' effects on the probe's loss, and, where another head reaches the
    threshold for the role, both knocked out together (mean ablation)."""
    if not (0 <= layer < cfg.n_layers and 0 <= head < cfg.num_heads):
        raise ValueError(f"no head ({layer}, {head}) in a model of {cfg.n_layers} layers of {cfg.num_heads} heads")
    per_unit, counts = unit_scores(cfg, params, probe)  # (L, H, n), (n,)
    scores = pooled(per_unit, counts)  # (L, H)
    lo, hi = bootstrap_interval(per_unit[layer, head], n_boot, seed, counts)
    untrained = init_params(cfg) if untrained is None else untrained
    base = pooled(*unit_scores(cfg, untrained, probe))  # (L, H)
    moved = pooled(*unit_scores(cfg, params, transfer))  # (L, H)
    mixed = None if shuffled is None else float(pooled(*unit_scores(cfg, params, shuffled))[layer, head])
    effects = {
        mode: effect(cfg, params, probe, [(layer, head)], mode, n_boot=n_boot, boot_seed=seed) for mode in ABLATIONS
    }
    partner = partner_of(scores, layer, head)
    together = None if partner is None else effect(cfg, params, probe, [(layer, head), partner], "mean", n_boot=n_boot)
    return Controls(
        role=probe.role,
        score=float(scores[layer, head]),
        lo=lo,
        hi=hi,
        untrained=float(base[layer, head]),
        transfer=float(moved[layer, head]),
        **effects,
        layer_others=tuple(float(s) for h, s in enumerate(scores[layer]) if h != head),
        shuffled=mixed,
        partner=partner,
        together=together,
        weakest=weakest(per_unit[layer, head], counts),
        transfer_words=transfer_words,
    )
