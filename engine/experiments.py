"""The numbers behind the Experiments page: why √d_head, why positions, why a causal mask.

Pure NumPy (no Streamlit, no pandas). Every function takes a Config and tokens (or plain numbers) and
returns a frozen result; the page only draws what these return.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from .analysis import Shuffle, score_variance, shuffle
from .attention import row_entropy, sinusoidal_positions, softmax
from .block import Trace, forward
from .config import Config
from .params import init_params
from .presets import run
from .tokens import Token, display_labels, embed, label

ONE_HOT = 0.9                                            # a row is "nearly one-hot" when one key takes ≥ 90 %
D_HEADS = tuple(2 ** k for k in range(10))               # 1, 2, 4, … 512: the widths of experiment 1
INIT_SCALES = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)     # the init-scale / temperature choices
SAMPLES, SEED, ROWS = 4000, 0, 400                       # experiment 1's random draws: one fixed curve for all
RAW, SCALED = "raw q·k", "scaled q·k / √d"               # series names shared by the tables below


def _visible_counts(visible: np.ndarray) -> np.ndarray:
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
    choices = weights.shape[-1] if visible is None else _visible_counts(visible)
    return (peaks(weights) >= threshold) & (np.asarray(choices) > 1)


# --------------------------------------------------------------------------- 1 · why divide by √d_head
@dataclass(frozen=True)
class VarianceCurve:
    """Measured variance of q·k and of q·k/√d for standard-normal q and k, beside the theory."""

    d_head: np.ndarray          # (n,) widths
    raw: np.ndarray             # (n,) measured Var(q·k); theory: d
    scaled: np.ndarray          # (n,) measured Var(q·k / √d); theory: 1
    samples: int                # pairs (q, k) drawn per width
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

    def rows(self) -> list[dict]:
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


def variance_curve(d_heads: Sequence[int] = D_HEADS, samples: int = SAMPLES,
                   seed: int = SEED) -> VarianceCurve:
    """Experiment 1's chart: Var(q·k) grows like d_head, Var(q·k/√d_head) stays near 1."""
    measured = score_variance(list(d_heads), samples, seed)
    return VarianceCurve(d_head=measured["d_head"], raw=measured["raw"], scaled=measured["scaled"],
                         samples=samples, seed=seed)


@dataclass(frozen=True)
class RandomRows:
    """Softmax rows of random scores: one standard-normal query against `keys` standard-normal keys."""

    d_head: int
    keys: int
    rows: int
    raw_peak: float             # mean largest weight per row without the division
    scaled_peak: float          # … with it
    raw_one_hot: float          # share of rows that are nearly one-hot without the division
    scaled_one_hot: float       # … with it
    raw_std: float              # measured spread (std) of the raw scores
    scaled_std: float

    @property
    def uniform(self) -> float:
        return 1.0 / self.keys


def random_rows(d_head: int, keys: int, rows: int = ROWS, seed: int = SEED) -> RandomRows:
    """What the score spread does to a softmax row, for random vectors of width d_head."""
    if d_head < 1 or keys < 1 or rows < 1:
        raise ValueError(f"random_rows needs d_head, keys and rows of at least 1, got {d_head}, {keys}, {rows}")
    rng = np.random.RandomState(seed)
    q = rng.randn(rows, 1, d_head)                                    # (R, 1, d)
    k = rng.randn(rows, keys, d_head)                                 # (R, T, d)
    raw = np.einsum("rid,rtd->rt", q, k)                              # (R, T)
    scaled = raw / np.sqrt(d_head)                                    # (R, T)
    w_raw, w_scaled = softmax(raw), softmax(scaled)                   # (R, T) each
    return RandomRows(
        d_head=d_head, keys=keys, rows=rows,
        raw_peak=float(peaks(w_raw).mean()), scaled_peak=float(peaks(w_scaled).mean()),
        raw_one_hot=float(nearly_one_hot(w_raw).mean()), scaled_one_hot=float(nearly_one_hot(w_scaled).mean()),
        raw_std=float(raw.std()), scaled_std=float(scaled.std()),
    )


@dataclass(frozen=True)
class ScalingRows:
    """The sidebar's block at one init scale, with and without ÷√d_head, row by row."""

    init_scale: float
    base_scale: float           # the config's own init_scale
    scaled: Trace               # scale_scores=True
    unscaled: Trace             # scale_scores=False
    entropy_scaled: np.ndarray      # (H, T) bits
    entropy_unscaled: np.ndarray    # (H, T) bits
    entropy_uniform: np.ndarray     # (T,) bits of a uniform row over the visible keys: log2(visible)
    peak_scaled: np.ndarray         # (H, T) largest weight per row
    peak_unscaled: np.ndarray       # (H, T)
    one_hot_scaled: np.ndarray      # (H, T) bool
    one_hot_unscaled: np.ndarray    # (H, T) bool

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
        return float(np.mean(2.0 ** -self.entropy_uniform))


