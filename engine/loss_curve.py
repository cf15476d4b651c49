"""Reading a training run's loss curve: where it falls most (loss_drop_step, steepest_fall, the Learn page's
dashed line) and the stretch the fall spans (drop_window: the steps training saves densely, engine.training)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def loss_drop_step(losses, window: int | None = None) -> int:
    """The step of the sharpest sustained fall of the loss: the step s at which the mean loss of
    the `window` steps from s on is furthest below the mean of the `window` steps before s.

    Averaging over a window (default: 5 % of the run, at least 30 steps) means one lucky batch, or
    the first steps' fall from the random init's loss (induction: 3.8 to 2.8 in ~15 steps), does not
    count as sustained. After a plateau
    (as in induction) it finds the middle of the drop that ends it.
    """
    losses = np.asarray(losses, dtype=float)
    window = max(30, len(losses) // 20) if window is None else window
    if not isinstance(window, (int, np.integer)) or window < 1:
        raise ValueError(f"window must be a whole number of steps, at least 1, got {window!r}")
    if losses.ndim != 1 or len(losses) < 2 * window or not np.all(np.isfinite(losses)):
        raise ValueError(f"losses must be a finite 1-d series of at least {2 * window} values")
    means = np.convolve(
        losses, np.ones(window) / window, mode="valid"
    )  # (S - window + 1,): means[s] = mean of s .. s+window-1
    fall = means[:-window] - means[window:]  # fall[s]: mean before s + window minus mean from it
    return int(np.argmax(fall)) + window


def fall_window(n: int) -> int:
    """The window loss_drop_step averages a run of n steps over on the Learn page: 5 % of the run, at least 30
    steps; a run shorter than 60 steps (2 × 30), a quarter of it."""
    return max(1, n // 4) if n < 60 else max(30, n // 20)


@dataclass(frozen=True)
class Fall:
    """The loss's steepest fall as a window sees it: of all pairs of neighbouring `window`-step stretches, the
    pair whose mean losses differ most: steps first .. step against step + 1 .. last (steps count from 1, as
    the curve's x axis). A statement about the run that holds whatever the window: the run's steepest
    fall lies between first and last for windows of half and twice this one too (tests/test_learn.py)."""

    window: int  # steps averaged in each stretch
    step: int  # the last step of the earlier stretch (loss_drop_step; the dashed line)
    before: float  # the mean loss over steps first .. step
    after: float  # the mean loss over steps step + 1 .. last

    @property
    def first(self) -> int:
        return self.step - self.window + 1

    @property
    def last(self) -> int:
        return self.step + self.window

    @property
    def at_start(self) -> bool:
        """The earlier stretch is the run's first: the loss falls fastest from its very start."""
        return self.first == 1


def steepest_fall(losses, window: int | None = None) -> Fall:
    """loss_drop_step with its window (fall_window of the run's length unless told) and the two stretches'
    mean losses."""
    losses = np.asarray(losses, dtype=float)
    window = fall_window(len(losses)) if window is None else window
    step = loss_drop_step(losses, window)
    return Fall(
        window=int(window),
        step=int(step),
        before=float(losses[step - window : step].mean()),
        after=float(losses[step : step + window].mean()),
    )


def drop_window(losses, share: float = 0.05) -> tuple[int, int]:
    """(first, last) step of the loss's sharpest sustained fall (loss_drop_step): from the last window,
    before it, whose mean is still within `share` of the whole fall of the level two windows before the
    drop, to the first window after it whose mean is within `share` of the last window's."""
    losses = np.asarray(losses, dtype=float)
    window = max(10, len(losses) // 20)
    if len(losses) < 2 * window:
        return 0, len(losses)
    drop = loss_drop_step(losses, window)
    means = np.convolve(losses, np.ones(window) / window, mode="valid")  # means[s]: steps s .. s+window-1
    before, after = means[max(0, drop - 2 * window)], means[-1]
    fall = before - after
    first, last = drop - window, min(drop, len(means) - 1)
    while first > 0 and means[first] < before - share * fall:
        first -= 1  # back to where it still sat at its level
    while last < len(means) - 1 and means[last] > after + share * fall:
        last += 1
    return int(first), int(min(last + window, len(losses)))
