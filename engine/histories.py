"""A training run's heads followed step by step: every head's weight on its task's keys and on the previous token
at every saved step, on one fixed sample of sequences (the Learn page's replay), kept as arrays beside the weights."""

from __future__ import annotations

import numpy as np

from .evidence import previous_share
from .measure import expected_share
from .sample import Sample, followed
from .tasks import Task, get_task

HISTORY_N, HISTORY_SEED = 50, 2  # the sequences a run's heads are followed on, step by step (history_sample)
LOCKED = 0.9  # a head has locked on (its task's head formed) once this share of its weight lands on the task's keys


def history_sample(task: str | Task, n: int = HISTORY_N, seed: int = HISTORY_SEED) -> Sample:
    """The sequences a run's heads are followed on at every saved step (engine.sample.followed): a letter task's
    fresh draws, the English text's held-out windows (half of them repeating a span, as in training)."""
    return followed(task, n, seed)


def history_arrays(run, n: int = HISTORY_N, seed: int = HISTORY_SEED) -> dict[str, np.ndarray]:
    """Every head's mean weight at every saved step of a run (engine.TrainRun), on the same sequences of its task
    (history_sample(task, n, seed)): on the task's expected keys (measure.expected_share, over the scored queries)
    and on the previous token (previous_share, head_scores' score): the Learn page's replay, as arrays to keep
    beside the weights, with their sample."""
    task = get_task(run.task)
    sample = history_sample(task, n, seed)
    tokens, targets = sample.draw()
    steps = np.array([step for step, _ in run.checkpoints])
    shares = np.stack([expected_share(task, run.config, params, tokens, targets) for _, params in run.checkpoints])
    previous = np.stack([previous_share(run.config, params, tokens) for _, params in run.checkpoints])  # (K, L, H)
    return {
        "history n": np.array(n),
        "history seed": np.array(seed),
        "history held out": np.array(sample.held_out),
        "history repeats": np.array(sample.repeats),
        "history steps": steps,
        "history task share": shares,
        "history previous share": previous,
    }


def history_of(arrays: dict, sample: Sample) -> bool:
    """Whether kept history arrays were measured on this sample (a file from before the sample was kept holds a
    task's own draws, Task.sample: no "history held out")."""
    if "history steps" not in arrays or (int(arrays["history n"]), int(arrays["history seed"])) != (
        sample.n,
        sample.seed,
    ):
        return False
    held_out = bool(arrays["history held out"]) if "history held out" in arrays else False
    repeats = float(arrays["history repeats"]) if "history repeats" in arrays else 0.0
    return (held_out, repeats) == (sample.held_out, sample.repeats)


def lock(steps: np.ndarray, shares: np.ndarray) -> tuple[int, int, int] | None:
    """(layer, head, step): the first saved step where some head's share (shares: (S, L, H), each head's weight on
    the task's keys at each of `steps`) reaches LOCKED, or None: where the Learn page says a head locked on, and a
    class experiment's run formed its head."""
    for k, step in enumerate(steps):
        if shares[k].max() >= LOCKED:
            layer, head = np.unravel_index(int(np.argmax(shares[k])), shares[k].shape)
            return int(layer), int(head), int(step)
    return None
