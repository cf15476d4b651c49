"""The model view's numbers: each map's mean spread and mean largest weight, read from a stack."""
from __future__ import annotations

import numpy as np

import engine
from engine import analysis


def weights(stack: engine.Stack) -> np.ndarray:
    """(L, H, T, T) every layer's weights."""
    return np.stack([layer.weights for layer in stack.layers])


def summary(stack: engine.Stack) -> tuple[np.ndarray, np.ndarray, float]:
    """(L, H) mean spread, (L, H) mean largest weight, over the rows that see more than one key, and
    the mean largest weight an even spread gives those rows (NaNs when every row sees one key)."""
    visible = stack.layers[0].visible                                   # (T, T): the same in every layer
    rows = np.count_nonzero(visible, axis=-1) > 1                       # (T,) rows with a choice to make
    w = weights(stack)                                                  # (L, H, T, T)
    if not rows.any():
        nan = np.full(w.shape[:2], np.nan)
        return nan, nan, float("nan")
    spread = np.nanmean(analysis.spread(w, visible)[..., rows], axis=-1)    # (L, H)
    top = np.where(visible, w, -np.inf).max(axis=-1)[..., rows].mean(axis=-1)   # (L, H)
    uniform = float(np.mean(1.0 / np.count_nonzero(visible, axis=-1)[rows]))
    return spread, top, uniform


def row_spread(stack: engine.Stack) -> np.ndarray:
    """(L, H, T) every row's spread in every map (NaN where a row sees one key): what the per-head page reads."""
    return analysis.spread(weights(stack), stack.layers[0].visible)


class StackArrays:
    """Every layer's arrays of a stack, for the exports: the .npz (names prefixed layer0_, layer1_ …)
    and every head's weights as CSV."""

    def __init__(self, stack: engine.Stack) -> None:
        self.labels = stack.labels
        self.layers = stack.layers

    def arrays(self) -> dict[str, np.ndarray]:
        return {f"layer{t.layer}_{name}": a for t in self.layers for name, a in t.arrays().items()}

    def weights(self) -> dict:
        return {f"weights layer {t.layer} head {h}": (t.weights[h], self.labels, self.labels)
                for t in self.layers for h in range(t.num_heads)}
