"""The Q/K/V page's lesson facts ({qkv.…} in a lesson's text), registered with @fact: each computed from
the numbers the page draws, by the page's own functions, and printed as the page prints it. Pure Python."""

from __future__ import annotations

from ui.lessons.registry import fact, shape
from ui.prose.numbers import count


@fact("qkv.w_shape", "the shape of W_Q (and of W_K, W_V)")
def _wshape(view, numbers) -> str:
    return shape(view.config.d_model, view.config.d_model)


@fact("qkv.q_shape", "the shape of Q (and of K, V)")
def _qshape(view, numbers) -> str:
    return shape(len(view.words), view.config.d_model)


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
