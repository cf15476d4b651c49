"""The T → T+1 token exercise in numbers: each old row's factor and the numbers behind it, the twists
(causal mask, positions) and the change of the block's output. Pure NumPy; every number is read from an
Extension (two traces whose first T inputs are identical). The sentences are the UI's (ui/prose).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .analysis import Extension, logsumexp
from .config import Config
from .model import Stack

SAME = 1e-12  # differences at or below this are rounding, not change


def variant(cfg: Config, twist: str) -> Config:
    """The config with the causal mask, or with sinusoidal positions, switched on."""
    changes = {"causal": {"causal": True}, "positions": {"positional": "sinusoidal"}}
    if twist not in changes:
        raise ValueError(f"twist must be one of {tuple(changes)}, got {twist!r}")
    return replace(cfg, **changes[twist])


def _check_head(ext: Extension, head: int) -> None:
    H = ext.before.num_heads
    if not isinstance(head, (int, np.integer)) or isinstance(head, bool) or not 0 <= head < H:
        raise ValueError(f"head={head} is outside 0..{H - 1}")


# --------------------------------------------------------------------------- the old rows
@dataclass(frozen=True)
class OldRows:
    """One head's old rows before and after the new token, with the numbers behind each factor."""

    head: int
    labels: tuple[str, ...]  # the T old tokens
    new_label: str  # the appended token
    score_new: np.ndarray  # (T,) s_i,new: old query i's scaled score against the new key (-inf if hidden)
    exp_new: np.ndarray  # (T,) e^{s_i,new} (0 where hidden)
    z: np.ndarray  # (T,) Z_i = Σ_j<T e^{s_ij}: the old row's softmax denominator
    factor: np.ndarray  # (T,) Z_i / (Z_i + e^{s_i,new}), from the extension
    lost: np.ndarray  # (T,) the weight each old row now gives the new token, read from the softmax:
    # 1 − factor in exact arithmetic (1 − factor itself rounds a share of 10⁻³⁶ to 0)
    ratio_min: np.ndarray  # (T,) smallest new/old over the row's visible keys
    ratio_max: np.ndarray  # (T,) largest new/old: equal to ratio_min when the ratios are kept
    row_error: np.ndarray  # (T,) max_j |new_ij − factor_i · old_ij|
    max_change: float  # max |new − old| over the old block
    biggest: int  # the old row that lost the most

    @property
    def T(self) -> int:
        return len(self.labels)

    def table(self) -> dict[str, np.ndarray | list]:
        """Columns for a page's table, one row per old query."""
        return {
            "query": list(self.labels),
            "s (new key)": self.score_new,
            "e^s": self.exp_new,
            "Z (old row)": self.z,
            "factor Z/(Z+e^s)": self.factor,
            "new ÷ old, min": self.ratio_min,
            "new ÷ old, max": self.ratio_max,
            "lost to new": self.lost,
        }


def old_rows(ext: Extension, head: int) -> OldRows:
    """Read one head's factors, their ingredients and the ratio check from the two traces."""
    _check_head(ext, head)
    T = ext.before.T
    old = ext.before.weights[head]  # (T, T)
    new = ext.after.weights[head, :T, :T]  # (T, T)
    score_new = ext.new_scores[head]  # (T,)
    with np.errstate(over="ignore"):
        exp_new = np.exp(score_new)  # (T,); e^-inf = 0
        z = np.exp(logsumexp(ext.after.scaled[head, :T, :T], axis=-1))  # (T,)
    factor = ext.factors[head]  # (T,)
    seen = old > 0  # (T, T) keys the old row looks at
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(seen, new / np.where(seen, old, 1.0), np.nan)  # (T, T)
    ratio_min = np.min(np.where(seen, ratio, np.inf), axis=-1)
    ratio_max = np.max(np.where(seen, ratio, -np.inf), axis=-1)
    lost = ext.after.weights[head, :T, T]  # (T,); exactly 0 where hidden
    return OldRows(
        head=head,
        labels=ext.before.labels,
        new_label=ext.after.labels[T],
        score_new=score_new,
        exp_new=exp_new,
        z=z,
        factor=factor,
        lost=lost,
        ratio_min=ratio_min,
        ratio_max=ratio_max,
        row_error=np.max(np.abs(new - factor[:, None] * old), axis=-1),
        max_change=float(np.max(np.abs(new - old))),
        biggest=int(np.argmax(lost)),
    )


