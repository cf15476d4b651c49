"""The building blocks of one attention layer, as plain functions over arrays."""

from __future__ import annotations

from functools import lru_cache

import numpy as np


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """exp(x) / sum(exp(x)) along `axis`; -inf entries get exactly 0."""
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(float)  # ints and lists work too; float32 stays float32
    e_x = x - np.max(x, axis=axis, keepdims=True)  # subtract the row max: same softmax, no overflow
    np.exp(e_x, out=e_x)  # in place: one (…, T) buffer instead of three
    e_x /= np.sum(e_x, axis=axis, keepdims=True)
    return e_x


def log_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """log(softmax(x)) along `axis`, without taking the log of a rounded-to-0 probability."""
    shifted = x - np.max(x, axis=axis, keepdims=True)  # same softmax, no overflow
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def split_heads(m: np.ndarray, num_heads: int) -> np.ndarray:
    """(..., T, C) -> (..., H, T, d_head): head h takes columns h*d_head ... (h+1)*d_head - 1."""
    *batch, T, C = m.shape
    return m.reshape(*batch, T, num_heads, C // num_heads).swapaxes(
        -3, -2
    )  # (..., T, H, d_head) -> (..., H, T, d_head)


def merge_heads(heads: np.ndarray) -> np.ndarray:
    """(..., H, T, d_head) -> (..., T, H*d_head): the heads' outputs side by side, head 0 first."""
    *batch, H, T, d_head = heads.shape
    return heads.swapaxes(-3, -2).reshape(*batch, T, H * d_head)  # (..., T, H, d_head) -> (..., T, C)


@lru_cache(maxsize=64)
def causal_visible(T: int) -> np.ndarray:
    """(T, T) booleans, read-only: query i may see key j when j <= i (remembered: every training
    step of every block asks for the same one)."""
    visible = np.tril(np.ones((T, T), dtype=bool))
    visible.setflags(write=False)
    return visible


@lru_cache(maxsize=64)
def sinusoidal_positions(T: int, d_model: int) -> np.ndarray:
    """(T, C) encoding, read-only: even columns sin(pos / 10000^(2i/C)), odd columns cos of the same angle."""
    pos = np.arange(T)[:, None]  # (T, 1)
    pair = np.arange(0, d_model, 2)[None, :]  # (1, ceil(C/2))
    angle = pos / np.power(10000.0, pair / d_model)  # (T, ceil(C/2))
    enc = np.zeros((T, d_model))  # (T, C)
    enc[:, 0::2] = np.sin(angle)
    enc[:, 1::2] = np.cos(angle[:, : d_model // 2])
    enc.setflags(write=False)  # remembered: shared by every caller
    return enc


EPS = 1e-5  # layer norm's epsilon: keeps a constant row finite


def norm_std(x: np.ndarray) -> np.ndarray:
    """(..., T, 1): each row's standard deviation, EPS added to the variance first."""
    return np.sqrt(x.var(axis=-1, keepdims=True) + EPS)


def layer_norm(x: np.ndarray, std: np.ndarray | None = None) -> np.ndarray:
    """Each row (last axis) to mean 0 and variance 1 (no learned gain or bias); std: norm_std(x) if known."""
    std = norm_std(x) if std is None else std  # (..., T, 1)
    return (x - x.mean(axis=-1, keepdims=True)) / std  # (..., T, C)


def layer_norm_backward(y: np.ndarray, std: np.ndarray, d_y: np.ndarray) -> np.ndarray:
    """d_x from d_y for y = layer_norm(x, std): remove d_y's mean and its part along y, then / std."""
    return (d_y - d_y.mean(axis=-1, keepdims=True) - y * (d_y * y).mean(axis=-1, keepdims=True)) / std


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(0, x)


def rows(m: np.ndarray) -> np.ndarray:
    """(..., N) -> (rows, N): every token of every sequence as one row, for weight gradients."""
    return m.reshape(-1, m.shape[-1])


def row_entropy(weights: np.ndarray) -> np.ndarray:
    """Entropy in bits of each weight row (last axis): 0 = one-hot, log2(T) = uniform."""
    safe = np.where(weights > 0, weights, 1.0)  # 0·log 0 counts as 0
    return 0.0 - np.sum(weights * np.log2(safe), axis=-1)  # 0.0 - 0.0: a one-hot row is 0, not −0
