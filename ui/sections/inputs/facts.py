"""The Inputs page's lesson facts ({inputs.…} in a lesson's text), registered with @fact: each computed from
the numbers the page draws, by the page's own functions, and printed as the page prints it. Pure Python."""

from __future__ import annotations

from ui.lessons.registry import fact, shape, trace_of
from ui.prose.numbers import names
from ui.prose.text import plain


@fact("inputs.T", "how many tokens the sentence has")
def _tokens_count(view, numbers) -> str:
    return str(len(view.words))


@fact("inputs.tokens", "the tokens, quoted, in order")
def _tokens(view, numbers) -> str:
    return names([plain(w) for w in trace_of(view, numbers).labels])


@fact("inputs.d_model", "d_model, the numbers in each token's row")
def _d_model(view, numbers) -> str:
    return str(view.config.d_model)


@fact("inputs.shape", "X's shape, T × d_model")
def _xshape(view, numbers) -> str:
    return shape(*trace_of(view, numbers).x.shape)
