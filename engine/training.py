"""Training with Adam on a task's batches, and a frozen record of the run to replay."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .config import Config
from .loss_curve import drop_window
from .memory import keep_freed_buffers
from .model import backprop
from .params import Params, flatten, frozen_copy, init_params, unflatten
from .tasks import Task, get_task

VERSION = 4  # of training's numbers: bump it when a change alters them (stored runs are then
# trained again; rerun python -m factory.ship for the shipped ones)
DTYPE = np.float32  # training's arithmetic: half the bytes of float64 and twice the numbers per vector
# instruction, so a step takes about half as long; the run's weights are handed
# back as float64, and the pages (and the gradient checks) compute in float64
PROGRESS_CALLS = 50  # on_progress is called about this many times per run (and at the end)
DRAW_AHEAD = 64  # batches drawn in one call (one vectorised draw instead of 64 small ones)
CHECKPOINTS = 40  # about this many snapshots of the weights, denser early
DENSE_SAVES = 120  # at most this many more while training (every step/120, at least every 10 steps
DENSE_EVERY = 10  # up to 1,200 steps), of which only those across the loss's drop are kept, ...
DENSE_BYTES = 32e6  # ... and at most this many bytes of them: a text model's 2,500 steps would otherwise
# hold 250 saves of 0.9 MB (a worker per student, each 230 MB) for a loss with no drop
SUDDEN = 0.6  # ... when the drop takes at most this share of the run (language's loss falls all along)
WARMUP = 0.05  # the learning rate rises to lr over this share of a run (learning_rate), ...
DECAY_FROM = 0.5  # ... stays at lr until this share, then falls ...
LR_FLOOR = 0.1  # ... to LR_FLOOR * lr at the last step


def adam_step(
    theta: np.ndarray,
    grad: np.ndarray,
    m: np.ndarray,
    v: np.ndarray,
    t: int,
    lr: float,
    beta1: float = 0.9,
    beta2: float = 0.999,
    eps: float = 1e-8,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One bias-corrected Adam update of the parameter vector theta; t counts steps from 1.
    Returns new (theta, m, v); the inputs are not changed."""
    m = beta1 * m + (1 - beta1) * grad  # running mean of the gradient
    v = beta2 * v + (1 - beta2) * grad * grad  # running mean of its square
    m_hat = m / (1 - beta1**t)  # undo the pull toward the zeros m started at
    v_hat = v / (1 - beta2**t)
    theta = theta - lr * m_hat / (np.sqrt(v_hat) + eps)  # each number moves about lr, whatever its scale
    return theta, m, v


def learning_rate(lr: float, step: int, steps: int) -> float:
    """The rate of update step+1 (step counts from 0): rising in a straight line to lr over the first
    WARMUP of the run, lr until DECAY_FROM of it, then falling along half a cosine to LR_FLOOR * lr at
    the last update. Full steps at the random start overshoot (the loss first jumps up); full steps
    then find the pattern quickly; smaller ones at the end settle the weights on it."""
    warm, start = max(1, int(WARMUP * steps)), int(DECAY_FROM * steps)
    if step < warm:
        return lr * (step + 1) / warm
    if step < start:
        return lr
    done = (step - start) / max(steps - 1 - start, 1)  # 0 where the fall starts, 1 at the last update
    return lr * (LR_FLOOR + (1 - LR_FLOOR) * 0.5 * (1 + float(np.cos(np.pi * done))))


