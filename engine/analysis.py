"""Numbers the pages explain: one cell worked out, one Q/K/V entry worked out, the T → T+1 extension."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .attention import row_entropy, softmax
from .block import Trace
from .config import Config
from .model import Stack, run
from .params import Params
from .tokens import Token


# --------------------------------------------------------------------------- one cell, worked out
@dataclass(frozen=True)
class CellWork:
    """Every number behind weights[h, i, j], in the order a student would compute it."""

    head: int
    query: int
    key: int
    q_i: np.ndarray  # (d_head,) query i's vector in this head
    k_j: np.ndarray  # (d_head,) key j's vector in this head
    products: np.ndarray  # (d_head,) q_i[d] * k_j[d]
    running: np.ndarray  # (d_head,) running sum of the products
    score: float  # q_i · k_j, equal to trace.scores[h, i, j]
    divisor: float  # sqrt(d_head), or 1 when scaling is off
    scaled: float  # score / divisor, or -inf when the mask hides key j
    visible: bool
    row_scaled: np.ndarray  # (T,) the whole scaled row (-inf where hidden)
    row_max: float  # the largest visible scaled score in the row
    row_exp: np.ndarray  # (T,) e^(scaled - row_max); 0 where hidden
    normaliser: float  # Σ_j e^(scaled_j - row_max)
    weight: float  # row_exp[j] / normaliser, equal to trace.weights[h, i, j]
    v_j: np.ndarray  # (d_head,) value vector of key j
    contribution: np.ndarray  # (d_head,) weight · v_j: what key j adds to query i's head output
    head_out: np.ndarray  # (d_head,) the head's whole output row i = Σ_j weights[h,i,j] · v_j


def explain_cell(trace: Trace, head: int, query: int, key: int) -> CellWork:
    """Work out trace.weights[head, query, key] term by term from the trace's own q, k and v."""
    H, T = trace.num_heads, trace.T
    for name, value, top in (("head", head, H), ("query", query, T), ("key", key, T)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not 0 <= value < top:
            raise ValueError(f"{name}={value} is outside 0..{top - 1}")
    cfg = trace.config
    q_i, k_j = trace.q[head, query], trace.k[head, key]  # (d_head,), (d_head,)
    products = q_i * k_j  # (d_head,)
    row_scaled = trace.scaled[head, query]  # (T,)
    row_max = float(np.max(row_scaled))
    row_exp = np.exp(row_scaled - row_max)  # (T,); e^-inf = 0 for hidden keys
    normaliser = float(np.sum(row_exp))
    weight = float(row_exp[key] / normaliser)
    v_j = trace.v[head, key]  # (d_head,)
    return CellWork(
        head=head,
        query=query,
        key=key,
        q_i=q_i,
        k_j=k_j,
        products=products,
        running=np.cumsum(products),
        score=float(trace.scores[head, query, key]),
        divisor=float(np.sqrt(cfg.d_head)) if cfg.scale_scores else 1.0,
        scaled=float(row_scaled[key]),
        visible=bool(trace.visible[query, key]),
        row_scaled=row_scaled,
        row_max=row_max,
        row_exp=row_exp,
        normaliser=normaliser,
        weight=weight,
        v_j=v_j,
        contribution=weight * v_j,
        head_out=trace.heads[head, query],
    )


# --------------------------------------------------------------------------- reading a weight map
def strongest_keys(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each query row of (T, T) weights: the key it attends to most, and that weight."""
    best = np.argmax(weights, axis=-1)  # (T,)
    return best, np.take_along_axis(weights, best[:, None], axis=-1)[:, 0]


NEAR_UNIFORM = 0.98  # a row whose spread (normalised entropy) is at least this is "spread almost evenly"
TIE = 1e-12  # weights this close (relative to the row's largest) are a tie: equal up to rounding


def spread(weights: np.ndarray, visible: np.ndarray) -> np.ndarray:
    """(..., T) normalised entropy H / log2(keys the row can see): 1 = uniform, 0 = one-hot; NaN for a
    row that sees one key only (its weight 1 is forced by the mask, not chosen)."""
    keys = np.count_nonzero(visible, axis=-1)  # (T,)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(keys > 1, row_entropy(weights) / np.log2(np.maximum(keys, 2)), np.nan)


@dataclass(frozen=True)
class RowReading:
    """What one weight row says, by the rules every sentence follows (see NEAR_UNIFORM and TIE)."""

    keys: int  # keys the row can see (1/keys is its uniform baseline)
    spread: float  # normalised entropy; NaN when keys == 1
    top: tuple[int, ...]  # the visible key(s) with the largest weight, ties included
    weight: float  # that largest weight

    @property
    def uniform(self) -> float:
        return 1.0 / self.keys

    @property
    def kind(self) -> str:
        """'forced' (one key visible), 'even' (spread >= NEAR_UNIFORM) or 'lean' (a winner may be named)."""
        return "forced" if self.keys == 1 else "even" if self.spread >= NEAR_UNIFORM else "lean"


def read_rows(weights: np.ndarray, visible: np.ndarray) -> list[RowReading]:
    """Each row of (T, T) weights read: keys it sees, spread, its top key(s) among the visible ones."""
    shown = np.where(visible, weights, -np.inf)  # a hidden key is never a winner
    rows = []
    for i, s in enumerate(spread(weights, visible)):
        best = float(np.max(shown[i]))
        top = tuple(int(j) for j in np.flatnonzero(shown[i] >= best - TIE * max(best, 1e-300)))
        rows.append(RowReading(keys=int(np.count_nonzero(visible[i])), spread=float(s), top=top, weight=best))
    return rows


def read_head(trace: Trace, head: int, beta: float = 1.0) -> tuple[np.ndarray, list[RowReading]]:
    """One head's (T, T) weights at inverse temperature beta and each row read by the rules: what the
    softmax page draws and says, and what the poll's top-key question grades."""
    weights = weights_at(trace.scaled[head], beta)
    return weights, read_rows(weights, trace.visible)


def score_spread(trace: Trace, head: int) -> tuple[float, float]:
    """The standard deviation of one head's visible scores, raw and divided by √d_head (whether or not
    the block divides): what the scaled-scores page says the division does, and the poll grades."""
    seen = trace.visible  # (T, T)
    raw = trace.scores[head][seen]
    return float(np.std(raw)), float(np.std(raw / np.sqrt(trace.config.d_head)))


def weights_at(scaled: np.ndarray, beta: float) -> np.ndarray:
    """softmax(beta * scaled) over the last axis: the weights at inverse temperature beta (beta = 1 is
    the model). Hidden keys (-inf) stay hidden at every beta, beta = 0 included (then uniform over the
    visible keys)."""
    if not np.isfinite(beta) or beta < 0:
        raise ValueError(f"beta must be a finite number >= 0, got {beta!r}")
    hidden = np.isneginf(scaled)
    return softmax(np.where(hidden, -np.inf, beta * np.where(hidden, 0.0, scaled)), axis=-1)


def cosines(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(H, T, T) cos of the angle between every query and every key: q·k / (|q| |k|); NaN for a zero vector."""
    norms = np.linalg.norm(q, axis=-1)[..., :, None] * np.linalg.norm(k, axis=-1)[..., None, :]  # (H, T, T)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norms > 0, (q @ k.swapaxes(-2, -1)) / norms, np.nan)


def focus(weights: np.ndarray) -> np.ndarray:
    """Row entropy as a share of the uniform row's: 0 = one-hot, 1 = spread evenly over visible keys."""
    visible = np.count_nonzero(weights > 0, axis=-1)  # (..., T)
    top = np.log2(np.maximum(visible, 2))
    return np.where(visible > 1, row_entropy(weights) / top, 0.0)


# --------------------------------------------------------------------------- the exercise: one more token
@dataclass(frozen=True)
class Extension:
    """What appending one token did to the first T rows of attention and of the output."""

    before: Trace  # T tokens
    after: Trace  # the same T tokens plus one
    factors: np.ndarray  # (H, T) Z_i / (Z_i + e^{s_i,new}): what each old row was multiplied by
    new_scores: np.ndarray  # (H, T) s_i,new: each old query's scaled score against the new key
    new_weight: np.ndarray  # (H, T) the weight each old query now gives the new token
    diff: np.ndarray  # (H, T, T) after.weights[:, :T, :T] - before.weights
    ratio_error: float  # max |after_ij - factor_i · before_ij|: 0 up to rounding means ratios kept
    output_change: np.ndarray  # (T,) ‖after.output_i − before.output_i‖ for the old rows


def logsumexp(x: np.ndarray, axis: int = -1) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    return (top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True))).squeeze(axis)


def extend(cfg: Config, tokens: Sequence[Token], new_token: Token, params: Params | None = None) -> Extension:
    """Run tokens and tokens + [new_token] (with params, or cfg's own weights); the first len(tokens)
    inputs are identical in both."""
    before = run(cfg, tokens, params).layers[0]
    after = run(cfg, list(tokens) + [new_token], params).layers[0]
    T = before.T
    old_scaled = after.scaled[:, :T, :T]  # (H, T, T): same as before.scaled
    new_scores = after.scaled[:, :T, T]  # (H, T); -inf where the mask hides it
    log_z = logsumexp(old_scaled, axis=-1)  # (H, T): log Σ_j<T e^{s_ij}
    with np.errstate(over="ignore"):  # e^(s - log Z) = inf gives factor 0
        factors = 1.0 / (1.0 + np.exp(new_scores - log_z))  # Z/(Z + e^s), never inf/inf
    old_block = after.weights[:, :T, :T]  # (H, T, T)
    ratio_error = float(np.max(np.abs(old_block - factors[..., None] * before.weights)))
    return Extension(
        before=before,
        after=after,
        factors=factors,
        new_scores=new_scores,
        new_weight=after.weights[:, :T, T],
        diff=old_block - before.weights,
        ratio_error=ratio_error,
        output_change=np.linalg.norm(after.output[:T] - before.output, axis=-1),
    )


# --------------------------------------------------------------------------- small readers
def largest(matrix: np.ndarray, visible: np.ndarray | None = None) -> tuple[int, int, float]:
    """Row, column and value of the largest entry of a 2-D matrix (ignoring -inf and, if given, the
    entries where `visible` is False)."""
    if visible is not None:
        matrix = np.where(visible, matrix, -np.inf)
    flat = int(np.argmax(np.where(np.isnan(matrix), -np.inf, matrix)))
    i, j = divmod(flat, matrix.shape[1])
    return i, j, float(matrix[i, j])


def largest_all(matrix: np.ndarray, visible: np.ndarray | None = None) -> tuple[list[tuple[int, int]], float]:
    """Every (row, column) of a 2-D matrix whose entry equals the largest up to rounding (TIE, relative to
    it), in row-major order, and that value; -inf, NaN and (if given) the entries where `visible` is False
    never count."""
    i, j, top = largest(matrix, visible)
    shown = matrix if visible is None else np.where(visible, matrix, -np.inf)
    shown = np.where(np.isnan(shown), -np.inf, shown)
    tied = np.argwhere(shown >= top - TIE * max(abs(top), 1e-300)) if np.isfinite(top) else np.array([[i, j]])
    return [(int(a), int(b)) for a, b in tied], top


def head_columns(cfg: Config, head: int) -> tuple[int, int]:
    """First and last column of Q, K and V that belong to one head."""
    return head * cfg.d_head, (head + 1) * cfg.d_head - 1


@dataclass(frozen=True)
class ProjectionWork:
    """One entry of Q, K or V: a token's input row dotted with one column of the weight matrix."""

    token: int
    column: int
    x_row: np.ndarray  # (C,) the token's input row
    w_col: np.ndarray  # (C,) the weight matrix's column
    products: np.ndarray  # (C,) x_row[d] * w_col[d]
    running: np.ndarray  # (C,) running sum; the last entry is the projected value
    value: float


def explain_projection(source: np.ndarray, w: np.ndarray, token: int, column: int) -> ProjectionWork:
    """Work out (source @ w)[token, column] term by term."""
    T, C = source.shape
    if not (0 <= token < T and 0 <= column < w.shape[1]):
        raise ValueError(f"entry ({token}, {column}) is outside the {T} × {w.shape[1]} projection")
    x_row, w_col = source[token], w[:, column]  # (C,), (C,)
    products = x_row * w_col  # (C,)
    running = np.cumsum(products)
    return ProjectionWork(
        token=token,
        column=column,
        x_row=x_row,
        w_col=w_col,
        products=products,
        running=running,
        value=float(running[-1]),
    )


def stack_weights(stack: Stack) -> np.ndarray:
    """(L, H, T, T) every layer's weights of an engine.Stack."""
    return np.stack([layer.weights for layer in stack.layers])


def map_summary(stack: Stack) -> tuple[np.ndarray, np.ndarray, float]:
    """The model view's numbers: (L, H) each map's mean spread and (L, H) mean largest weight, over the rows
    that see more than one key, and the mean largest weight an even spread gives those rows (NaNs when
    every row sees one key)."""
    visible = stack.layers[0].visible  # (T, T): the same in every layer
    rows = np.count_nonzero(visible, axis=-1) > 1  # (T,) rows with a choice to make
    w = stack_weights(stack)  # (L, H, T, T)
    if not rows.any():
        nan = np.full(w.shape[:2], np.nan)
        return nan, nan, float("nan")
    spreads = np.nanmean(spread(w, visible)[..., rows], axis=-1)  # (L, H)
    top = np.where(visible, w, -np.inf).max(axis=-1)[..., rows].mean(axis=-1)  # (L, H)
    return spreads, top, float(np.mean(1.0 / np.count_nonzero(visible, axis=-1)[rows]))


def row_spreads(stack: Stack) -> np.ndarray:
    """(L, H, T) every row's spread in every map (NaN where a row sees one key): what the per-head page reads."""
    return spread(stack_weights(stack), stack.layers[0].visible)
