"""One block, forward and backward: the forward returns a frozen Trace of every stage, and
block_backward, right below it, reads that Trace and undoes the forward one step per line.

Shape letters: T tokens, C = d_model, H heads of D = d_head columns, F = d_ff. Every stage may
carry batch axes in front ("..."): a single sequence (T, C) is simply a batch of none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from .attention import (
    causal_visible,
    layer_norm,
    layer_norm_backward,
    merge_heads,
    norm_std,
    relu,
    rows,
    softmax,
    split_heads,
)
from .config import Config
from .params import Block


@dataclass(frozen=True)
class Trace:
    """Every stage of one block's forward pass, named for what it is (read-only arrays)."""

    config: Config
    labels: tuple[str, ...]  # one readable, unique label per token
    x: np.ndarray  # (..., T, C) token vectors handed to the block
    positions: np.ndarray | None  # (T, C) sinusoidal encoding (block 0 only), or None
    x_in: np.ndarray  # (..., T, C) x + positions: what the block actually sees
    x_norm: np.ndarray | None  # (..., T, C) layer-normed x_in feeding Q, K, V (None without layer norm)
    q: np.ndarray  # (..., H, T, D)
    k: np.ndarray  # (..., H, T, D)
    v: np.ndarray  # (..., H, T, D)
    scores: np.ndarray  # (..., H, T, T) raw Q·Kᵀ
    scaled: np.ndarray  # (..., H, T, T) after ÷sqrt(D) and the mask (-inf where hidden)
    visible: np.ndarray  # (T, T) True where a query may see a key
    weights: np.ndarray  # (..., H, T, T) softmax of scaled; each row sums to 1
    heads: np.ndarray  # (..., H, T, D) weights · V (a knocked-out head: its replacement)
    concat: np.ndarray  # (..., T, C) heads side by side
    attn: np.ndarray  # (..., T, C) concat · W_o (concat itself without an output projection)
    after_attn: np.ndarray  # (..., T, C) x_in + attn with residuals, attn without
    ffn_in: np.ndarray  # (..., T, C) what the FFN reads (layer-normed after_attn with layer norm)
    ffn_pre: np.ndarray  # (..., T, F) ffn_in · W1 + b1, before the ReLU
    ffn_hidden: np.ndarray  # (..., T, F) after the ReLU
    ffn_out: np.ndarray  # (..., T, C) ffn_hidden · W2
    output: np.ndarray  # (..., T, C) after_attn + ffn_out (+ b2) with residuals, ffn_out + b2 without
    x_std: np.ndarray | None = None  # (..., T, 1) each x_in row's std, which x_norm divides by (backward reads it)
    after_std: np.ndarray | None = None  # (..., T, 1) each after_attn row's std, which ffn_in divides by
    layer: int = 0  # which block of the stack this is; block l > 0 reads block l-1's output
    knocked: tuple[int, ...] = ()  # heads whose output was replaced before the concatenation

    @property
    def T(self) -> int:
        return self.x.shape[-2]

    @property
    def num_heads(self) -> int:
        return self.q.shape[-3]

    @property
    def source(self) -> np.ndarray:
        """(..., T, C) what Q, K and V are computed from: x_in, or its layer norm."""
        return self.x_in if self.x_norm is None else self.x_norm

    @property
    def mask(self) -> np.ndarray | None:
        """(T, T) the visible keys under the causal mask; None when every key is visible."""
        return self.visible if self.config.causal else None

    @property
    def dims(self) -> tuple[str, ...]:
        """Column labels of a (T, C) stage: '0' … 'C-1'."""
        return tuple(str(c) for c in range(self.x.shape[-1]))

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array field by name (for exports)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if isinstance(getattr(self, f.name), np.ndarray)}


