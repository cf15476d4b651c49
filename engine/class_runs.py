"""A class experiment's runs read together (issue 52): every student trains run k of one task (k the weight seed
and the batch seed), and the hall's runs say whether the step at which the task's head forms is a law or an
accident.

A run formed its head at the first saved step where some head puts histories.LOCKED of its weight on the task's
keys (histories.lock: the Learn page's "locks on"). The hall's runs give the median loss curve, a histogram of the
formation steps, the final accuracies and, when one setting varies across the hall, each pair of groups compared:
the difference of their median formation steps with a bootstrap 95 % interval (percentile, resampling each
group's runs with replacement), called an effect only when the interval excludes zero. Curves sent to a screen
are thinned to at most POINTS points each, so 300 of them stay light. Pure NumPy; random draws from
RandomState(seed) only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .histories import lock

POINTS = 64  # at most this many points of a curve drawn among the hall's
DRAWS, LEVEL = 2000, 0.95  # bootstrap resamples, and the interval's coverage


@dataclass(frozen=True)
class Run:
    """One student's run: its number k (weight seed = batch seed), the value of the setting that varies across the
    hall ('' when none does), its loss at every step, every head's share on the task's keys at its saved steps
    (steps: (S,), shares: (S, L, H)) and its final accuracy on fresh sequences."""

    k: int
    group: str
    loss: np.ndarray  # (steps,)
    steps: np.ndarray  # (S,)
    shares: np.ndarray  # (S, L, H)
    accuracy: float

    @property
    def formed(self) -> int | None:
        """The step at which the task's head formed (histories.lock), or None."""
        found = lock(self.steps, self.shares)
        return None if found is None else found[2]


def thinned(values: np.ndarray, points: int = POINTS) -> tuple[np.ndarray, np.ndarray]:
    """A curve of len(values) steps (step 1 first) as at most `points` (step, value) pairs: evenly spaced steps,
    the first and the last always kept."""
    values = np.asarray(values, dtype=np.float64)
    if points < 2:
        raise ValueError(f"a thinned curve keeps at least 2 points, got {points}")
    n = len(values)
    at = np.unique(np.rint(np.linspace(0, n - 1, min(n, points))).astype(int))  # (≤ points,)
    return at + 1, values[at]


def median_step(steps: Sequence[int]) -> float | None:
    """The median of formation steps (None for none): the hall's, a group's, the one a student's page names."""
    return float(np.median(steps)) if len(steps) else None


def median_curve(runs: Sequence[Run]) -> np.ndarray:
    """The median loss at each step over the runs that reached it (runs may differ in length)."""
    if not runs:
        raise ValueError("a median curve needs at least one run")
    longest = max(len(r.loss) for r in runs)
    grid = np.full((len(runs), longest), np.nan)  # (runs, steps)
    for i, r in enumerate(runs):
        grid[i, : len(r.loss)] = r.loss
    return np.nanmedian(grid, axis=0)  # (steps,)


def bootstrap_difference(a: Sequence[float], b: Sequence[float], seed: int = 0) -> tuple[float, float, float]:
    """median(a) − median(b), and the bootstrap LEVEL interval of it (DRAWS resamples of each group)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) < 2 or len(b) < 2:
        raise ValueError("each group needs at least two runs to compare")
    rng = np.random.RandomState(seed)
    da = np.median(a[rng.randint(0, len(a), size=(DRAWS, len(a)))], axis=1)  # (DRAWS,)
    db = np.median(b[rng.randint(0, len(b), size=(DRAWS, len(b)))], axis=1)  # (DRAWS,)
    tail = 100 * (1 - LEVEL) / 2
    low, high = np.percentile(da - db, [tail, 100 - tail])
    return float(np.median(a) - np.median(b)), float(low), float(high)


@dataclass(frozen=True)
class Group:
    """The runs of one value of the varied setting ('' for the whole hall when nothing varies)."""

    group: str
    runs: int
    formed: tuple[int, ...]  # the formation steps of the runs that formed their head, sorted
    missed_accuracy: float | None  # the median final accuracy of the runs that did not (None: all formed)
    accuracy: float  # the median final accuracy of all of them

    @property
    def median_formed(self) -> float | None:
        return median_step(self.formed)


@dataclass(frozen=True)
class Comparison:
    """Two groups' median formation steps: a − b, its interval, and whether that interval excludes zero."""

    a: str
    b: str
    difference: float
    low: float
    high: float

    @property
    def effect(self) -> bool:
        return self.low > 0 or self.high < 0


def groups(runs: Sequence[Run]) -> list[Group]:
    """The hall's runs by the varied setting's value, in the order the values first appear."""
    order = list(dict.fromkeys(r.group for r in runs))
    out = []
    for g in order:
        mine = [r for r in runs if r.group == g]
        formed = sorted(f for r in mine if (f := r.formed) is not None)
        missed = [r.accuracy for r in mine if r.formed is None]
        missed_accuracy = float(np.median(missed)) if missed else None
        out.append(Group(g, len(mine), tuple(formed), missed_accuracy, float(np.median([r.accuracy for r in mine]))))
    return out


def compare(found: Sequence[Group], seed: int = 0) -> list[Comparison]:
    """Every pair of groups with at least two formed runs each, compared on their formation steps."""
    ready = [g for g in found if len(g.formed) >= 2]
    return [
        Comparison(a.group, b.group, *bootstrap_difference(a.formed, b.formed, seed))
        for i, a in enumerate(ready)
        for b in ready[i + 1 :]
    ]


def histograms(runs: Sequence[Run], found: Sequence[Group], bins: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """The formation steps' histogram split by group: counts (G, bins) on the whole hall's edges (histogram's), one
    row per group in `found`'s order; (G, 0) when no run formed its head."""
    counts, edges = histogram([f for r in runs if (f := r.formed) is not None], bins)
    if not counts.size:
        return np.zeros((len(found), 0), dtype=int), edges
    rows = [
        np.histogram([f for r in runs if r.group == g.group and (f := r.formed) is not None], edges)[0] for g in found
    ]
    return np.array(rows, dtype=int), edges  # (G, bins), (bins + 1,)


def histogram(steps: Sequence[int], bins: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """How many runs formed their head in each of `bins` equal stretches of steps (counts, edges)."""
    if not len(steps):
        return np.zeros(0, dtype=int), np.zeros(0)
    low, high = min(steps), max(steps)
    return np.histogram(steps, bins=bins, range=(low, high if high > low else low + 1))