def checkpoint_steps(steps: int, count: int = CHECKPOINTS) -> np.ndarray:
    """Steps to keep the weights at: 0 (the init), `steps` (the end), half evenly spaced, half
    spaced geometrically (dense early, where attention patterns change fastest)."""
    even = np.linspace(0, steps, count // 2)
    early = np.geomspace(1, max(steps, 1), count - count // 2)
    return np.unique(np.round(np.concatenate([[0, steps], even, early])).astype(int))


def dense_every(steps: int, numbers: int = 0) -> int:
    """Steps between the snapshots kept while training, to be thinned after the run: 1 to DENSE_EVERY,
    or wider where the saves of a model of `numbers` weights (in DTYPE) would pass DENSE_BYTES."""
    by_count = min(DENSE_EVERY, max(1, -(-steps // DENSE_SAVES)))
    by_bytes = -(-steps * numbers * np.dtype(DTYPE).itemsize // int(DENSE_BYTES))
    return int(max(by_count, by_bytes))


def sudden_drop(losses, steps: int) -> tuple[int, int] | None:
    """drop_window's (first, last) step if the drop takes at most SUDDEN of the run, else None (a language
    model's loss falls all along: no one stretch to save densely)."""
    first, last = drop_window(losses)
    return None if last - first > SUDDEN * steps else (first, last)


def thin(checkpoints: list, losses, steps: int) -> list:
    """Keep the usual schedule (checkpoint_steps) plus every saved step inside drop_window, if the
    drop is sudden (at most SUDDEN of the run, sudden_drop): a text model's loss falls all along, so only
    its schedule is kept (in float64, its 35 dense saves at 2,500 steps would be 64 MB more)."""
    first, last = sudden_drop(losses, steps) or (0, -1)  # no drop: the schedule alone
    keep = set(checkpoint_steps(steps).tolist())
    return [(step, params) for step, params in checkpoints if step in keep or first <= step <= last]


def _frozen_array(values) -> np.ndarray:
    array = np.array(values, dtype=float)
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class TrainRun:
    """What one training run did, frozen. Step s's weights have had s Adam updates."""

    task: str  # name in TASKS
    config: Config
    seed: int  # seeds the batches (the config's seed drew the initial weights)
    steps: int
    batch: int
    lr: float  # the peak learning rate (learning_rate gives each step's)
    params: Params  # the weights after the last step
    losses: np.ndarray  # (steps,) the batch loss at each step, before its update
    accuracies: np.ndarray  # (steps,) share of the batch's scored positions predicted right
    checkpoints: tuple[tuple[int, Params], ...]  # (step, weights) from 0 (the init) to steps
    seconds: float  # wall time of the loop, not counting on_progress calls


def train(
    task: str | Task,
    cfg: Config | None = None,
    steps: int | None = None,
    seed: int = 0,
    on_progress: Callable | None = None,
    batch: int | None = None,
    lr: float | None = None,
    stop: int | None = None,
) -> TrainRun:
    """Train a model on task with Adam (its rate set by learning_rate); None takes the task's default config,
    steps, batch and lr.

    on_progress(step, steps, losses_so_far, accuracies_so_far, latest_params) is called every few
    steps with copies, so it cannot change the run. stop: end after this many of the `steps` (the
    learning-rate schedule still spans `steps`): the first stretch of a long run, with the weights at
    `stop` as its last checkpoint (factory.ship --check compares it with a checkpoint the shipped run keeps).
    """
    task = get_task(task)
    cfg = task.config if cfg is None else cfg
    steps, batch, lr = (
        task.steps if steps is None else steps,
        task.batch if batch is None else batch,
        task.lr if lr is None else lr,
    )
    if not isinstance(cfg, Config):
        raise ValueError(f"cfg must be an engine.Config, got {type(cfg).__name__}")
    if not cfg.unembedding or cfg.vocab != task.vocab:
        raise ValueError(f"the config must have unembedding=True and the task's vocabulary {task.vocab}")
    for name, value in (("steps", steps), ("batch", batch), ("seed", seed)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not 0 <= value < 2**32:
            raise ValueError(f"{name} must be a whole number from 0, got {value!r}")
    if steps < 1 or batch < 1:
        raise ValueError(f"steps and batch must be at least 1, got {steps} and {batch}")
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not 0 < lr <= 1:
        raise ValueError(f"lr must be a number in (0, 1], got {lr!r}")
    if on_progress is not None and not callable(on_progress):
        raise ValueError("on_progress must be a function or None")
    stop = steps if stop is None else stop
    if isinstance(stop, bool) or not isinstance(stop, (int, np.integer)) or not 1 <= stop <= steps:
        raise ValueError(f"stop must be a whole number from 1 to steps={steps}, got {stop!r}")

    keep_freed_buffers()  # a step's buffers reused, not faulted in again
    rng = np.random.RandomState(seed)  # the batches' own stream
    initial = init_params(cfg)  # drawn in float64, as the articles do
    theta = flatten(initial).astype(DTYPE)  # (N,) every number of the model
    params = unflatten(initial, theta)  # views: they follow theta's updates
    m, v = np.zeros_like(theta), np.zeros_like(theta)  # Adam's running means start at 0
    losses, accuracies = np.zeros(steps), np.zeros(steps)
    keep, dense = set(checkpoint_steps(steps).tolist()), dense_every(steps, theta.size)
    checkpoints = [(0, frozen_copy(initial))]  # the init as drawn (training rounds it to DTYPE)
    every = max(1, steps // PROGRESS_CALLS)
    start, waited = time.perf_counter(), 0.0
    for step in range(stop):
        if step % DRAW_AHEAD == 0:
            ahead = min(DRAW_AHEAD, steps - step)
            drawn_tokens, drawn_targets = task.sample(rng, ahead * batch)  # (ahead * B, T) each
        at = (step % DRAW_AHEAD) * batch
        tokens, targets = drawn_tokens[at : at + batch], drawn_targets[at : at + batch]  # (B, T) each
        loss, grads, logits = backprop(cfg, params, tokens, targets)
        scored = targets >= 0
        losses[step] = loss
        accuracies[step] = np.mean(logits.argmax(axis=-1)[scored] == targets[scored])
        new_theta, m, v = adam_step(theta, flatten(grads), m, v, step + 1, learning_rate(lr, step, steps))
        theta[:] = new_theta  # in place, so params' views see it
        if step + 1 in keep or (step + 1) % dense == 0:  # dense now; thinned after the run
            checkpoints.append((step + 1, frozen_copy(params)))  # in DTYPE: half of float64's memory
        if on_progress is not None and ((step + 1) % every == 0 or step + 1 == steps):
            called = time.perf_counter()
            on_progress(
                step + 1,
                steps,
                _frozen_array(losses[: step + 1]),
                _frozen_array(accuracies[: step + 1]),
                frozen_copy(params, np.float64),
            )
            waited += time.perf_counter() - called  # the UI's drawing is not training time
    seconds = time.perf_counter() - start - waited
    if stop < steps:  # a first stretch: the init and where it ended
        last = frozen_copy(params, np.float64)
        return TrainRun(
            task=task.name,
            config=cfg,
            seed=int(seed),
            steps=int(stop),
            batch=int(batch),
            lr=float(lr),
            params=last,
            losses=_frozen_array(losses[:stop]),
            accuracies=_frozen_array(accuracies[:stop]),
            checkpoints=(checkpoints[0], (int(stop), last)),
            seconds=seconds,
        )
    checkpoints = [(step, frozen_copy(kept, np.float64)) for step, kept in thin(checkpoints, losses, steps)]
    return TrainRun(
        task=task.name,
        config=cfg,
        seed=int(seed),
        steps=int(steps),
        batch=int(batch),
        lr=float(lr),
        params=checkpoints[-1][1],
        losses=_frozen_array(losses),
        accuracies=_frozen_array(accuracies),
        checkpoints=tuple(checkpoints),
        seconds=seconds,
    )
