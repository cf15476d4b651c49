"""A stack of blocks, one Trace per block, then (with W_u) next-token logits and probabilities."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .attention import sinusoidal_positions, softmax
from .block import Trace, block_stages, checked_input
from .config import Config
from .params import Params, init_params
from .tokens import Token, display_labels, embed, label


@dataclass(frozen=True)
class LayerTrace(Trace):
    """The Trace of block `layer` in a stack. Block 0 sees the tokens (+ positions); block l > 0
    sees block l-1's output as its x, with positions None (they are added once, before block 0)."""

    layer: int = 0


@dataclass(frozen=True)
class Stack:
    """Every block's Trace, in order, and what the last block's output predicts. V = vocabulary size."""

    config: Config
    labels: tuple[str, ...]
    layers: tuple[LayerTrace, ...]   # one Trace per block; layers[l].x is layers[l-1].output
    logits: np.ndarray | None        # (T, V) last output · W_u, or None without an unembedding
    probs: np.ndarray | None         # (T, V) softmax of the logits: each row sums to 1

    @property
    def output(self) -> np.ndarray:
        """(T, C) the last block's output."""
        return self.layers[-1].output

    @property
    def n_layers(self) -> int:
        return len(self.layers)


def check_params(cfg: Config, params: Params) -> None:
    """Params must have one block per layer of cfg, and a W_u shaped (C, V) if any."""
    if not isinstance(params, Params):
        raise ValueError(f"params must be an engine.Params, got {type(params).__name__}")
    if params.n_layers != cfg.n_layers:
        raise ValueError(f"params are for n_layers={params.n_layers} but the config has n_layers={cfg.n_layers}")
    if params.w_u is not None and params.w_u.shape != (cfg.d_model, cfg.vocab_size):
        raise ValueError(f"w_u must have shape ({cfg.d_model}, {cfg.vocab_size}), got {params.w_u.shape}")


def forward_stack(cfg: Config, params: Params, x: np.ndarray, labels: tuple[str, ...] | None = None) -> Stack:
    """Run every block over x (T, C) in turn, keeping every intermediate of each."""
    check_params(cfg, params)
    x, labels = checked_input(cfg, x, labels)
    T, C = x.shape                                                    # tokens, model width
    positions = sinusoidal_positions(T, C) if cfg.positional == "sinusoidal" else None
    x_in = x if positions is None else x + positions                  # (T, C); positions only here

    layers = []
    for layer, block in enumerate(params.blocks):
        stages = block_stages(cfg, block, x, positions, x_in)
        layers.append(LayerTrace(config=cfg, labels=labels, layer=layer, **stages))
        x = x_in = stages["output"]                                   # (T, C): what the next block reads
        positions = None

    logits = probs = None
    if params.w_u is not None:
        logits = x @ params.w_u                                       # (T, C) @ (C, V) -> (T, V)
        probs = softmax(logits, axis=-1)                              # (T, V)
        logits.setflags(write=False)
        probs.setflags(write=False)
    return Stack(config=cfg, labels=labels, layers=tuple(layers), logits=logits, probs=probs)


def run_stack(cfg: Config, tokens: Sequence[Token], params: Params | None = None) -> Stack:
    """Weights for cfg (unless given), vectors for tokens, the whole stack, with readable labels."""
    params = init_params(cfg) if params is None else params
    check_params(cfg, params)
    x = embed(cfg, params, tokens)                                    # (T, C)
    labels = display_labels([label(cfg, t) for t in tokens])
    return forward_stack(cfg, params, x, labels)
