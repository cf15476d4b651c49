"""Sections 1 and 2: why the scores are divided by √d_head, with random vectors and in the sidebar's block."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..attention import row_entropy, softmax
from ..block import Trace
from ..config import Config
from ..model import run
from ..params import Params
from ..params import scaled as scaled_params
from ..tokens import Token

ONE_HOT = 0.9  # a row is "nearly one-hot" when one key takes ≥ 90 %
D_HEADS = tuple(2**k for k in range(10))  # 1, 2, 4, … 512: the widths of experiment 1
INIT_SCALES = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)  # the init-scale / temperature choices
SAMPLES, SEED, ROWS = 4000, 0, 400  # experiment 1's random draws: one fixed curve for all
RAW, SCALED = "raw q·k", "scaled q·k / √d"  # series names shared by the tables below


def visible_counts(visible: np.ndarray) -> np.ndarray:
    """(T,) how many keys each query row may see."""
    return np.count_nonzero(visible, axis=-1)


def peaks(weights: np.ndarray) -> np.ndarray:
    """(..., T) the largest weight of every row."""
    return np.max(weights, axis=-1)


def nearly_one_hot(weights: np.ndarray, visible: np.ndarray | None = None, threshold: float = ONE_HOT) -> np.ndarray:
    """(..., T) booleans: the row puts at least `threshold` of its weight on one key.

    Rows that can see a single key only (the first row under a causal mask) are one-hot by force,
    not because of large scores, so they never count.
    """
    choices = weights.shape[-1] if visible is None else visible_counts(visible)
    return (peaks(weights) >= threshold) & (np.asarray(choices) > 1)


# --------------------------------------------------------------------------- 1 · why ÷ √d_head, random vectors
@dataclass(frozen=True)
class VarianceCurve:
    """Measured variance of q·k and of q·k/√d for standard-normal q and k, beside the theory."""

    d_head: np.ndarray  # (n,) widths
    raw: np.ndarray  # (n,) measured Var(q·k); theory: d
    scaled: np.ndarray  # (n,) measured Var(q·k / √d); theory: 1
    samples: int  # pairs (q, k) drawn per width
    seed: int

    @property
    def ratio(self) -> np.ndarray:
        """(n,) raw / scaled variance: d_head when the division works as promised."""
        return self.raw / self.scaled

    @property
    def raw_off(self) -> np.ndarray:
        """(n,) relative distance of the measured raw variance from the theory d_head."""
        return self.raw / self.d_head - 1.0

    def index(self, d_head: int) -> int:
        hits = np.flatnonzero(self.d_head == d_head)
        if not hits.size:
            raise ValueError(f"d_head={d_head} was not measured; choose one of {self.d_head.tolist()}")
        return int(hits[0])

    def long_table(self) -> list[dict]:
        """Long-form table for a line chart: one row per width, series and measured/theory."""
        out = []
        for d, raw, scaled in zip(self.d_head.tolist(), self.raw.tolist(), self.scaled.tolist()):
            out += [
                {"d_head": d, "series": RAW, "kind": "measured", "variance": raw},
                {"d_head": d, "series": RAW, "kind": "theory", "variance": float(d)},
                {"d_head": d, "series": SCALED, "kind": "measured", "variance": scaled},
                {"d_head": d, "series": SCALED, "kind": "theory", "variance": 1.0},
            ]
        return out


def variance_curve(d_heads: Sequence[int] = D_HEADS, samples: int = SAMPLES, seed: int = SEED) -> VarianceCurve:
    """Experiment 1's chart: Var(q·k) grows like d_head, Var(q·k/√d_head) stays near 1."""
    measured = score_variance(list(d_heads), samples, seed)
    return VarianceCurve(
        d_head=measured["d_head"], raw=measured["raw"], scaled=measured["scaled"], samples=samples, seed=seed
    )


