"""The sidebar's presets: the two articles' blocks, and one block trained on each task.

A trained preset is a task's model (engine.TASKS) with the sidebar's sizes, trained with the task's
defaults; every page then shows it on a sequence from that task. Pure Python (no Streamlit).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

import engine

TRAINED_PREFIX = "trained-"
TRAINED_TASKS = tuple(engine.TASKS)   # one trained preset per task of engine/tasks.py, in its order
SAMPLE_SEED = 0             # the sequence a trained preset starts on: RandomState(0), the same for everyone
BATCH_SEED = 0              # the training batches' stream (the sidebar's seed draws the initial weights)


@dataclass(frozen=True)
class Training:
    """Which trained weights a view shows: the task, the number of Adam steps, the batches' seed and
    the learning rate (the rest is the config, which is part of every cache key beside this)."""

    task: str
    steps: int
    seed: int = BATCH_SEED
    lr: float | None = None         # None: the task's own (the Learn page and the presets give it)


def names() -> list[str]:
    """Every preset, in the sidebar's order."""
    return [*engine.PRESETS, *(TRAINED_PREFIX + t for t in TRAINED_TASKS)]


def task_of(name: str) -> engine.Task | None:
    """The task a trained preset learns, or None for an article's preset."""
    return engine.TASKS[name[len(TRAINED_PREFIX):]] if name.startswith(TRAINED_PREFIX) else None


def check(name: str) -> str:
    if name not in names():
        raise ValueError(f"unknown preset {name!r}; choose one of: {', '.join(names())}")
    return name


def title(name: str) -> str:
    task = task_of(check(name))
    return engine.get_preset(name).title if task is None else f"Trained: {task.title}"


def summary(name: str) -> str:
    task = task_of(check(name))
    if task is None:
        return engine.get_preset(name).summary
    c = task.config
    return (f"trained in NumPy on '{task.title}' ({task.steps} Adam steps, vocabulary "
            f"{c.vocab[0]}–{c.vocab[-1]}, {task.seq_len} tokens); "
            + (f"{c.n_layers} blocks, " if c.n_layers > 1 else "")
            + ("causal mask, " if c.causal else "") + ("sinusoidal positions, " if c.positional != "none" else "")
            + ("pre-layer-norm, " if c.layer_norm else "") + "residuals, W_O")


def base_config(name: str) -> engine.Config:
    """The architecture the sidebar's sizes are applied to."""
    task = task_of(check(name))
    return engine.get_preset(name).config if task is None else task.config


def sample_words(task: engine.Task, T: int) -> tuple[str, ...]:
    """A sequence of T tokens from the task, the same for everyone (RandomState(SAMPLE_SEED))."""
    tokens, _ = task.sample(np.random.RandomState(SAMPLE_SEED), 1, max(T, task.min_len))
    return tuple(task.vocab[i] for i in tokens[0][:T])


def default_words(name: str) -> tuple[str, ...]:
    """The preset's own sentence: the article's example, or a sequence from the task."""
    task = task_of(check(name))
    if task is None:
        preset = engine.get_preset(name)
        return tuple(engine.label(preset.config, t) for t in preset.tokens)
    return sample_words(task, task.seq_len)


def training(name: str) -> Training | None:
    task = task_of(check(name))
    return None if task is None else Training(task=task.name, steps=task.steps, lr=task.lr)


def fit_words(name: str, typed: list[str], T: int) -> tuple[list[str], list[str]]:
    """A trained preset's T tokens from the typed words: words outside the task's vocabulary are
    left out (returned second), and a short sentence is padded with the task's own sequence."""
    task = task_of(check(name))
    known = [w for w in typed if w in task.vocab]
    unknown = [w for w in typed if w not in task.vocab]
    pad = sample_words(task, max(T, task.min_len))
    return (known + list(pad[len(known):]))[:T] if len(known) < T else known[:T], unknown


def with_sizes(name: str, **sizes) -> engine.Config:
    """base_config with the sidebar's sizes and switches (Config's field names)."""
    return replace(base_config(name), **sizes)
