"""Training's forward and backward passes over a batch, by hand: each backward step mirrors one
forward step, under the same name with a d_ prefix (d_x = dloss/dx), in reverse order.

Shape letters: B sequences, T tokens, C = d_model, H heads of D = d_head columns, F = d_ff,
V = vocabulary size. The forward arithmetic is engine.forward's, with a batch axis in front.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .attention import causal_visible, relu, sinusoidal_positions, softmax
from .config import MAX_TOKENS, Config
from .model import check_params
from .params import Block, Params, param_arrays, stack_params

EPS = 1e-5   # layer norm's epsilon, the default of attention.layer_norm


def split(m: np.ndarray, H: int) -> np.ndarray:
    """(B, T, C) -> (B, H, T, D): head h takes columns h*D ... (h+1)*D - 1, as split_heads does."""
    B, T, C = m.shape
    return m.reshape(B, T, H, C // H).swapaxes(1, 2)


def merge(heads: np.ndarray) -> np.ndarray:
    """(B, H, T, D) -> (B, T, H*D): the heads side by side, as merge_heads does."""
    B, H, T, D = heads.shape
    return heads.swapaxes(1, 2).reshape(B, T, H * D)


def rows(m: np.ndarray) -> np.ndarray:
    """(B, T, N) -> (B*T, N): every token of every sequence as one row, for weight gradients."""
    return m.reshape(-1, m.shape[-1])


def norm_forward(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Layer norm without gain (as attention.layer_norm), and each row's std for the backward step."""
    mean = x.mean(axis=-1, keepdims=True)                             # (B, T, 1)
    std = np.sqrt(x.var(axis=-1, keepdims=True) + EPS)                # (B, T, 1)
    return (x - mean) / std, std                                      # (B, T, C)


def norm_backward(y: np.ndarray, std: np.ndarray, d_y: np.ndarray) -> np.ndarray:
    """d_x from d_y for y = (x - mean) / std: remove d_y's mean and its part along y, then / std."""
    return (d_y - d_y.mean(axis=-1, keepdims=True) - y * (d_y * y).mean(axis=-1, keepdims=True)) / std


def block_forward(cfg: Config, block: Block, x_in: np.ndarray) -> tuple[np.ndarray, SimpleNamespace]:
    """One block over a batch: x_in (B, T, C) -> output (B, T, C), and what block_backward reads."""
    B, T, C = x_in.shape
    H, D = cfg.num_heads, cfg.d_head
    x_norm, std_in = norm_forward(x_in) if cfg.layer_norm else (x_in, None)   # (B, T, C), (B, T, 1)
    q = split(x_norm @ block.w_q, H)                                  # (B, T, C) @ (C, C) -> (B, H, T, D)
    k = split(x_norm @ block.w_k, H)                                  # (B, H, T, D)
    v = split(x_norm @ block.w_v, H)                                  # (B, H, T, D)
    scores = q @ k.swapaxes(-2, -1)                                   # (B, H, T, D) @ (B, H, D, T) -> (B, H, T, T)
    unmasked = scores / np.sqrt(D) if cfg.scale_scores else scores    # (B, H, T, T)
    scaled = np.where(causal_visible(T), unmasked, -np.inf) if cfg.causal else unmasked   # hidden keys: -inf
    weights = softmax(scaled, axis=-1)                                # (B, H, T, T); each row sums to 1
    heads = weights @ v                                               # (B, H, T, T) @ (B, H, T, D) -> (B, H, T, D)
    concat = merge(heads)                                             # (B, T, C)
    attn = concat if block.w_o is None else concat @ block.w_o        # (B, T, C)
    after_attn = x_in + attn if cfg.residual else attn                # (B, T, C)
    ffn_in, std_mid = norm_forward(after_attn) if cfg.layer_norm else (after_attn, None)   # (B, T, C)
    ffn_pre = ffn_in @ block.w1 + block.b1                            # (B, T, C) @ (C, F) -> (B, T, F)
    ffn_hidden = relu(ffn_pre)                                        # (B, T, F)
    ffn_out = ffn_hidden @ block.w2                                   # (B, T, F) @ (F, C) -> (B, T, C)
    output = (after_attn + ffn_out if cfg.residual else ffn_out) + block.b2   # (B, T, C)
    saved = SimpleNamespace(x_norm=x_norm, std_in=std_in, q=q, k=k, v=v, weights=weights, concat=concat,
                            ffn_in=ffn_in, std_mid=std_mid, ffn_pre=ffn_pre, ffn_hidden=ffn_hidden)
    return output, saved