@dataclass(frozen=True)
class RandomRows:
    """Softmax rows of random scores: one standard-normal query against `keys` standard-normal keys."""

    d_head: int
    keys: int
    rows: int
    raw_peak: float  # mean largest weight per row without the division
    scaled_peak: float  # … with it
    raw_one_hot: float  # share of rows that are nearly one-hot without the division
    scaled_one_hot: float  # … with it
    raw_std: float  # measured spread (std) of the raw scores
    scaled_std: float

    @property
    def uniform(self) -> float:
        return 1.0 / self.keys


def random_rows(d_head: int, keys: int, rows: int = ROWS, seed: int = SEED) -> RandomRows:
    """What the score spread does to a softmax row, for random vectors of width d_head."""
    if d_head < 1 or keys < 1 or rows < 1:
        raise ValueError(f"random_rows needs d_head, keys and rows of at least 1, got {d_head}, {keys}, {rows}")
    rng = np.random.RandomState(seed)
    q = rng.randn(rows, 1, d_head)  # (R, 1, d)
    k = rng.randn(rows, keys, d_head)  # (R, T, d)
    raw = np.einsum("rid,rtd->rt", q, k)  # (R, T)
    scaled = raw / np.sqrt(d_head)  # (R, T)
    w_raw, w_scaled = softmax(raw), softmax(scaled)  # (R, T) each
    return RandomRows(
        d_head=d_head,
        keys=keys,
        rows=rows,
        raw_peak=float(peaks(w_raw).mean()),
        scaled_peak=float(peaks(w_scaled).mean()),
        raw_one_hot=float(nearly_one_hot(w_raw).mean()),
        scaled_one_hot=float(nearly_one_hot(w_scaled).mean()),
        raw_std=float(raw.std()),
        scaled_std=float(scaled.std()),
    )


def score_variance(d_heads: Sequence[int], samples: int = 4000, seed: int = 0) -> dict[str, np.ndarray]:
    """Variance of q·k and of q·k/√d for standard-normal q, k of each width d (one seeded stream)."""
    if samples < 2 or any(d < 1 for d in d_heads):
        raise ValueError(f"score_variance needs widths of at least 1 and 2+ samples, got {list(d_heads)}, {samples}")
    rng = np.random.RandomState(seed)
    raw, scaled = [], []
    for d in d_heads:
        q = rng.randn(samples, d)  # (N, d)
        k = rng.randn(samples, d)  # (N, d)
        dots = np.einsum("nd,nd->n", q, k)  # (N,)
        raw.append(dots.var())
        scaled.append((dots / np.sqrt(d)).var())
    return {"d_head": np.asarray(d_heads), "raw": np.asarray(raw), "scaled": np.asarray(scaled)}


# --------------------------------------------------------------------------- 2 · ÷ √d_head in this block
@dataclass(frozen=True)
class ScalingRows:
    """The sidebar's block at one init scale, with and without ÷√d_head, row by row."""

    init_scale: float
    base_scale: float  # the config's own init_scale
    scaled: Trace  # scale_scores=True
    unscaled: Trace  # scale_scores=False
    entropy_scaled: np.ndarray  # (H, T) bits
    entropy_unscaled: np.ndarray  # (H, T) bits
    entropy_uniform: np.ndarray  # (T,) bits of a uniform row over the visible keys: log2(visible)
    peak_scaled: np.ndarray  # (H, T) largest weight per row
    peak_unscaled: np.ndarray  # (H, T)
    one_hot_scaled: np.ndarray  # (H, T) bool
    one_hot_unscaled: np.ndarray  # (H, T) bool

    @property
    def score_factor(self) -> float:
        """How much every score grew against the config's own weights: (init_scale / base_scale)²."""
        return (self.init_scale / self.base_scale) ** 2

    @property
    def choice_rows(self) -> int:
        """Rows (over every head) that can see 2+ keys: the only rows that can be nearly one-hot."""
        return int(np.count_nonzero(self.entropy_uniform > 0)) * self.scaled.num_heads

    @property
    def one_hot_count(self) -> tuple[int, int]:
        """Nearly one-hot rows over every head: (with ÷√d_head, without)."""
        return int(self.one_hot_scaled.sum()), int(self.one_hot_unscaled.sum())

    @property
    def mean_peak(self) -> tuple[float, float]:
        """Mean largest weight per row over every head: (with ÷√d_head, without)."""
        return float(self.peak_scaled.mean()), float(self.peak_unscaled.mean())

    @property
    def uniform_peak(self) -> float:
        """The same mean for perfectly uniform rows over the visible keys."""
        return float(np.mean(2.0**-self.entropy_uniform))