def block_forward(
    cfg: Config,
    block: Block,
    x: np.ndarray,
    positions: np.ndarray | None = None,
    labels: tuple[str, ...] = (),
    layer: int = 0,
    knocked: tuple[int, ...] = (),
    means: np.ndarray | None = None,
) -> Trace:
    """One block over x (..., T, C), every stage kept. Heads in `knocked` output `means` (H, T, D), or each
    sequence's own (..., H, T, D), instead of weights · V (zeros when means is None): a knock-out, before the
    concatenation."""
    T, C = x.shape[-2:]  # tokens, model width
    H, D = cfg.num_heads, cfg.d_head
    x_in = x if positions is None else x + positions  # (..., T, C)
    x_std = norm_std(x_in) if cfg.layer_norm else None  # (..., T, 1)
    x_norm = layer_norm(x_in, x_std) if cfg.layer_norm else None  # (..., T, C)
    source = x_in if x_norm is None else x_norm  # (..., T, C)

    q = split_heads(source @ block.w_q, H)  # (..., T, C) @ (C, C) -> (..., H, T, D)
    k = split_heads(source @ block.w_k, H)  # (..., H, T, D)
    v = split_heads(source @ block.w_v, H)  # (..., H, T, D)
    scores = q @ k.swapaxes(-2, -1)  # (..., H, T, D) @ (..., H, D, T) -> (..., H, T, T)
    unmasked = scores / math.sqrt(D) if cfg.scale_scores else scores  # variance near 1 for any D
    visible = causal_visible(T) if cfg.causal else np.ones((T, T), dtype=bool)  # (T, T)
    scaled = (
        np.where(visible, unmasked, -np.inf) if cfg.causal else unmasked
    )  # (..., H, T, T); hidden keys get exactly 0 weight
    weights = softmax(scaled, axis=-1)  # (..., H, T, T); each row sums to 1
    heads = weights @ v  # (..., H, T, T) @ (..., H, T, D) -> (..., H, T, D)
    if knocked:
        out = np.isin(np.arange(H), knocked)[:, None, None]  # (H, 1, 1): True for a knocked-out head
        heads = np.where(out, 0.0 if means is None else means, heads)  # (..., H, T, D)
    concat = merge_heads(heads)  # (..., T, C)
    attn = concat if block.w_o is None else concat @ block.w_o  # (..., T, C)
    after_attn = x_in + attn if cfg.residual else attn  # (..., T, C)

    after_std = norm_std(after_attn) if cfg.layer_norm else None  # (..., T, 1)
    ffn_in = layer_norm(after_attn, after_std) if cfg.layer_norm else after_attn  # (..., T, C)
    ffn_pre = ffn_in @ block.w1 + block.b1  # (..., T, C) @ (C, F) -> (..., T, F)
    ffn_hidden = relu(ffn_pre)  # (..., T, F); negatives become exactly 0
    ffn_out = ffn_hidden @ block.w2  # (..., T, F) @ (F, C) -> (..., T, C)
    output = (after_attn + ffn_out if cfg.residual else ffn_out) + block.b2  # (..., T, C)

    stages = dict(
        x=x,
        positions=positions,
        x_in=x_in,
        x_norm=x_norm,
        q=q,
        k=k,
        v=v,
        scores=scores,
        scaled=scaled,
        visible=visible,
        weights=weights,
        heads=heads,
        concat=concat,
        attn=attn,
        after_attn=after_attn,
        ffn_in=ffn_in,
        ffn_pre=ffn_pre,
        ffn_hidden=ffn_hidden,
        ffn_out=ffn_out,
        output=output,
        x_std=x_std,
        after_std=after_std,
    )
    for array in stages.values():
        if array is not None:
            array.setflags(write=False)  # the trace is frozen all the way down
    return Trace(config=cfg, labels=labels, layer=layer, knocked=tuple(knocked), **stages)


