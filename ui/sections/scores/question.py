"""The scaled-scores page's poll question: what ÷√d_head does to a head's spread (registered with @asks). Pure."""

from __future__ import annotations

import math

import engine
from engine import analysis
from ui.poll.asking import Asked, Unanswerable, asks, who
from ui.prose import stages

CANDIDATES = ("same", "root", "full", "grows", "half", "double")


def scores_spread(t: engine.Trace, cfg: engine.Config, head: int) -> Asked:
    """What dividing by √d_head does to the spread (standard deviation) of one head's scores, measured
    by the page's own function (analysis.score_spread)."""
    d = cfg.d_head
    if not cfg.scale_scores:
        raise Unanswerable(
            f"{stages.scaling_off()}: this page says nothing about a spread after ÷√d_head: switch ÷√d_head on "
            "(sidebar, Switches) to ask this question."
        )
    raw, divided = analysis.score_spread(t, head)
    if not raw > 0:
        raise Unanswerable(f"{who(t, head)}: its visible scores are all equal, so they have no spread to shrink.")
    ratio = divided / raw  # measured on the numbers shown
    candidates = {
        "same": (1.0, "it stays the same"),
        "root": (1 / math.sqrt(d), f"it shrinks to 1/√{d} ≈ {1 / math.sqrt(d):.3f} of what it was"),
        "full": (1 / d, f"it shrinks to 1/{d} ≈ {1 / d:.3f} of what it was"),
        "grows": (math.sqrt(d), f"it grows √{d} ≈ {math.sqrt(d):.3f} times"),
        "half": (0.5, "it halves"),
        "double": (2.0, "it doubles"),
    }  # the last two for d_head = 1
    options, factors = [], []
    for value in CANDIDATES:
        factor, label = candidates[value]
        if all(abs(factor - f) > 1e-9 for f in factors) and len(options) < 4:  # d_head = 1: 1/√d = 1/d = 1
            options.append((value, label))
            factors.append(factor)
    answer = min(zip(options, factors), key=lambda of: abs(of[1] - ratio))[0][0]
    return Asked(
        "scores",
        f"{who(t, head)}, d_head = {d}: what happens to the spread (standard deviation) of the "
        f"{t.T} × {t.T} scores when every score is divided by √d_head?",
        options,
        [answer],
    )


@asks("scores", "the spread after ÷√d")
def _on_scores(view, numbers) -> Asked:
    return scores_spread(numbers.trace(numbers.model_of(view), view.words, view.layer), view.config, view.head)
