"""The facts of the block's pages (Inputs to Block output) and of the exercise: each computed from the
trace the page draws, by the page's own functions, and printed as the page prints it. Token labels are
quoted plainly (‘cat’): the whole filled text is escaped when it is shown. Pure Python."""

from __future__ import annotations

import math

import numpy as np

from engine import analysis
from ui.lessons.registry import NoFact, fact
from ui.prose.new_token import ordinal
from ui.prose.notices import pairs, three
from ui.prose.numbers import count, fmt, names, next_to
from ui.prose.numbers import spread as spread_cell
from ui.prose.text import plain
from ui.shell import state


def _trace(view, numbers):
    """The trace the block's pages draw (the layer the sidebar picks)."""
    return numbers.trace(numbers.model_of(view), view.words, view.layer)


def _shape(rows: int, cols: int) -> str:
    return f"{rows} × {cols}"


# --------------------------------------------------------------------------- Inputs X
@fact("inputs.T", "how many tokens the sentence has")
def _tokens_count(view, numbers) -> str:
    return str(len(view.words))


@fact("inputs.tokens", "the tokens, quoted, in order")
def _tokens(view, numbers) -> str:
    return names([plain(w) for w in _trace(view, numbers).labels])


@fact("inputs.d_model", "d_model, the numbers in each token's row")
def _d_model(view, numbers) -> str:
    return str(view.config.d_model)


@fact("inputs.shape", "X's shape, T × d_model")
def _x_shape(view, numbers) -> str:
    return _shape(*_trace(view, numbers).x.shape)


# --------------------------------------------------------------------------- Q, K, V
@fact("qkv.w_shape", "the shape of W_Q (and of W_K, W_V)")
def _w_shape(view, numbers) -> str:
    return _shape(view.config.d_model, view.config.d_model)


@fact("qkv.q_shape", "the shape of Q (and of K, V)")
def _q_shape(view, numbers) -> str:
    return _shape(len(view.words), view.config.d_model)


@fact("qkv.heads", "the heads, counted ('2 heads')")
def _heads(view, numbers) -> str:
    return count(view.config.num_heads, "head")


@fact("qkv.head", "the head the page shows")
def _head(view, numbers) -> str:
    return str(view.head)


@fact("qkv.d_head", "d_head, the columns of each head")
def _d_head(view, numbers) -> str:
    return str(view.config.d_head)


@fact("qkv.columns", "the columns of the head shown ('0…7')")
def _columns(view, numbers) -> str:
    d = view.config.d_head
    return f"{view.head * d}…{(view.head + 1) * d - 1}"


# --------------------------------------------------------------------------- Scaled scores
@fact("scores.T", "the tokens: the score table is T × T")
def _scores_T(view, numbers) -> str:
    return str(len(view.words))


@fact("scores.divisor", "√d_head, as the page's formula prints it")
def _divisor(view, numbers) -> str:
    if not view.config.scale_scores:
        raise NoFact("scaling is switched off here, so nothing is divided (set scale = 1 or leave it out)")
    return fmt(math.sqrt(view.config.d_head), ".4f")


@fact("scores.std_raw", "the spread (std) of the head's visible raw scores")
def _std_raw(view, numbers) -> str:
    return three(analysis.score_spread(_trace(view, numbers), view.head)[0])


@fact("scores.std_scaled", "the spread (std) after ÷√d_head")
def _std_scaled(view, numbers) -> str:
    _divisor(view, numbers)
    return three(analysis.score_spread(_trace(view, numbers), view.head)[1])


@fact("scores.top_pair", "the query → key pair with the head's largest scaled score (ties named)")
def _top_pair(view, numbers) -> str:
    t = _trace(view, numbers)
    found, _ = analysis.largest_all(t.scaled[view.head])
    return pairs(found, t.labels, plain)


# --------------------------------------------------------------------------- Softmax weights
def _row(view, numbers):
    """The row the softmax page's poll question reads: the picked cell's, else the last; at the page's β."""
    t = _trace(view, numbers)
    _, rows = analysis.read_head(t, view.head, view.controls.beta)
    i = view.cell[0] if view.cell else t.T - 1
    return t, i, rows[i]


@fact("softmax.row", "the query row read (the picked cell's, else the last)")
def _row_name(view, numbers) -> str:
    t, i, _ = _row(view, numbers)
    return f"{plain(t.labels[i])} (row {i})"


