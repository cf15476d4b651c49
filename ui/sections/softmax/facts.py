"""The softmax page's lesson facts ({softmax.…} in a lesson's text), registered with @fact: each computed from
the numbers the page draws, by the page's own functions, and printed as the page prints it. Pure Python."""

from __future__ import annotations

from engine import analysis
from ui.lessons.registry import fact, trace_of
from ui.prose.numbers import fmt, names
from ui.prose.numbers import spread as spread_cell
from ui.prose.text import plain


def _row(view, numbers):
    """The row the softmax page's poll question reads: the picked cell's, else the last; at the page's β."""
    t = trace_of(view, numbers)
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
