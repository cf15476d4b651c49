"""The block output page's lesson facts ({output.…} in a lesson's text), registered with @fact: each computed from
the numbers the page draws, by the page's own functions, and printed as the page prints it. Pure Python."""

from __future__ import annotations

import numpy as np

from ui.lessons.registry import NoFact, fact, trace_of
from ui.prose.numbers import fmt, next_to


@fact("output.d_ff", "the feed-forward layer's hidden width")
def _d_ff(view, numbers) -> str:
    return str(view.config.d_ff)


@fact("output.relu_zeros", "the share of hidden values the ReLU zeroed")
def _zeros(view, numbers) -> str:
    return fmt(float((trace_of(view, numbers).ffn_hidden == 0).mean()), ".0%")


def _moved_carried(view, numbers) -> tuple[float, float]:
    t = trace_of(view, numbers)
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