def scaling_rows(
    cfg: Config, tokens: Sequence[Token], init_scale: float | None = None, params: Params | None = None
) -> ScalingRows:
    """The same tokens with and without the √d_head division, weights drawn at `init_scale` (given
    trained params: those weights times init_scale / cfg.init_scale)."""
    scale = cfg.init_scale if init_scale is None else float(init_scale)
    at = replace(cfg, init_scale=scale)
    mine = None if params is None else scaled_params(params, scale / cfg.init_scale)
    on, off = (
        run(replace(at, scale_scores=True), tokens, mine).layers[0],
        run(replace(at, scale_scores=False), tokens, mine).layers[0],
    )
    return ScalingRows(
        init_scale=scale,
        base_scale=float(cfg.init_scale),
        scaled=on,
        unscaled=off,
        entropy_scaled=row_entropy(on.weights),
        entropy_unscaled=row_entropy(off.weights),
        entropy_uniform=np.log2(visible_counts(on.visible)),
        peak_scaled=peaks(on.weights),
        peak_unscaled=peaks(off.weights),
        one_hot_scaled=nearly_one_hot(on.weights, on.visible),
        one_hot_unscaled=nearly_one_hot(off.weights, off.visible),
    )


@dataclass(frozen=True)
class InitSweep:
    """How sharp the sidebar block's attention is at each init scale, with and without ÷√d_head."""

    init_scale: np.ndarray  # (n,)
    peak_scaled: np.ndarray  # (n,) mean largest weight per row, over every head and row
    peak_unscaled: np.ndarray  # (n,)
    one_hot_scaled: np.ndarray  # (n,) share of rows (with 2+ visible keys) that are nearly one-hot
    one_hot_unscaled: np.ndarray  # (n,)
    uniform_peak: float  # the same mean for perfectly uniform rows: mean of 1 / visible keys

    def long_table(self) -> list[dict]:
        """Long-form table for a line chart of the mean peak against the init scale."""
        out = []
        for i, s in enumerate(self.init_scale.tolist()):
            out += [
                {"init_scale": s, "series": "÷ √d_head", "peak": float(self.peak_scaled[i])},
                {"init_scale": s, "series": "raw (no ÷√d)", "peak": float(self.peak_unscaled[i])},
                {"init_scale": s, "series": "uniform rows", "peak": self.uniform_peak},
            ]
        return out


def init_sweep(
    cfg: Config, tokens: Sequence[Token], scales: Sequence[float] = INIT_SCALES, params: Params | None = None
) -> InitSweep:
    """Run the tokens at every init scale, scaled and unscaled: a softmax temperature in disguise."""
    stats = []
    for s in scales:
        r = scaling_rows(cfg, tokens, s, params)
        several = visible_counts(r.scaled.visible) > 1  # (T,) rows with a real choice
        stats.append(
            (
                r.peak_scaled.mean(),
                r.peak_unscaled.mean(),
                r.one_hot_scaled[:, several].mean(),
                r.one_hot_unscaled[:, several].mean(),
            )
        )
    visible = visible_counts(run(cfg, tokens, params).layers[0].visible)
    columns = np.asarray(stats, dtype=float).reshape(len(scales), 4).T
    return InitSweep(
        init_scale=np.asarray(scales, dtype=float),
        peak_scaled=columns[0],
        peak_unscaled=columns[1],
        one_hot_scaled=columns[2],
        one_hot_unscaled=columns[3],
        uniform_peak=float(np.mean(1.0 / visible)),
    )