@fact("softmax.reading", "what that row does, by the page's rules ('attends most to ‘cat’', 'is spread almost evenly')")
def _reading(view, numbers) -> str:
    t, _, r = _row(view, numbers)
    if r.kind == "forced":
        return "sees one key only, so its weight 1 is forced"
    if r.kind == "even":
        return "is spread almost evenly"
    return "attends most to " + names([plain(t.labels[j]) for j in r.top]) + (" (tied)" if len(r.top) > 1 else "")


@fact("softmax.weight", "that row's largest weight, as the page's table prints it")
def _weight(view, numbers) -> str:
    return fmt(_row(view, numbers)[2].weight, ".4f")


@fact("softmax.uniform", "1 ÷ the keys that row sees")
def _uniform(view, numbers) -> str:
    return fmt(_row(view, numbers)[2].uniform, ".4f")


@fact("softmax.spread", "that row's spread (entropy ÷ log₂ keys)")
def _spread(view, numbers) -> str:
    return spread_cell(_row(view, numbers)[2].spread)


@fact("softmax.beta", "β, the inverse temperature")
def _beta(view, numbers) -> str:
    return f"{view.controls.beta:g}"


# --------------------------------------------------------------------------- Per-head maps
@fact("heads.count", "how many heads")
def _heads_count(view, numbers) -> str:
    return str(view.config.num_heads)


@fact("heads.head_shape", "one head's output, T × d_head")
def _head_shape(view, numbers) -> str:
    return _shape(len(view.words), view.config.d_head)


@fact("heads.concat_shape", "the heads concatenated, T × d_model")
def _concat_shape(view, numbers) -> str:
    return _shape(*_trace(view, numbers).concat.shape)


@fact("heads.w_o_shape", "W_O's shape")
def _w_o_shape(view, numbers) -> str:
    if not view.config.output_projection:
        raise NoFact("this preset has no output projection W_O (Day 33): use the Part 4 preset")
    return _shape(view.config.d_model, view.config.d_model)


@fact(
    "heads.spreads",
    "each head's mean row spread ('head 0 0.97 and head 1 0.92'; with several layers, 'layer 1 head 0 0.97 and …')",
)
def _spreads(view, numbers) -> str:
    t = _trace(view, numbers)
    per_row = analysis.spread(t.weights, t.visible)  # (H, T); NaN where a row sees one key
    layer = f"layer {view.layer} " if view.config.n_layers > 1 else ""  # the layer the page shows, if there is a choice
    return names([f"{layer}head {h} {fmt(np.nanmean(per_row[h]), '.2f')}" for h in range(view.config.num_heads)])


# --------------------------------------------------------------------------- Block output
@fact("output.d_ff", "the feed-forward layer's hidden width")
def _d_ff(view, numbers) -> str:
    return str(view.config.d_ff)


@fact("output.relu_zeros", "the share of hidden values the ReLU zeroed")
def _zeros(view, numbers) -> str:
    return fmt(float((_trace(view, numbers).ffn_hidden == 0).mean()), ".0%")


def _moved_carried(view, numbers) -> tuple[float, float]:
    t = _trace(view, numbers)
    if not t.config.residual:
        raise NoFact("this preset has no residual path (Day 33): use the Part 4 preset")
    return float(np.abs(t.output - t.after_attn).mean()), float(np.abs(t.after_attn).mean())


@fact("output.moved", "how far the feed-forward layer moves the vectors (mean |entry|)")
def _moved(view, numbers) -> str:
    return fmt(_moved_carried(view, numbers)[0], ".3f")


@fact("output.carried", "what the residual path carries (mean |X + attn|)")
def _carried(view, numbers) -> str:
    return fmt(_moved_carried(view, numbers)[1], ".3f")


@fact("output.compare", "the first next to the second, in the app's one scale of words")
def _compare(view, numbers) -> str:
    moved, carried = _moved_carried(view, numbers)
    return next_to(moved / carried if carried > 0 else float("inf"))


# --------------------------------------------------------------------------- the exercise
@fact("exercise.T", "the tokens before one is appended")
def _ex_T(view, numbers) -> str:
    return str(len(view.words))


@fact("exercise.t_next", "the tokens after one is appended")
def _ex_T_next(view, numbers) -> str:
    return str(len(view.words) + 1)


@fact("exercise.nth", "the new token's place ('6th')")
def _ex_nth(view, numbers) -> str:
    return ordinal(len(view.words) + 1)


@fact("exercise.new_token", "the default new token (what the length slider appends), quoted")
def _ex_new(view, numbers) -> str:
    return plain(state.next_word(view.controls))
