"""A model's every set of heads knocked out, measured once and kept as arrays beside its weights: a page's
knock-out then costs a look-up in them, not a thousand forwards (engine.evidence.position_metrics measures one)."""

from __future__ import annotations

import numpy as np

from .config import Config
from .evidence import PositionMetrics, position_metrics
from .params import Params
from .tasks import Task

MAX_SETS = 16  # a model of at most 4 heads has every set of its heads measured once (16 sets, the empty one too)
MEASURED_N = 1000  # the fresh sequences every accuracy and knock-out is measured on (the pages', shipped) ...
MEASURED_SEED = 1  # ... and their seed


def head_sets(cfg: Config) -> list[tuple[tuple[int, int], ...]]:
    """Every set of the model's heads, the empty set first: set s holds head (layer, head) where bit
    layer·H + head of s is 1 (so a set's number is its mask)."""
    pairs = [(layer, head) for layer in range(cfg.n_layers) for head in range(cfg.num_heads)]
    return [tuple(pair for bit, pair in enumerate(pairs) if s >> bit & 1) for s in range(2 ** len(pairs))]


def set_number(cfg: Config, pairs) -> int | None:
    """A set of (layer, head) pairs' number in head_sets (its mask), or None if a pair is not one of the model's
    heads."""
    L, H = cfg.n_layers, cfg.num_heads
    wanted = {tuple(int(x) for x in pair) for pair in pairs}
    if any(not (0 <= layer < L and 0 <= head < H) for layer, head in wanted):
        return None
    return sum(1 << (layer * H + head) for layer, head in wanted)


def knockout_arrays(
    task: str | Task,
    cfg: Config,
    params: Params,
    n: int = MEASURED_N,
    seed: int = MEASURED_SEED,
    upto: int | None = None,
) -> dict[str, np.ndarray]:
    """position_metrics at the task's training length with every set of heads knocked out (head_sets' order),
    stacked into arrays to keep beside the weights: a knock-out then costs a look-up, not n forwards.
    Only for a model of at most MAX_SETS sets, or only the first `upto` sets (1: nothing knocked out)."""
    sets = head_sets(cfg)[:upto]
    if len(sets) > MAX_SETS:
        raise ValueError(
            f"{cfg.n_layers * cfg.num_heads} heads make {len(sets)} sets of heads; at most {MAX_SETS} are measured"
        )
    found = [position_metrics(task, cfg, params, n, seed, ablate=heads) for heads in sets]
    return {
        "n": np.array(n),
        "seed": np.array(seed),
        "heads": np.array([cfg.n_layers, cfg.num_heads]),
        "count": found[0].count,  # (T,): the same sequences for every set
        **{name: np.stack([getattr(m, name) for m in found]) for name in ("loss", "accuracy", "next_loss", "right")},
    }


def knockout_from(arrays: dict[str, np.ndarray], cfg: Config, ablate, n: int, seed: int) -> PositionMetrics | None:
    """The position_metrics that knockout_arrays kept for this set of heads on n sequences from seed, or None
    when the arrays measured another model shape, other sequences, or not this set (not one of the model's,
    or beyond the sets kept)."""
    if "loss" not in arrays or (int(arrays["n"]), int(arrays["seed"]), tuple(int(x) for x in arrays["heads"])) != (
        n,
        seed,
        (cfg.n_layers, cfg.num_heads),
    ):
        return None
    s = set_number(cfg, ablate)
    if s is None or s >= len(arrays["loss"]):
        return None
    count = np.array(arrays["count"])
    metrics = dict(
        scored=count > 0,
        count=count,
        **{name: np.array(arrays[name][s]) for name in ("loss", "accuracy", "next_loss", "right")},
    )
    for array in metrics.values():
        array.setflags(write=False)
    return PositionMetrics(**metrics, sequences=n)
