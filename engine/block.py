"""The forward pass: one pure function that returns every intermediate in a frozen Trace."""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .attention import causal_visible, layer_norm, merge_heads, relu, sinusoidal_positions, softmax, split_heads
from .config import MAX_TOKENS, Config
from .params import Block, Params


@dataclass(frozen=True)
class Trace:
    """Every stage of one forward pass, named for what it is. H heads, T tokens, C = d_model."""

    config: Config
    labels: tuple[str, ...]          # one readable, unique label per token
    x: np.ndarray                    # (T, C) token vectors handed to the block
    positions: np.ndarray | None     # (T, C) sinusoidal encoding, or None when positions are off
    x_in: np.ndarray                 # (T, C) x + positions: what the block actually sees
    x_norm: np.ndarray | None        # (T, C) layer-normed x_in feeding Q, K, V (None without layer norm)
    q: np.ndarray                    # (H, T, d_head)
    k: np.ndarray                    # (H, T, d_head)
    v: np.ndarray                    # (H, T, d_head)
    scores: np.ndarray               # (H, T, T) raw Q·Kᵀ
    scaled: np.ndarray               # (H, T, T) after ÷sqrt(d_head) and the mask (-inf where hidden)
    visible: np.ndarray              # (T, T) True where a query may see a key
    weights: np.ndarray              # (H, T, T) softmax of scaled; each row sums to 1
    heads: np.ndarray                # (H, T, d_head) weights · V
    concat: np.ndarray               # (T, C) heads side by side
    attn: np.ndarray                 # (T, C) concat · W_o (concat itself without an output projection)
    after_attn: np.ndarray           # (T, C) x_in + attn with residuals, attn without
    ffn_in: np.ndarray               # (T, C) what the FFN reads (layer-normed after_attn with layer norm)
    ffn_pre: np.ndarray              # (T, d_ff) ffn_in · W1 + b1, before the ReLU
    ffn_hidden: np.ndarray           # (T, d_ff) after the ReLU
    ffn_out: np.ndarray              # (T, C) ffn_hidden · W2
    output: np.ndarray               # (T, C) after_attn + ffn_out (+ b2) with residuals, ffn_out + b2 without

    @property
    def T(self) -> int:
        return self.x.shape[0]

    @property
    def num_heads(self) -> int:
        return self.q.shape[0]

    @property
    def source(self) -> np.ndarray:
        """(T, C) what Q, K and V are computed from: x_in, or its layer norm."""
        return self.x_in if self.x_norm is None else self.x_norm

    @property
    def mask(self) -> np.ndarray | None:
        """(T, T) the visible keys under the causal mask; None when every key is visible."""
        return self.visible if self.config.causal else None

    @property
    def dims(self) -> tuple[str, ...]:
        """Column labels of a (T, C) stage: '0' … 'C-1'."""
        return tuple(str(c) for c in range(self.x.shape[1]))

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array field by name (for exports)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if isinstance(getattr(self, f.name), np.ndarray)}


def checked_input(cfg: Config, x: np.ndarray, labels: tuple[str, ...] | None) -> tuple[np.ndarray, tuple[str, ...]]:
    """A private float copy of x (T, C), checked, and one label per token."""
    x = np.array(x, dtype=float)                                      # a private copy we may freeze
    if x.ndim != 2 or x.shape[1] != cfg.d_model:
        raise ValueError(f"x must have shape (T, {cfg.d_model}), got {x.shape}")
    T, C = x.shape                                                    # tokens, model width
    if not 1 <= T <= MAX_TOKENS:
        raise ValueError(f"{T} tokens is outside 1..{MAX_TOKENS}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x contains NaN or infinity")
    labels = tuple(str(i) for i in range(T)) if labels is None else tuple(labels)
    if len(labels) != T:
        raise ValueError(f"{len(labels)} labels for {T} tokens")
    return x, labels


def forward(cfg: Config, params: Params, x: np.ndarray, labels: tuple[str, ...] | None = None) -> Trace:
    """Run one block over x (T, C) and keep every intermediate."""
    if cfg.n_layers != 1:
        raise ValueError(f"forward runs one block but this config has n_layers={cfg.n_layers}; "
                         "use engine.forward_stack (or engine.run_stack) for a stack of blocks")
    x, labels = checked_input(cfg, x, labels)
    T, C = x.shape                                                    # tokens, model width
    positions = sinusoidal_positions(T, C) if cfg.positional == "sinusoidal" else None
    x_in = x if positions is None else x + positions                  # (T, C)
    return Trace(config=cfg, labels=labels, **block_stages(cfg, params, x, positions, x_in))


def block_stages(cfg: Config, params: Params | Block, x: np.ndarray, positions: np.ndarray | None,
                 x_in: np.ndarray) -> dict[str, np.ndarray | None]:
    """One block's arithmetic over x_in (T, C), every stage by name, frozen (params: a Params or Block)."""
    T, C = x_in.shape                                                 # tokens, model width
    H, d_head = cfg.num_heads, cfg.d_head
    x_norm = layer_norm(x_in) if cfg.layer_norm else None              # (T, C)
    source = x_in if x_norm is None else x_norm                       # (T, C)

    q = split_heads(source @ params.w_q, H)                           # (T, C) @ (C, C) -> (H, T, d_head)
    k = split_heads(source @ params.w_k, H)                           # (H, T, d_head)
    v = split_heads(source @ params.w_v, H)                           # (H, T, d_head)
    scores = q @ k.swapaxes(-2, -1)                                   # (H, T, d_head) @ (H, d_head, T) -> (H, T, T)
    unmasked = scores / np.sqrt(d_head) if cfg.scale_scores else scores   # variance near 1 for any d_head
    visible = causal_visible(T) if cfg.causal else np.ones((T, T), dtype=bool)   # (T, T)
    scaled = np.where(visible, unmasked, -np.inf) if cfg.causal else unmasked   # (H, T, T); hidden keys get exactly 0 weight
    weights = softmax(scaled, axis=-1)                                # (H, T, T); each row sums to 1
    heads = weights @ v                                               # (H, T, T) @ (H, T, d_head) -> (H, T, d_head)
    concat = merge_heads(heads)                                       # (T, C)
    attn = concat if params.w_o is None else concat @ params.w_o      # (T, C)
    after_attn = x_in + attn if cfg.residual else attn                # (T, C)

    ffn_in = layer_norm(after_attn) if cfg.layer_norm else after_attn  # (T, C)
    ffn_pre = ffn_in @ params.w1 + params.b1                          # (T, C) @ (C, F) -> (T, F)
    ffn_hidden = relu(ffn_pre)                                        # (T, F); negatives become exactly 0
    ffn_out = ffn_hidden @ params.w2                                  # (T, F) @ (F, C) -> (T, C)
    output = (after_attn + ffn_out if cfg.residual else ffn_out) + params.b2   # (T, C)

    stages = dict(x=x, positions=positions, x_in=x_in, x_norm=x_norm, q=q, k=k, v=v, scores=scores,
                  scaled=scaled, visible=visible, weights=weights, heads=heads, concat=concat, attn=attn,
                  after_attn=after_attn, ffn_in=ffn_in, ffn_pre=ffn_pre, ffn_hidden=ffn_hidden,
                  ffn_out=ffn_out, output=output)
    for array in stages.values():
        if array is not None:
            array.setflags(write=False)                               # the trace is frozen all the way down
    return stages
