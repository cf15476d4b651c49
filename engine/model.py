"""The model: embed → positions → every block → next-token logits, its loss, and its backward pass
beside it. Pages, training, evaluation and the measurements all run this one forward.

Shape letters: B sequences (any batch axes, or none for one sequence), T tokens, C = d_model,
H heads of D = d_head columns, V = vocabulary size, L blocks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .attention import rows, sinusoidal_positions, softmax
from .block import Trace, block_backward, block_forward
from .config import MAX_TOKENS, Config
from .params import Params, init_params, param_arrays, stack_params
from .tokens import Token, display_labels, embed, label


@dataclass(frozen=True)
class Stack:
    """Every block's Trace, in order, and what the last block's output predicts."""

    config: Config
    labels: tuple[str, ...]
    layers: tuple[Trace, ...]  # one Trace per block; layers[l].x is layers[l-1].output
    logits: np.ndarray | None  # (..., T, V) last output · W_u, or None without an unembedding

    @cached_property
    def probs(self) -> np.ndarray | None:
        """(..., T, V) softmax of the logits (each row sums to 1), worked out when first read:
        training reads only the logits."""
        if self.logits is None:
            return None
        probs = softmax(self.logits, axis=-1)  # (..., T, V)
        probs.setflags(write=False)
        return probs

    @property
    def output(self) -> np.ndarray:
        """(..., T, C) the last block's output."""
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


def checked_input(cfg: Config, x: np.ndarray, labels: Sequence[str] | None) -> tuple[np.ndarray, tuple[str, ...]]:
    """x (..., T, C) as floats, checked, and one label per token."""
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(float)  # ints work; float32 (training's) stays
    if x.flags.writeable:
        x = x.copy()  # a private copy the trace may freeze
    if x.ndim < 2 or x.shape[-1] != cfg.d_model:
        raise ValueError(f"x must have shape (T, {cfg.d_model}) or (B, T, {cfg.d_model}), got {x.shape}")
    T = x.shape[-2]
    if not 1 <= T <= MAX_TOKENS:
        raise ValueError(f"{T} tokens is outside 1..{MAX_TOKENS}")
    if not np.isfinite(x).all():
        raise ValueError("x contains NaN or infinity")
    labels = tuple(map(str, range(T))) if labels is None else tuple(labels)
    if len(labels) != T:
        raise ValueError(f"{len(labels)} labels for {T} tokens")
    return x, labels


def knocked_heads(cfg: Config, ablate: Iterable[tuple[int, int]]) -> tuple[tuple[int, ...], ...]:
    """(layer, head) pairs -> for each layer, its knocked-out heads; a pair out of range is refused."""
    L, H = cfg.n_layers, cfg.num_heads
    if not ablate:
        return ((),) * L  # nothing knocked out: the usual case
    knocked = [set() for _ in range(L)]
    for pair in ablate:
        if (
            not isinstance(pair, tuple)
            or len(pair) != 2
            or not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in pair)
            or not (0 <= pair[0] < L and 0 <= pair[1] < H)
        ):
            raise ValueError(
                f"ablate takes (layer, head) pairs with layer in 0..{L - 1} and head in 0..{H - 1}, got {pair!r}"
            )
        knocked[pair[0]].add(int(pair[1]))
    return tuple(tuple(sorted(heads)) for heads in knocked)


def forward(
    cfg: Config,
    params: Params,
    x: np.ndarray,
    labels: Sequence[str] | None = None,
    ablate: Iterable[tuple[int, int]] = (),
    means: np.ndarray | None = None,
) -> Stack:
    """Positions, then every block over x (..., T, C) in turn, then (with W_u) the logits.

    ablate: (layer, head) pairs whose output is replaced before the concatenation: by zeros, or by
    means[layer, head] (L, H, T, D) when means are given (see head_means: mean-ablation), or, for a batch,
    by each sequence's own replacement means (L, ..., H, T, D) (engine.ablation: resample-ablation).
    """
    check_params(cfg, params)
    x, labels = checked_input(cfg, x, labels)
    knocked = knocked_heads(cfg, ablate)
    T, C = x.shape[-2:]  # tokens, model width
    shared, each = (
        (cfg.n_layers, cfg.num_heads, T, cfg.d_head),
        (cfg.n_layers, *x.shape[:-2], cfg.num_heads, T, cfg.d_head),
    )
    if means is not None and np.shape(means) not in (shared, each):
        raise ValueError(
            f"means must have shape (L, H, T, D) = {shared} or (L, ..., H, T, D) = {each}, got {np.shape(means)}"
        )
    positions = (
        sinusoidal_positions(T, C).astype(x.dtype, copy=False)  # (T, C), in x's precision
        if cfg.positional == "sinusoidal"
        else None
    )
    layers = []
    for layer, block in enumerate(params.blocks):
        trace = block_forward(
            cfg, block, x, positions, labels, layer, knocked[layer], None if means is None else means[layer]
        )
        layers.append(trace)
        x, positions = trace.output, None  # (..., T, C); positions are added once
    logits = None if params.w_u is None else x @ params.w_u  # (..., T, C) @ (C, V) -> (..., T, V)
    if logits is not None:
        logits.setflags(write=False)
    return Stack(config=cfg, labels=labels, layers=tuple(layers), logits=logits)