def block_backward(cfg: Config, block: Block, t: Trace, d_output: np.ndarray) -> tuple[np.ndarray, Block]:
    """From d_output (..., T, C) back to d_x (..., T, C) and the gradient of every weight of the
    block, reading the forward's Trace t. d_name is dloss/dname; the steps run in reverse order."""
    H, D = cfg.num_heads, cfg.d_head
    d_b2 = rows(d_output).sum(axis=0)  # (C,): b2 is added to every token
    d_ffn_out = d_output  # (..., T, C)
    d_w2 = rows(t.ffn_hidden).T @ rows(d_ffn_out)  # (F, N) @ (N, C) -> (F, C); N = every token
    d_ffn_hidden = d_ffn_out @ block.w2.T  # (..., T, C) @ (C, F) -> (..., T, F)
    d_ffn_pre = d_ffn_hidden * (t.ffn_pre > 0)  # ReLU passes the gradient where it let x through
    d_b1 = rows(d_ffn_pre).sum(axis=0)  # (F,)
    d_w1 = rows(t.ffn_in).T @ rows(d_ffn_pre)  # (C, N) @ (N, F) -> (C, F)
    d_ffn_in = d_ffn_pre @ block.w1.T  # (..., T, F) @ (F, C) -> (..., T, C)
    d_after_attn = layer_norm_backward(t.ffn_in, t.after_std, d_ffn_in) if cfg.layer_norm else d_ffn_in  # (..., T, C)
    if cfg.residual:
        d_after_attn = d_after_attn + d_output  # the residual carries d_output past the FFN
    d_attn = d_after_attn  # (..., T, C)
    d_w_o = None if block.w_o is None else rows(t.concat).T @ rows(d_attn)  # (C, N) @ (N, C) -> (C, C)
    d_concat = d_attn if block.w_o is None else d_attn @ block.w_o.T  # (..., T, C)
    d_heads = split_heads(d_concat, H)  # (..., H, T, D)
    if t.knocked:
        d_heads = np.where(
            np.isin(np.arange(H), t.knocked)[:, None, None], 0.0, d_heads
        )  # a replaced head passes nothing back
    d_weights = d_heads @ t.v.swapaxes(-2, -1)  # (..., H, T, D) @ (..., H, D, T) -> (..., H, T, T)
    d_v = t.weights.swapaxes(-2, -1) @ d_heads  # (..., H, T, T) @ (..., H, T, D) -> (..., H, T, D)
    d_scaled = t.weights * (
        d_weights - (d_weights * t.weights).sum(axis=-1, keepdims=True)
    )  # softmax; hidden keys get 0
    d_unmasked = d_scaled  # the mask only set entries whose weight is 0
    d_scores = d_unmasked / math.sqrt(D) if cfg.scale_scores else d_unmasked  # the division passes straight through
    d_q = d_scores @ t.k  # (..., H, T, T) @ (..., H, T, D) -> (..., H, T, D)
    d_k = d_scores.swapaxes(-2, -1) @ t.q  # (..., H, T, D)
    d_q, d_k, d_v = merge_heads(d_q), merge_heads(d_k), merge_heads(d_v)  # (..., T, C) each
    d_w_q = rows(t.source).T @ rows(d_q)  # (C, N) @ (N, C) -> (C, C)
    d_w_k = rows(t.source).T @ rows(d_k)  # (C, C)
    d_w_v = rows(t.source).T @ rows(d_v)  # (C, C)
    d_source = d_q @ block.w_q.T + d_k @ block.w_k.T + d_v @ block.w_v.T  # (..., T, C): the source fed Q, K and V
    d_x_in = layer_norm_backward(t.x_norm, t.x_std, d_source) if cfg.layer_norm else d_source  # (..., T, C)
    if cfg.residual:
        d_x_in = d_x_in + d_after_attn  # the residual carries it past attention
    d_x = d_x_in  # positions are constants: d_x_in passes to x
    return d_x, Block(w_q=d_w_q, w_k=d_w_k, w_v=d_w_v, w_o=d_w_o, w1=d_w1, b1=d_b1, w2=d_w2, b2=d_b2)