# --------------------------------------------------------------------------- the block output
@dataclass(frozen=True)
class Outputs:
    change: np.ndarray  # (T,) ‖after.output_i − before.output_i‖ for the old rows
    relative: np.ndarray  # (T,) change / ‖before.output_i‖
    changed: int  # rows that moved by more than rounding


def outputs(ext: Extension) -> Outputs:
    """How far each old output row moved, absolutely and as a share of its length."""
    T = ext.before.T
    change = ext.output_change  # (T,)
    length = np.linalg.norm(ext.before.output, axis=-1)  # (T,)
    relative = np.divide(change, length, out=np.zeros(T), where=length > 0)
    changed = int(np.count_nonzero(change > SAME * np.maximum(1.0, length)))
    return Outputs(change=change, relative=relative, changed=changed)


@dataclass(frozen=True)
class Deeper:
    """What the new token did to the old rows of every layer of a stack (layer 0 is the exercise's)."""

    weights: np.ndarray  # (L,) max |Δ weight| over each layer's old T × T block, every head
    outputs: np.ndarray  # (L,) max ‖Δ output row‖ over each layer's old rows
    scale: np.ndarray  # (L,) each layer's longest old output row: what outputs is rounding relative to


def deeper(before: Stack, after: Stack) -> Deeper:
    """Compare every layer's old rows in the T-token and the (T+1)-token runs of the same stack."""
    T = before.layers[0].T
    if after.layers[0].T != T + 1 or len(after.layers) != len(before.layers):
        raise ValueError("deeper compares a T-token run with the same model's (T+1)-token run")
    pairs = list(zip(before.layers, after.layers))
    return Deeper(
        weights=np.array([float(np.max(np.abs(a.weights[:, :T, :T] - b.weights))) for b, a in pairs]),
        outputs=np.array([float(np.max(np.linalg.norm(a.output[:T] - b.output, axis=-1))) for b, a in pairs]),
        scale=np.array([float(np.max(np.linalg.norm(b.output, axis=-1))) for b, _ in pairs]),
    )


# --------------------------------------------------------------------------- the twists
@dataclass(frozen=True)
class Twist:
    name: str  # "causal" or "positions"
    already_on: bool  # the base config already had it: the twisted run is the main run
    max_row_change: float  # max |new − old| over the first T rows, every head
    ratio_error: float  # max |new − factor · old|, every head
    score_change: float  # max |old scores in the T+1 run − scores in the T run|
    score_scale: float  # the largest old score: what score_change is rounding relative to
    input_shift: float  # max |twisted inputs − base inputs| over the old tokens
    factor_range: tuple[float, float]
    output_change: float  # max ‖Δ output row‖ over the old rows
    output_scale: float  # the longest old output row: what output_change is rounding relative to


def twist(base: Extension, twisted: Extension, name: str) -> Twist:
    """Compare the exercise with the causal mask or positions switched on against the base run."""
    if name not in ("causal", "positions"):
        raise ValueError(f"twist must be 'causal' or 'positions', got {name!r}")
    T = twisted.before.T
    if base.before.T != T:
        raise ValueError(f"the two runs have {base.before.T} and {T} old tokens")
    finite = np.isfinite(twisted.before.scaled)  # (H, T, T); -inf where masked
    old_scores = np.where(finite, twisted.before.scaled, 0.0)  # (H, T, T)
    score_change = float(np.max(np.abs(np.where(finite, twisted.after.scaled[:, :T, :T], 0.0) - old_scores)))
    return Twist(
        name=name,
        already_on=twisted.before.config == base.before.config,
        max_row_change=float(np.max(np.abs(twisted.diff))),
        ratio_error=twisted.ratio_error,
        score_change=score_change,
        score_scale=float(np.max(np.abs(old_scores))),
        input_shift=float(np.max(np.abs(twisted.before.x_in - base.before.x_in))),
        factor_range=(float(np.min(twisted.factors)), float(np.max(twisted.factors))),
        output_change=float(np.max(twisted.output_change)),
        output_scale=float(np.max(np.linalg.norm(twisted.before.output, axis=-1))),
    )
