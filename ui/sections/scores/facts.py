"""The scaled-scores page's lesson facts ({scores.…} in a lesson's text), registered with @fact: each computed from
the numbers the page draws, by the page's own functions, and printed as the page prints it. Pure Python."""

from __future__ import annotations

from engine import analysis
from ui.lessons.registry import NoFact, fact, trace_of
from ui.prose import stages
from ui.prose.numbers import pairs, three
from ui.prose.text import plain


@fact("scores.T", "the tokens: the score table is T × T")
def _scores_T(view, numbers) -> str:
    return str(len(view.words))


@fact("scores.divisor", "√d_head, as the page's formula prints it")
def _divisor(view, numbers) -> str:
    if not view.config.scale_scores:
        raise NoFact(f"{stages.scaling_off(' here').lower()} (set scale = 1 or leave it out)")
    return stages.divisor(view.config)


@fact("scores.std_raw", "the spread (std) of the head's visible raw scores")
def _std_raw(view, numbers) -> str:
    return three(analysis.score_spread(trace_of(view, numbers), view.head)[0])


@fact("scores.std_scaled", "the spread (std) after ÷√d_head")
def _std_scaled(view, numbers) -> str:
    _divisor(view, numbers)
    return three(analysis.score_spread(trace_of(view, numbers), view.head)[1])


@fact("scores.top_pair", "the query → key pair with the head's largest scaled score (ties named)")
def _top_pair(view, numbers) -> str:
    t = trace_of(view, numbers)
    found, _ = analysis.largest_all(t.scaled[view.head])
    return pairs(found, t.labels, plain)