def block_backward(cfg: Config, block: Block, s: SimpleNamespace, d_output: np.ndarray) -> tuple[np.ndarray, Block]:
    """From d_output (B, T, C) back to d_x_in (B, T, C) and the gradient of every weight of the block."""
    H, D = cfg.num_heads, cfg.d_head
    d_b2 = d_output.sum(axis=(0, 1))                                  # (C,): b2 is added to every token
    d_ffn_out = d_output                                              # (B, T, C)
    d_w2 = rows(s.ffn_hidden).T @ rows(d_ffn_out)                     # (F, B*T) @ (B*T, C) -> (F, C)
    d_ffn_hidden = d_ffn_out @ block.w2.T                             # (B, T, C) @ (C, F) -> (B, T, F)
    d_ffn_pre = d_ffn_hidden * (s.ffn_pre > 0)                        # ReLU passes the gradient where it let x through
    d_b1 = d_ffn_pre.sum(axis=(0, 1))                                 # (F,)
    d_w1 = rows(s.ffn_in).T @ rows(d_ffn_pre)                         # (C, B*T) @ (B*T, F) -> (C, F)
    d_ffn_in = d_ffn_pre @ block.w1.T                                 # (B, T, F) @ (F, C) -> (B, T, C)
    d_after_attn = norm_backward(s.ffn_in, s.std_mid, d_ffn_in) if cfg.layer_norm else d_ffn_in   # (B, T, C)
    if cfg.residual:
        d_after_attn = d_after_attn + d_output                        # the residual carries d_output past the FFN
    d_attn = d_after_attn                                             # (B, T, C)
    d_w_o = None if block.w_o is None else rows(s.concat).T @ rows(d_attn)   # (C, B*T) @ (B*T, C) -> (C, C)
    d_concat = d_attn if block.w_o is None else d_attn @ block.w_o.T  # (B, T, C)
    d_heads = split(d_concat, H)                                      # (B, H, T, D)
    d_weights = d_heads @ s.v.swapaxes(-2, -1)                        # (B, H, T, D) @ (B, H, D, T) -> (B, H, T, T)
    d_v = s.weights.swapaxes(-2, -1) @ d_heads                        # (B, H, T, T) @ (B, H, T, D) -> (B, H, T, D)
    d_scaled = s.weights * (d_weights - (d_weights * s.weights).sum(axis=-1, keepdims=True))   # softmax; hidden keys get 0
    d_unmasked = d_scaled                                             # the mask only set entries whose weight is 0
    d_scores = d_unmasked / np.sqrt(D) if cfg.scale_scores else d_unmasked   # the division passes straight through
    d_q = d_scores @ s.k                                              # (B, H, T, T) @ (B, H, T, D) -> (B, H, T, D)
    d_k = d_scores.swapaxes(-2, -1) @ s.q                             # (B, H, T, D)
    d_q, d_k, d_v = merge(d_q), merge(d_k), merge(d_v)                # (B, T, C) each
    d_w_q = rows(s.x_norm).T @ rows(d_q)                              # (C, B*T) @ (B*T, C) -> (C, C)
    d_w_k = rows(s.x_norm).T @ rows(d_k)                              # (C, C)
    d_w_v = rows(s.x_norm).T @ rows(d_v)                              # (C, C)
    d_x_norm = d_q @ block.w_q.T + d_k @ block.w_k.T + d_v @ block.w_v.T   # (B, T, C): x_norm fed Q, K and V
    d_x_in = norm_backward(s.x_norm, s.std_in, d_x_norm) if cfg.layer_norm else d_x_norm   # (B, T, C)
    if cfg.residual:
        d_x_in = d_x_in + d_after_attn                                # the residual carries it past attention
    return d_x_in, Block(w_q=d_w_q, w_k=d_w_k, w_v=d_w_v, w_o=d_w_o, w1=d_w1, b1=d_b1, w2=d_w2, b2=d_b2)


def model_forward(cfg: Config, params: Params, tokens: np.ndarray) -> tuple[np.ndarray, SimpleNamespace]:
    """Token ids (B, T) -> logits (B, T, V) through every block, and what model_backward reads."""
    B, T = tokens.shape
    x = params.embeddings[tokens]                                     # (V, C)[(B, T)] -> (B, T, C)
    x_in = x + sinusoidal_positions(T, cfg.d_model) if cfg.positional == "sinusoidal" else x   # (B, T, C)
    h, saved_blocks = x_in, []
    for block in params.blocks:
        h, saved = block_forward(cfg, block, h)                       # (B, T, C) -> (B, T, C)
        saved_blocks.append(saved)
    logits = h @ params.w_u                                           # (B, T, C) @ (C, V) -> (B, T, V)
    return logits, SimpleNamespace(tokens=tokens, last=h, blocks=saved_blocks)


