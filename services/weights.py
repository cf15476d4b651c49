"""The trained weights at a setting: one model per (config, task, steps, batch seed, learning rate,
training code), the same on every page of every session, after a restart and on every replica.

Where a model comes from, in this order, the first that has it:
1. this process's memory (a model found once is kept, so every page and session gets the same object);
2. the shipped runs (assets/weights/, python -m factory.ship): the trained presets' default runs, made in
   a pinned arithmetic, so the defaults are one model on every machine, whatever its CPU;
3. the disk store ($ATTENTION_LAB_CACHE): a run trained earlier, by this server or by another replica
   sharing the folder;
4. a training on the queue's workers (services.learnruns), then kept in the store, where the first run
   stored wins: a replica that trained the same setting at the same time shows that one, not its own.

A Model carries a digest of its final weights. Every number derived from a model (an accuracy, a
knock-out, a role score, a replay step) is computed from one Model and cached under its digest, so
two weight sets can never meet in one sentence, one delta or one cache entry. Pure Python and NumPy.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import engine
from factory import store
from services import learnruns

MEMORY = 32  # models kept in this process's memory (the least recently used go first)
ORIGINS = {  # where a model's weights came from, as a page says it
    "shipped": "the run shipped with the app (python -m factory.ship trains it; the same weights on every machine)",
    "stored": "a run trained earlier on this server with these settings, kept on disk",
    "trained here": "trained on this server with these settings",
}


@dataclass(frozen=True)
class Training:
    """Which trained weights: the task, the number of Adam steps, the batches' seed and the learning
    rate (None: the task's own). With the config it names one run."""

    task: str
    steps: int
    seed: int = 0
    lr: float | None = None

    def key(self, cfg: engine.Config) -> dict:
        """The run's key: everything that decides its numbers (factory.store.run_key)."""
        return store.run_key(self.task, cfg, self.steps, self.seed, None, self.lr)

    def defaults(self) -> bool:
        """The task's default run (its own steps, batch seed 0 and learning rate): what ships."""
        task = engine.TASKS[self.task]
        return (self.steps, self.seed, self.lr in (None, task.lr)) == (task.steps, 0, True)


digest = engine.params.digest  # a set of weights' short name (every derived number is keyed by it)


@dataclass(frozen=True, eq=False)
class Model:
    """One trained model: its whole run (every checkpoint, the curves), where it came from, and the
    digest of its final weights (the identity every derived number is keyed by)."""

    run: engine.TrainRun
    origin: str  # a key of ORIGINS
    digest: str

    @property
    def params(self) -> engine.Params:
        return self.run.params

    @property
    def config(self) -> engine.Config:
        return self.run.config

    @property
    def task(self) -> engine.Task:
        return engine.TASKS[self.run.task]

    @property
    def steps(self) -> tuple[int, ...]:
        """The saved steps, 0 (the init) to the last."""
        return tuple(step for step, _ in self.run.checkpoints)

    @functools.cached_property
    def drop(self) -> tuple[int, int] | None:
        """The loss's sudden drop (first, last step; engine.training.sudden_drop, the stretch thinning saved
        densely) or None, worked out once: the replay slider's help reads it at every step."""
        return engine.training.sudden_drop(self.run.losses, self.run.steps)

    def at(self, step: int | None) -> engine.Params:
        """The weights after `step` Adam updates (a saved step), or the final ones (None)."""
        return self.params if step is None else dict(self.run.checkpoints)[step]

    def said(self) -> str:
        """Which weights these are, in a few words (with the digest a student can compare)."""
        return f"{ORIGINS[self.origin]}; weights {self.digest[:8]}"


def _model(run: engine.TrainRun, origin: str) -> Model:
    return Model(run=run, origin=origin, digest=digest(run.params))


_guard = threading.Lock()  # guards the two dicts below
_memory: OrderedDict[str, Model] = OrderedDict()
_locks: dict[str, threading.Lock] = {}  # one per run: held while it is found or trained


def _name(key: dict) -> str:
    return json.dumps(key, sort_keys=True)


def _remembered(name: str) -> Model | None:
    with _guard:
        model = _memory.get(name)
        if model is not None:
            _memory.move_to_end(name)
        return model


def _remember(name: str, model: Model) -> Model:
    with _guard:
        _memory[name] = model
        _memory.move_to_end(name)
        while len(_memory) > MEMORY:
            _memory.popitem(last=False)
    return model


def _lock(name: str) -> threading.Lock:
    with _guard:
        return _locks.setdefault(name, threading.Lock())


def _load(cfg: engine.Config, training: Training, key: dict) -> Model | None:
    """The shipped run with these settings, else a stored one, else None (never trains)."""
    shipped = store.load_shipped(training.task, cfg, training.steps, training.seed, None, training.lr)
    if shipped is not None:
        return _model(shipped, "shipped")
    folder = store.cache_folder()
    stored = None if folder is None else store.read(folder / store.file_name(key), cfg, key)
    return None if stored is None else _model(stored, "stored")


def find(cfg: engine.Config, training: Training) -> Model | None:
    """The model with these settings if it can be had without training (memory, shipped, stored), else
    None; also None while another session is training it."""
    key = training.key(cfg)
    name = _name(key)
    model = _remembered(name)
    if model is not None:
        return model
    lock = _lock(name)
    if not lock.acquire(blocking=False):  # somebody is training or reading it
        return None
    try:
        model = _remembered(name) or _load(cfg, training, key)
        return None if model is None else _remember(name, model)
    finally:
        lock.release()


def get(cfg: engine.Config, training: Training, on_progress: Callable | None = None) -> Model:
    """The model with these settings: found, or trained now as a job on the queue (on_progress is called
    as engine.train calls it) and kept. A second caller waits for the first one's run; a run that another
    process stored first replaces this one's."""
    key = training.key(cfg)
    name = _name(key)
    with _lock(name):
        model = _remembered(name) or _load(cfg, training, key)
        if model is None:
            run = learnruns.train(
                training.task, cfg, training.steps, seed=training.seed, lr=training.lr, on_progress=on_progress
            )
            kept = store.keep_first(run, store.cache_folder())
            model = _model(kept, "trained here" if kept is run else "stored")
        return _remember(name, model)


def forget() -> None:
    """Empty this process's memory (a restart, as the tests make one)."""
    with _guard:
        _memory.clear()


_clock, _sleep = time.perf_counter, time.sleep  # replay's pace (a test gives its own)


def replay(model: Model, on_progress: Callable, seconds: float | None = None) -> None:
    """Call on_progress(step, steps, losses so far, accuracies so far, weights) at every saved step of
    the run, as training calls it, spread over `seconds` (default: the run's own training time): a run
    that exists already, replayed at training speed. If on_progress raises (the page was left), the
    exception goes on."""
    run = model.run
    seconds = run.seconds if seconds is None else seconds
    start = _clock()
    for step, params in run.checkpoints[1:]:
        wait = start + seconds * step / run.steps - _clock()
        if wait > 0:
            _sleep(wait)
        on_progress(step, run.steps, run.losses[:step], run.accuracies[:step], params)
