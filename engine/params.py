"""Weights drawn from one seeded RandomState, in the articles' draw order.

Draw order from RandomState(cfg.seed): the embedding table (only when embedding_stream is
"weights"), block 0 (w_q, w_k, w_v, w_o if any, w1, w2), then blocks 1 .. L-1 in the same order
each, then w_u (only with unembedding). Block 0 and the table are drawn exactly as the articles'
scripts draw them, so a one-block config gets the same numbers as before stacks existed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .config import Config


@dataclass(frozen=True)
class Block:
    """The weights of one block, shaped as in Params."""

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray | None
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray


BLOCK_ARRAYS = ("w_q", "w_k", "w_v", "w_o", "w1", "b1", "w2", "b2")  # a block's arrays, in draw order


@dataclass(frozen=True)
class Params:
    """All weights. Block 0's arrays are fields of their own (params.w_q ...), so a one-block Params
    has the same fields as before stacks; params.blocks lists every block. Arrays are read-only so a
    cached Params cannot be altered."""

    w_q: np.ndarray  # (C, C); head h owns columns h*d_head ... (h+1)*d_head - 1
    w_k: np.ndarray  # (C, C)
    w_v: np.ndarray  # (C, C)
    w_o: np.ndarray | None  # (C, C), or None when the block has no output projection
    w1: np.ndarray  # (C, d_ff)
    b1: np.ndarray  # (d_ff,)
    w2: np.ndarray  # (d_ff, C)
    b2: np.ndarray  # (C,)
    embeddings: np.ndarray | None  # (V, C) rows for the known words, or None for a table-free config
    w_u: np.ndarray | None = None  # (C, V) last output -> next-token logits, or None (the article presets)
    more_blocks: tuple[Block, ...] | None = None  # blocks 1 .. L-1, or None for a one-block model

    @property
    def blocks(self) -> tuple[Block, ...]:
        """Every block, block 0 first."""
        first = Block(**{name: getattr(self, name) for name in BLOCK_ARRAYS})
        return (first,) + (self.more_blocks or ())

    @property
    def n_layers(self) -> int:
        return 1 + len(self.more_blocks or ())


def scaled(params: Params, factor: float) -> Params:
    """The same model with every block's weight matrix multiplied by factor (biases, the embedding
    table and w_u unchanged), as if its weights had been drawn `factor` times larger."""
    blocks = tuple(
        Block(
            **{
                name: None
                if getattr(b, name) is None
                else (getattr(b, name) if name in ("b1", "b2") else _frozen(getattr(b, name) * factor))
                for name in BLOCK_ARRAYS
            }
        )
        for b in params.blocks
    )
    return stack_params(blocks, params.embeddings, params.w_u)


def stack_params(blocks: tuple[Block, ...], embeddings: np.ndarray | None, w_u: np.ndarray | None = None) -> Params:
    """A Params from its blocks (block 0's arrays become the top-level fields)."""
    first = {name: getattr(blocks[0], name) for name in BLOCK_ARRAYS}
    more = tuple(blocks[1:]) or None
    return Params(**first, embeddings=embeddings, w_u=w_u, more_blocks=more)


def param_arrays(params: Params) -> list[np.ndarray]:
    """Every array of params in a fixed order: block by block (w_q ... b2), embeddings, w_u."""
    arrays = [getattr(block, name) for block in params.blocks for name in BLOCK_ARRAYS]
    arrays += [params.embeddings, params.w_u]
    return [a for a in arrays if a is not None]


def flatten(params: Params) -> np.ndarray:
    """All of the model's numbers in one vector (a copy), in param_arrays' order."""
    return np.concatenate([a.ravel() for a in param_arrays(params)])


def unflatten(like: Params, theta: np.ndarray) -> Params:
    """A Params shaped like `like` whose arrays are views into theta (they change when theta does)."""
    offset, taken = 0, []
    for array in param_arrays(like):
        taken.append(theta[offset : offset + array.size].reshape(array.shape))
        offset += array.size
    taken.reverse()  # pop() now hands them out in order

    def take(array):
        return None if array is None else taken.pop()

    blocks = tuple(Block(**{name: take(getattr(block, name)) for name in BLOCK_ARRAYS}) for block in like.blocks)
    embeddings = take(like.embeddings)
    return stack_params(blocks, embeddings, take(like.w_u))


def digest(params: Params) -> str:
    """A short name for a set of weights: the first 16 hex digits of the SHA-256 of every number (float64)."""
    return hashlib.sha256(np.ascontiguousarray(flatten(params), dtype=np.float64).tobytes()).hexdigest()[:16]


def frozen_copy(params: Params, dtype=None) -> Params:
    """A read-only copy that later training steps cannot change; in dtype if given (float32 training's
    weights copied as float64 for the pages: the same numbers)."""
    theta = flatten(params) if dtype is None else flatten(params).astype(dtype)
    theta.setflags(write=False)
    return unflatten(params, theta)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def draw(rng: np.random.RandomState, rows: int, cols: int, cfg: Config, fan_in: int) -> np.ndarray:
    """One weight matrix: standard normal draws, then the config's init rule."""
    raw = rng.randn(rows, cols)  # (rows, cols)
    if cfg.init == "fan_in":
        return raw / np.sqrt(fan_in) * cfg.init_scale  # Day 33: divide first, as its script does
    return raw * cfg.init_scale  # Part 4: a fixed ×0.1


def embedding_table(cfg: Config, rng: np.random.RandomState | None = None) -> np.ndarray:
    """Vectors of the known words: drawn first from the weights' stream, or from input_seed."""
    V, C = cfg.vocab_size, cfg.d_model
    if cfg.embedding_stream == "weights":
        return rng.randn(V, C) / np.sqrt(C)  # (V, C); Day 33's first draw
    return np.random.RandomState(cfg.input_seed).randn(V, C)  # (V, C); Part 4's sample vectors


def draw_block(rng: np.random.RandomState, cfg: Config) -> Block:
    """One block's weights, in the articles' order; biases start at 0."""
    C, F = cfg.d_model, cfg.d_ff
    w_q = draw(rng, C, C, cfg, fan_in=C)  # (C, C)
    w_k = draw(rng, C, C, cfg, fan_in=C)  # (C, C)
    w_v = draw(rng, C, C, cfg, fan_in=C)  # (C, C)
    w_o = draw(rng, C, C, cfg, fan_in=C) if cfg.output_projection else None
    w1 = draw(rng, C, F, cfg, fan_in=C)  # (C, F)
    w2 = draw(rng, F, C, cfg, fan_in=F)  # (F, C)
    arrays = dict(w_q=w_q, w_k=w_k, w_v=w_v, w_o=w_o, w1=w1, b1=np.zeros(F), w2=w2, b2=np.zeros(C))
    return Block(**{name: None if a is None else _frozen(a) for name, a in arrays.items()})


def init_params(cfg: Config) -> Params:
    """Draw every weight from RandomState(cfg.seed) in the order the module docstring lists."""
    rng = np.random.RandomState(cfg.seed)
    table = embedding_table(cfg, rng) if cfg.embedding_stream == "weights" else None
    blocks = [draw_block(rng, cfg)]  # block 0: the articles' draws
    if table is None:
        table = embedding_table(cfg)  # separate stream: weights unaffected
    for _ in range(1, cfg.n_layers):
        blocks.append(draw_block(rng, cfg))  # later blocks: after block 0, in order
    w_u = draw(rng, cfg.d_model, cfg.vocab_size, cfg, fan_in=cfg.d_model) if cfg.unembedding else None
    return stack_params(tuple(blocks), _frozen(table), None if w_u is None else _frozen(w_u))