def scaling_rows(cfg: Config, tokens: Sequence[Token], init_scale: float | None = None) -> ScalingRows:
    """The same tokens with and without the √d_head division, weights drawn at `init_scale`."""
    scale = cfg.init_scale if init_scale is None else float(init_scale)
    at = replace(cfg, init_scale=scale)
    on, off = run(replace(at, scale_scores=True), tokens), run(replace(at, scale_scores=False), tokens)
    return ScalingRows(
        init_scale=scale, base_scale=float(cfg.init_scale), scaled=on, unscaled=off,
        entropy_scaled=row_entropy(on.weights), entropy_unscaled=row_entropy(off.weights),
        entropy_uniform=np.log2(_visible_counts(on.visible)),
        peak_scaled=peaks(on.weights), peak_unscaled=peaks(off.weights),
        one_hot_scaled=nearly_one_hot(on.weights, on.visible),
        one_hot_unscaled=nearly_one_hot(off.weights, off.visible),
    )


@dataclass(frozen=True)
class InitSweep:
    """How sharp the sidebar block's attention is at each init scale, with and without ÷√d_head."""

    init_scale: np.ndarray          # (n,)
    peak_scaled: np.ndarray         # (n,) mean largest weight per row, over every head and row
    peak_unscaled: np.ndarray       # (n,)
    one_hot_scaled: np.ndarray      # (n,) share of rows (with 2+ visible keys) that are nearly one-hot
    one_hot_unscaled: np.ndarray    # (n,)
    uniform_peak: float             # the same mean for perfectly uniform rows: mean of 1 / visible keys

    def rows(self) -> list[dict]:
        """Long-form table for a line chart of the mean peak against the init scale."""
        out = []
        for i, s in enumerate(self.init_scale.tolist()):
            out += [{"init_scale": s, "series": "÷ √d_head", "peak": float(self.peak_scaled[i])},
                    {"init_scale": s, "series": "raw (no ÷√d)", "peak": float(self.peak_unscaled[i])},
                    {"init_scale": s, "series": "uniform rows", "peak": self.uniform_peak}]
        return out


def init_sweep(cfg: Config, tokens: Sequence[Token], scales: Sequence[float] = INIT_SCALES) -> InitSweep:
    """Run the tokens at every init scale, scaled and unscaled: a softmax temperature in disguise."""
    stats = []
    for s in scales:
        r = scaling_rows(cfg, tokens, s)
        several = _visible_counts(r.scaled.visible) > 1                   # (T,) rows with a real choice
        stats.append((r.peak_scaled.mean(), r.peak_unscaled.mean(),
                      r.one_hot_scaled[:, several].mean(), r.one_hot_unscaled[:, several].mean()))
    visible = _visible_counts(run(cfg, tokens).visible)
    columns = np.asarray(stats, dtype=float).reshape(len(scales), 4).T
    return InitSweep(init_scale=np.asarray(scales, dtype=float), peak_scaled=columns[0], peak_unscaled=columns[1],
                     one_hot_scaled=columns[2], one_hot_unscaled=columns[3],
                     uniform_peak=float(np.mean(1.0 / visible)))


# --------------------------------------------------------------------------- 2 · why positions
@dataclass(frozen=True)
class PositionTest:
    """One seeded shuffle of the tokens, run without positions and with sinusoidal positions.

    Both runs switch the causal mask off: a mask knows positions too, and this experiment is about
    what the inputs know. `masked` repeats the shuffle with the mask on and no positions.
    """

    perm: np.ndarray            # (T,) shuffled position p holds original token perm[p]
    plain: Shuffle              # positional="none"
    encoded: Shuffle            # positional="sinusoidal"
    masked: Shuffle             # positional="none", causal=True
    encoding: np.ndarray        # (max(T, code_rows), C) the sinusoidal code; `encoded` adds its first T rows

    @property
    def inverse(self) -> np.ndarray:
        """(T,) where each original token went: the shuffled order undone."""
        return np.argsort(self.perm)

    def back(self, s: Shuffle) -> np.ndarray:
        """(H, T, T) the shuffled run's weights put back in the original order: Pᵀ·A'·P."""
        inv = self.inverse
        return s.shuffled.weights[:, inv][:, :, inv]

    def weight_diff(self, s: Shuffle) -> np.ndarray:
        """(H, T, T) un-permuted shuffled weights minus the original weights: 0 when the block ignores order."""
        return self.back(s) - s.original.weights

    def row_output_error(self, s: Shuffle) -> np.ndarray:
        """(T,) for each shuffled position p: max |output'_p − output_perm[p]|."""
        return np.max(np.abs(s.shuffled.output - s.original.output[self.perm]), axis=-1)

    def biggest_change(self, s: Shuffle, head: int) -> tuple[int, int, float, float]:
        """The (query, key) in the original order whose weight the shuffle moved most in one head,
        with its weight before and after (un-permuted)."""
        diff = np.abs(self.weight_diff(s)[head])                          # (T, T)
        i, j = divmod(int(np.argmax(diff)), diff.shape[1])
        return i, j, float(s.original.weights[head, i, j]), float(self.back(s)[head, i, j])