def cross_entropy(logits: np.ndarray, targets: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean of -log p(target) over scored positions (targets >= 0), and d_logits (B, T, V).

    One (B, T, V) buffer, reused in place: the shifted logits, then their exponentials, then the
    gradient (a vocabulary of 1,000 makes this array the largest of a step)."""
    scored = targets >= 0  # (B, T)
    picked = targets[scored]  # (N,): the right answers
    shifted = logits - logits.max(axis=-1, keepdims=True)  # (B, T, V): same softmax, no overflow
    right = shifted[scored, picked]  # (N,) the right answers' shifted logits
    exp = np.exp(shifted, out=shifted)  # (B, T, V), in place
    total = exp.sum(axis=-1)  # (B, T): the softmax's denominators
    loss = np.mean(np.log(total[scored]) - right)  # -log p(target) = log Σ e^z - z_target
    d_logits = exp  # (B, T, V): becomes (softmax - one_hot) / N
    d_logits *= (scored / (total * len(picked)))[..., None]  # softmax / N on scored rows, 0 on the others
    d_logits[scored, picked] -= 1.0 / len(picked)  # minus the one-hot of the answer, / N
    return float(loss), d_logits


def backward(cfg: Config, params: Params, stack: Stack, tokens: np.ndarray, d_logits: np.ndarray) -> Params:
    """From d_logits (B, T, V) back through every block to the gradient of every array in params."""
    d_w_u = rows(stack.output).T @ rows(d_logits)  # (C, B*T) @ (B*T, V) -> (C, V)
    d_h = d_logits @ params.w_u.T  # (B, T, V) @ (V, C) -> (B, T, C)
    d_blocks = []
    for block, trace in zip(reversed(params.blocks), reversed(stack.layers)):
        d_h, d_block = block_backward(cfg, block, trace, d_h)  # (B, T, C) -> (B, T, C)
        d_blocks.insert(0, d_block)
    d_x = d_h  # (B, T, C)
    d_embeddings = np.zeros_like(params.embeddings)  # (V, C)
    np.add.at(d_embeddings, tokens.ravel(), rows(d_x))  # row tokens[b, t] += d_x[b, t]: a token's uses add up
    return stack_params(tuple(d_blocks), d_embeddings, d_w_u)


def check_batch(cfg: Config, params: Params, tokens, targets=None) -> tuple[np.ndarray, np.ndarray | None]:
    """Tokens and targets as (B, T) int arrays, checked against the vocabulary and the params."""
    check_params(cfg, params)
    if params.w_u is None or params.embeddings is None:
        raise ValueError("training needs an embedding table and W_u: use a config with unembedding=True")
    tokens = np.asarray(tokens)
    V = cfg.vocab_size
    checks = [("tokens", tokens, 0)] + ([] if targets is None else [("targets", np.asarray(targets), -1)])
    for name, ids, low in checks:
        if ids.ndim != 2 or ids.size == 0 or not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(f"{name} must be a non-empty (B, T) array of whole numbers, got {ids.dtype} {ids.shape}")
        if ids.min() < low or ids.max() >= V:
            raise ValueError(f"{name} must lie in {low}..{V - 1} (the vocabulary has {V} words)")
    if tokens.shape[1] > MAX_TOKENS:
        raise ValueError(f"{tokens.shape[1]} tokens per sequence is too many; the engine takes at most {MAX_TOKENS}")
    if targets is None:
        return tokens, None
    targets = np.asarray(targets)
    if targets.shape != tokens.shape:
        raise ValueError(f"targets {targets.shape} and tokens {tokens.shape} must have the same shape")
    if not np.any(targets >= 0):
        raise ValueError("no position is scored: every target is -1")
    return tokens, targets


def backprop(cfg: Config, params: Params, tokens, targets) -> tuple[float, Params, np.ndarray]:
    """loss_and_grads, plus the logits (B, T, V) the loss was computed from (not the whole Stack:
    a training loop that kept it would hold two steps' records at once)."""
    tokens, targets = check_batch(cfg, params, tokens, targets)
    x = params.embeddings[tokens]  # (V, C)[(B, T)] -> (B, T, C)
    x.setflags(write=False)  # nobody else holds it: no copy needed
    stack = forward(cfg, params, x)  # logits (B, T, V)
    loss, d_logits = cross_entropy(stack.logits, targets)
    return loss, backward(cfg, params, stack, tokens, d_logits), stack.logits


def loss_and_grads(cfg: Config, params: Params, tokens, targets) -> tuple[float, Params]:
    """Mean cross-entropy of next-token logits over scored positions, and its exact gradient.

    tokens, targets: (B, T) ints; a target of -1 is not scored. grads has params' structure
    (None where params has None).
    """
    loss, grads, _ = backprop(cfg, params, tokens, targets)
    for array in param_arrays(grads):
        array.setflags(write=False)
    return loss, grads


def run(
    cfg: Config,
    tokens: Sequence[Token],
    params: Params | None = None,
    ablate: Iterable[tuple[int, int]] = (),
    means: np.ndarray | None = None,
) -> Stack:
    """Weights for cfg (or these trained ones), vectors for one sequence of words or ids, the
    forward pass, readable labels: what the pages draw."""
    params = init_params(cfg) if params is None else params
    check_params(cfg, params)
    x = embed(cfg, params, tokens)  # (T, C)
    labels = display_labels([label(cfg, t) for t in tokens])
    return forward(cfg, params, x, labels, ablate, means)
