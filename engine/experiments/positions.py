"""Section 3: why positions. Without them a shuffled sentence gives the same numbers, only moved."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..attention import sinusoidal_positions
from ..block import Trace
from ..config import Config
from ..model import run
from ..params import Params
from ..tokens import Token


@dataclass(frozen=True)
class Shuffle:
    perm: np.ndarray  # (T,) new position p holds old token perm[p]
    original: Trace
    shuffled: Trace
    weights_error: float  # max |shuffled weights − P·A·Pᵀ| over heads
    output_error: float  # max |shuffled output − P·output|
    attn_error: float  # max |shuffled attn − P·attn|: attention's own output, before any residual
    input_error: float  # max |shuffled inputs − P·inputs| (x_in): what a residual carries through


def shuffle(cfg: Config, tokens: Sequence[Token], seed: int, params: Params | None = None) -> Shuffle:
    """Run the tokens, then the same tokens in a seeded random order, and compare after un-permuting."""
    tokens = list(tokens)
    perm = np.random.RandomState(seed).permutation(len(tokens))  # (T,)
    if len(tokens) > 1 and np.array_equal(perm, np.arange(len(tokens))):
        perm = np.roll(perm, 1)  # a shuffle that moves nothing shows nothing
    original = run(cfg, tokens, params).layers[0]
    shuffled = run(cfg, [tokens[p] for p in perm], params).layers[0]
    expected = original.weights[:, perm][:, :, perm]  # (H, T, T): P·A·Pᵀ
    return Shuffle(
        perm=perm,
        original=original,
        shuffled=shuffled,
        weights_error=float(np.max(np.abs(shuffled.weights - expected))),
        output_error=float(np.max(np.abs(shuffled.output - original.output[perm]))),
        attn_error=float(np.max(np.abs(shuffled.attn - original.attn[perm]))),
        input_error=float(np.max(np.abs(shuffled.x_in - original.x_in[perm]))),
    )


# --------------------------------------------------------------------------- 3 · the positions test
@dataclass(frozen=True)
class PositionTest:
    """One seeded shuffle of the tokens, run without positions and with sinusoidal positions.

    Both runs switch the causal mask off: a mask knows positions too, and this experiment is about
    what the inputs know. `masked` repeats the shuffle with the mask on and no positions.
    """

    perm: np.ndarray  # (T,) shuffled position p holds original token perm[p]
    plain: Shuffle  # positional="none"
    encoded: Shuffle  # positional="sinusoidal"
    masked: Shuffle  # positional="none", causal=True
    encoding: np.ndarray  # (max(T, code_rows), C) the sinusoidal code; `encoded` adds its first T rows

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
        diff = np.abs(self.weight_diff(s)[head])  # (T, T)
        i, j = divmod(int(np.argmax(diff)), diff.shape[1])
        return i, j, float(s.original.weights[head, i, j]), float(self.back(s)[head, i, j])


def positions_test(
    cfg: Config, tokens: Sequence[Token], seed: int, code_rows: int = 32, params: Params | None = None
) -> PositionTest:
    """Shuffle the tokens (seeded) with and without sinusoidal positions and measure what changed.

    The code is returned for at least `code_rows` positions so its waves show even for a short sentence.
    """
    tokens = list(tokens)
    plain = shuffle(replace(cfg, positional="none", causal=False), tokens, seed, params)
    encoded = shuffle(replace(cfg, positional="sinusoidal", causal=False), tokens, seed, params)
    masked = shuffle(replace(cfg, positional="none", causal=True), tokens, seed, params)
    return PositionTest(
        perm=plain.perm,
        plain=plain,
        encoded=encoded,
        masked=masked,
        encoding=sinusoidal_positions(max(len(tokens), code_rows), cfg.d_model),
    )
