"""Section 4: why a causal mask. A masked row is the open row's past, renormalised, and it never
changes when later tokens arrive."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..block import Trace
from ..config import Config
from ..model import forward, run
from ..params import Params, init_params
from ..tokens import Token


# --------------------------------------------------------------------------- 4 · the mask test
@dataclass(frozen=True)
class CausalTest:
    """The same sentence without and with the causal mask, and the sentence grown one token at a time."""

    open: Trace  # causal=False
    masked: Trace  # causal=True
    past_share: np.ndarray  # (H, T) weight the unmasked row gives keys 0..i (its visible past)
    renormalised: np.ndarray  # (H, T, T) the unmasked row cut to the past and divided by past_share
    #   (NaN in the rare rows whose past got no weight at all: underflow)
    renorm_row_error: np.ndarray  # (H, T) max |masked row − renormalised row| (NaN where not usable)
    renorm_error: float  # its largest value over the usable rows: 0 up to rounding
    hidden_weight: float  # largest masked weight on a hidden (future) key: exactly 0
    row_sums: np.ndarray  # (H, T) masked weights summed over the visible keys
    drift_masked: np.ndarray  # (T,) max change of row i's weights from step i+1 to the whole sentence
    drift_open: np.ndarray  # (T,) the same without the mask
    output_drift_masked: np.ndarray  # (T,) max change of output row i from step i+1 to the whole sentence
    output_drift_open: np.ndarray  # (T,)

    @property
    def T(self) -> int:
        return self.open.T


def growing(cfg: Config, tokens: Sequence[Token], params: Params | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Generate the sentence one token at a time: how much row i changes after it was first computed.

    Step n runs the first n tokens (same weights, same vectors). Row i is first computed at step i+1;
    returns (T,) the largest change of its weights and (T,) of its output row by the last step.
    """
    params = init_params(cfg) if params is None else params  # the same weights for every step
    final = run(cfg, tokens, params).layers[0]  # the whole sentence: step T
    T = final.T
    drift, output_drift = np.zeros(T), np.zeros(T)
    for n in range(1, T):
        step = forward(cfg, params, final.x[:n], final.labels[:n]).layers[0]  # the first n inputs, unchanged
        i = n - 1  # the row that is new at this step
        row = np.zeros((step.num_heads, T))  # (H, T): padded with 0 for unseen keys
        row[:, :n] = step.weights[:, i]
        drift[i] = np.max(np.abs(final.weights[:, i] - row))
        output_drift[i] = np.max(np.abs(final.output[i] - step.output[i]))
    return drift, output_drift


def causal_test(cfg: Config, tokens: Sequence[Token], params: Params | None = None) -> CausalTest:
    """Compare the mask's weights with the unmasked ones renormalised over the past, and grow the sentence."""
    tokens = list(tokens)
    open_cfg, mask_cfg = replace(cfg, causal=False), replace(cfg, causal=True)
    open_run, masked = run(open_cfg, tokens, params).layers[0], run(mask_cfg, tokens, params).layers[0]
    visible = masked.visible  # (T, T) j <= i
    past = np.where(visible, open_run.weights, 0.0)  # (H, T, T)
    share = past.sum(axis=-1)  # (H, T)
    usable = share > 1e-100  # (H, T): a past that kept some weight
    with np.errstate(divide="ignore", invalid="ignore"):
        renormalised = np.where(usable[..., None], past / share[..., None], np.nan)  # (H, T, T)
    drift_masked, output_masked = growing(mask_cfg, tokens, params)
    drift_open, output_open = growing(open_cfg, tokens, params)
    row_error = np.max(np.abs(masked.weights - renormalised), axis=-1)  # (H, T); NaN where not usable
    return CausalTest(
        open=open_run,
        masked=masked,
        past_share=share,
        renormalised=renormalised,
        renorm_row_error=row_error,
        renorm_error=float(np.max(row_error[usable], initial=0.0)),
        hidden_weight=float(np.max(np.where(visible, 0.0, masked.weights))),
        row_sums=np.where(visible, masked.weights, 0.0).sum(axis=-1),
        drift_masked=drift_masked,
        drift_open=drift_open,
        output_drift_masked=output_masked,
        output_drift_open=output_open,
    )
