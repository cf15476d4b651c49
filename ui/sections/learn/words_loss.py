"""The loss curve in words, as measured: its plateau (if any) and its steepest fall as a window sees it (the
Learn page's notice and the lesson facts learn.drop and learn.plateau)."""

from __future__ import annotations

import numpy as np

from engine.loss_curve import Fall, drop_window
from ui.prose.numbers import fmt

PLATEAU_TOL = 0.05  # a plateau: the windowed loss stays within this share of the whole fall of its level


def loss(x: float) -> str:
    """A loss with two decimals, or in scientific notation where two decimals would print 0.00."""
    return fmt(x, ".2f" if abs(x) >= 0.005 else ".1e")


def fall(found: Fall) -> str:
    """The loss's steepest fall as its window sees it (engine.loss_curve.steepest_fall), a statement that holds for
    windows of half and twice the size too: the two neighbouring stretches whose mean losses differ most."""
    said = (
        f"averaged over {found.window} steps, the loss falls most from steps {found.first}–{found.step} "
        f"({loss(found.before)}) to steps {found.step + 1}–{found.last} ({loss(found.after)}), across the "
        "dashed line"
    )
    return said + (", at the very start of the run" if found.at_start else "")


def plateau(losses, found: Fall) -> str:
    """The loss curve as measured: the stretch before the drop where its windowed mean stays level (if
    any), between which values; where it falls most (fall) and to what."""
    losses = np.asarray(losses, dtype=float)
    drop = found.step
    window = max(10, len(losses) // 20)
    means = np.convolve(losses, np.ones(window) / window, mode="valid")  # means[s]: losses[s : s + window]
    final = float(losses[-window:].mean())
    said = ""
    if len(losses) >= 2 * window:
        end, _ = drop_window(losses, PLATEAU_TOL)  # the last window before the fall
        tol = PLATEAU_TOL * max(float(means[max(0, drop - 2 * window)]) - final, 0.0)
        start = end
        while start > 0 and abs(means[start - 1] - means[end]) <= tol:
            start -= 1
        if end - start >= window:  # level for more than one window
            stretch, batches = means[start : end + 1], losses[start : end + window]
            said += (
                f"from step {start + 1} to step {end + window} the loss, averaged over {window} steps, stays "
                f"between {fmt(stretch.min(), '.2f')} and {fmt(stretch.max(), '.2f')} (single batches from "
                f"{fmt(batches.min(), '.2f')} to {fmt(batches.max(), '.2f')}): a plateau. "
            )
        elif end >= window:  # no level stretch: say where it stood
            said += (
                f"the loss averages {fmt(losses[:window].mean(), '.2f')} over the first {window} steps and "
                f"{fmt(means[end], '.2f')} over steps {end + 1}–{end + window}, just before its steepest fall "
                f"(single batches in between from {fmt(losses[window : end + window].min(), '.2f')} to "
                f"{fmt(losses[window : end + window].max(), '.2f')}); no stretch of {window} steps or more stays "
                "level. "
            )
    fell = fall(found)
    if said:
        fell = fell[0].upper() + fell[1:].replace("the loss falls", "the loss then falls", 1)
    return said + f"{fell}; by the end it is down to {loss(final)} over the last {window} steps. "