def positions_test(cfg: Config, tokens: Sequence[Token], seed: int, code_rows: int = 32) -> PositionTest:
    """Shuffle the tokens (seeded) with and without sinusoidal positions and measure what changed.

    The code is returned for at least `code_rows` positions so its waves show even for a short sentence.
    """
    tokens = list(tokens)
    plain = shuffle(replace(cfg, positional="none", causal=False), tokens, seed)
    encoded = shuffle(replace(cfg, positional="sinusoidal", causal=False), tokens, seed)
    masked = shuffle(replace(cfg, positional="none", causal=True), tokens, seed)
    return PositionTest(perm=plain.perm, plain=plain, encoded=encoded, masked=masked,
                        encoding=sinusoidal_positions(max(len(tokens), code_rows), cfg.d_model))


# --------------------------------------------------------------------------- 3 · why a causal mask
@dataclass(frozen=True)
class CausalTest:
    """The same sentence without and with the causal mask, and the sentence grown one token at a time."""

    open: Trace                 # causal=False
    masked: Trace               # causal=True
    past_share: np.ndarray      # (H, T) weight the unmasked row gives keys 0..i (its visible past)
    renormalised: np.ndarray    # (H, T, T) the unmasked row cut to the past and divided by past_share
                                #   (NaN in the rare rows whose past got no weight at all: underflow)
    renorm_row_error: np.ndarray   # (H, T) max |masked row − renormalised row| (NaN where not usable)
    renorm_error: float         # its largest value over the usable rows: 0 up to rounding
    hidden_weight: float        # largest masked weight on a hidden (future) key: exactly 0
    row_sums: np.ndarray        # (H, T) masked weights summed over the visible keys
    drift_masked: np.ndarray    # (T,) max change of row i's weights from step i+1 to the whole sentence
    drift_open: np.ndarray      # (T,) the same without the mask
    output_drift_masked: np.ndarray   # (T,) max change of output row i from step i+1 to the whole sentence
    output_drift_open: np.ndarray     # (T,)

    @property
    def T(self) -> int:
        return self.open.T


def growing(cfg: Config, tokens: Sequence[Token]) -> tuple[np.ndarray, np.ndarray]:
    """Generate the sentence one token at a time: how much row i changes after it was first computed.

    Step n runs the first n tokens (same weights, same vectors). Row i is first computed at step i+1;
    returns (T,) the largest change of its weights and (T,) of its output row by the last step.
    """
    params = init_params(cfg)
    x = embed(cfg, params, tokens)                                    # (T, C)
    labels = display_labels([label(cfg, t) for t in tokens])
    T = x.shape[0]
    final = forward(cfg, params, x, labels)
    drift, output_drift = np.zeros(T), np.zeros(T)
    for n in range(1, T):                                             # step T is the final run itself
        step = forward(cfg, params, x[:n], labels[:n])
        i = n - 1                                                     # the row that is new at this step
        row = np.zeros((step.num_heads, T))                           # (H, T): padded with 0 for unseen keys
        row[:, :n] = step.weights[:, i]
        drift[i] = np.max(np.abs(final.weights[:, i] - row))
        output_drift[i] = np.max(np.abs(final.output[i] - step.output[i]))
    return drift, output_drift


def causal_test(cfg: Config, tokens: Sequence[Token]) -> CausalTest:
    """Compare the mask's weights with the unmasked ones renormalised over the past, and grow the sentence."""
    tokens = list(tokens)
    open_cfg, mask_cfg = replace(cfg, causal=False), replace(cfg, causal=True)
    open_run, masked = run(open_cfg, tokens), run(mask_cfg, tokens)
    visible = masked.visible                                          # (T, T) j <= i
    past = np.where(visible, open_run.weights, 0.0)                   # (H, T, T)
    share = past.sum(axis=-1)                                         # (H, T)
    usable = share > 1e-100                                           # (H, T): a past that kept some weight
    with np.errstate(divide="ignore", invalid="ignore"):
        renormalised = np.where(usable[..., None], past / share[..., None], np.nan)   # (H, T, T)
    drift_masked, output_masked = growing(mask_cfg, tokens)
    drift_open, output_open = growing(open_cfg, tokens)
    row_error = np.max(np.abs(masked.weights - renormalised), axis=-1)   # (H, T); NaN where not usable
    return CausalTest(
        open=open_run, masked=masked, past_share=share, renormalised=renormalised, renorm_row_error=row_error,
        renorm_error=float(np.max(row_error[usable], initial=0.0)),
        hidden_weight=float(np.max(np.where(visible, 0.0, masked.weights))),
        row_sums=np.where(visible, masked.weights, 0.0).sum(axis=-1),
        drift_masked=drift_masked, drift_open=drift_open,
        output_drift_masked=output_masked, output_drift_open=output_open,
    )