def model_backward(cfg: Config, params: Params, s: SimpleNamespace, d_logits: np.ndarray) -> Params:
    """From d_logits (B, T, V) back to the gradient of every array in params."""
    d_w_u = rows(s.last).T @ rows(d_logits)                           # (C, B*T) @ (B*T, V) -> (C, V)
    d_h = d_logits @ params.w_u.T                                     # (B, T, V) @ (V, C) -> (B, T, C)
    d_blocks = []
    for block, saved in zip(reversed(params.blocks), reversed(s.blocks)):
        d_h, d_block = block_backward(cfg, block, saved, d_h)         # (B, T, C) -> (B, T, C)
        d_blocks.insert(0, d_block)
    d_x = d_h                                                         # positions are constants: d_x_in passes to x
    one_hot = np.eye(len(params.embeddings))[s.tokens.ravel()]        # (B*T, V): the lookup x = one_hot · table
    d_embeddings = one_hot.T @ rows(d_x)                              # (V, B*T) @ (B*T, C) -> (V, C): sums each token's uses
    return stack_params(tuple(d_blocks), d_embeddings, d_w_u)


def cross_entropy(logits: np.ndarray, targets: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean of -log p(target) over scored positions (targets >= 0), and d_logits (B, T, V)."""
    scored = targets >= 0                                             # (B, T)
    picked = targets[scored]                                          # (N,): the right answers
    shifted = logits - logits.max(axis=-1, keepdims=True)             # (B, T, V); same softmax, no overflow
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))   # (B, T, V)
    loss = -log_probs[scored, picked].mean()                          # scalar
    d_logits = np.exp(log_probs)                                      # (B, T, V): softmax - one_hot, for scored rows
    d_logits[scored, picked] -= 1.0
    d_logits *= scored[..., None] / len(picked)                       # unscored rows get 0; the mean divides by N
    return float(loss), d_logits


def check_batch(cfg: Config, params: Params, tokens, targets) -> tuple[np.ndarray, np.ndarray]:
    """Tokens and targets as (B, T) int arrays, checked against the vocabulary and the params."""
    check_params(cfg, params)
    if params.w_u is None or params.embeddings is None:
        raise ValueError("training needs an embedding table and W_u: use a config with unembedding=True")
    tokens, targets = np.asarray(tokens), np.asarray(targets)
    V = cfg.vocab_size
    for name, ids, low in (("tokens", tokens, 0), ("targets", targets, -1)):
        if ids.ndim != 2 or ids.size == 0 or not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(f"{name} must be a non-empty (B, T) array of whole numbers, got {ids.dtype} {ids.shape}")
        if ids.min() < low or ids.max() >= V:
            raise ValueError(f"{name} must lie in {low}..{V - 1} (the vocabulary has {V} words)")
    if targets.shape != tokens.shape:
        raise ValueError(f"targets {targets.shape} and tokens {tokens.shape} must have the same shape")
    if tokens.shape[1] > MAX_TOKENS:
        raise ValueError(f"{tokens.shape[1]} tokens per sequence is too many; the engine takes at most {MAX_TOKENS}")
    if not np.any(targets >= 0):
        raise ValueError("no position is scored: every target is -1")
    return tokens, targets


def backprop(cfg: Config, params: Params, tokens, targets) -> tuple[float, Params, np.ndarray]:
    """loss_and_grads, plus the logits (B, T, V) the loss was computed from."""
    tokens, targets = check_batch(cfg, params, tokens, targets)
    logits, saved = model_forward(cfg, params, tokens)                # (B, T, V)
    loss, d_logits = cross_entropy(logits, targets)
    return loss, model_backward(cfg, params, saved, d_logits), logits


def loss_and_grads(cfg: Config, params: Params, tokens, targets) -> tuple[float, Params]:
    """Mean cross-entropy of next-token logits over scored positions, and its exact gradient.

    tokens, targets: (B, T) ints; a target of -1 is not scored. grads has params' structure
    (None where params has None).
    """
    loss, grads, _ = backprop(cfg, params, tokens, targets)
    for array in param_arrays(grads):
        array.setflags(write=False)
    return loss, grads
