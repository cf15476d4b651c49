"""Weights drawn from one seeded RandomState, in the articles' draw order."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import Config


@dataclass(frozen=True)
class Params:
    """All weights of one block. Arrays are read-only so a cached Params cannot be altered."""

    w_q: np.ndarray              # (C, C); head h owns columns h*d_head ... (h+1)*d_head - 1
    w_k: np.ndarray              # (C, C)
    w_v: np.ndarray              # (C, C)
    w_o: np.ndarray | None       # (C, C), or None when the block has no output projection
    w1: np.ndarray               # (C, d_ff)
    b1: np.ndarray               # (d_ff,)
    w2: np.ndarray               # (d_ff, C)
    b2: np.ndarray               # (C,)
    embeddings: np.ndarray | None  # (V, C) rows for the known words, or None for a table-free config


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def draw(rng: np.random.RandomState, rows: int, cols: int, cfg: Config, fan_in: int) -> np.ndarray:
    """One weight matrix: standard normal draws, then the config's init rule."""
    raw = rng.randn(rows, cols)                                   # (rows, cols)
    if cfg.init == "fan_in":
        return raw / np.sqrt(fan_in) * cfg.init_scale              # Day 33: divide first, as its script does
    return raw * cfg.init_scale                                    # Part 4: a fixed ×0.1


def embedding_table(cfg: Config, rng: np.random.RandomState | None = None) -> np.ndarray:
    """Vectors of the known words: drawn first from the weights' stream, or from input_seed."""
    V, C = cfg.vocab_size, cfg.d_model
    if cfg.embedding_stream == "weights":
        return rng.randn(V, C) / np.sqrt(C)                        # (V, C); Day 33's first draw
    return np.random.RandomState(cfg.input_seed).randn(V, C)       # (V, C); Part 4's sample vectors


def init_params(cfg: Config) -> Params:
    """Draw every weight from RandomState(cfg.seed) in the order the articles' scripts use."""
    rng = np.random.RandomState(cfg.seed)
    C, F = cfg.d_model, cfg.d_ff
    table = embedding_table(cfg, rng) if cfg.embedding_stream == "weights" else None
    w_q = draw(rng, C, C, cfg, fan_in=C)                           # (C, C)
    w_k = draw(rng, C, C, cfg, fan_in=C)                           # (C, C)
    w_v = draw(rng, C, C, cfg, fan_in=C)                           # (C, C)
    w_o = draw(rng, C, C, cfg, fan_in=C) if cfg.output_projection else None
    w1 = draw(rng, C, F, cfg, fan_in=C)                            # (C, F)
    w2 = draw(rng, F, C, cfg, fan_in=F)                            # (F, C)
    if table is None:
        table = embedding_table(cfg)                               # separate stream: weights unaffected
    arrays = dict(w_q=w_q, w_k=w_k, w_v=w_v, w_o=w_o, w1=w1, b1=np.zeros(F), w2=w2,
                  b2=np.zeros(C), embeddings=table)
    return Params(**{name: None if a is None else _frozen(a) for name, a in arrays.items()})
