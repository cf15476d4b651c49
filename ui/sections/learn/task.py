"""The Learn page's choices: the task, the run the sidebar asks for, the sequence shown (the task's own, or
one the student typed); and the page's widget keys."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import engine
from services.weights import Training
from ui.prose import passage
from ui.prose.numbers import vocabulary
from ui.prose.text import md_escape
from ui.sections.learn import words as learn_words
from ui.shell import presets, session, state
from ui.shell.session import FIELD
from ui.shell.view import View

TRAIN = "learn_train"  # the Train button (the task and the replay step are controls)


def _task_changed() -> None:
    """A new task starts from its own steps, learning rate and sample (the batch seed stays)."""
    defaults = state.learn_defaults(session.raw(FIELD.task))
    for key in ("steps", "lr", "sequence", "replay_step"):
        session.set_raw(key, defaults[key])


def config(view: View) -> engine.Config:
    """The model the Learn page trains: its task's own (the sidebar's sizes do not apply here)."""
    return engine.TASKS[view.controls.task].config


def choose(view: View) -> engine.Task:
    """The task to learn (in the URL as task=…), and what it asks."""
    st.segmented_control(
        "Task",
        list(engine.TASKS),
        required=True,
        format_func=lambda t: engine.TASKS[t].title,
        key=FIELD.task,
        on_change=_task_changed,
    )
    task = engine.TASKS[view.controls.task]
    st.markdown(learn_words.task(task.name))
    if not view.present:
        st.caption(learn_words.formula_words(task.config))
    return task


def training(view: View) -> Training:
    """The run the sidebar's training controls ask for."""
    c = view.controls
    return Training(task=c.task, steps=c.steps, seed=c.train_seed, lr=c.lr)


@dataclass(frozen=True)
class Sequence:
    """The sequence the page shows: the task's own sample or one the student typed."""

    ids: tuple[int, ...]
    words: tuple[str, ...]
    targets: np.ndarray  # (T,) the task's answer at each position, -1 where it scores none
    expected: np.ndarray  # (T, T) the keys a head that solves the task looks at
    typed: bool


def read_sequence(typed: str, task: engine.Task) -> tuple[tuple[str, ...] | None, str | None]:
    """The typed tokens (split on spaces; a word whose every letter is a token splits into letters),
    or None and a message saying why not."""
    tokens: list[str] = []
    if task.read is not None:  # text: its own tokenizer, <unk> for the rest
        tokens = task.read(typed)[0]
    else:
        for word in typed.split():
            tokens += list(word) if word not in task.vocab and all(ch in task.vocab for ch in word) else [word]
    if not tokens:
        return None, None
    unknown = sorted({t for t in tokens if t not in task.vocab})
    if unknown:
        shown = ", ".join(repr(t) for t in unknown[:5]) + (", …" if len(unknown) > 5 else "")
        return None, (
            f"{shown} {'is' if len(unknown) == 1 else 'are'} not in the vocabulary of "
            f"'{task.title}', which is {vocabulary(task.vocab)}. Showing the task's own sequence."
        )
    if not task.min_len <= len(tokens) <= state.MAX_SEQUENCE:
        return None, (
            f"'{task.title}' needs from {task.min_len} to {state.MAX_SEQUENCE} tokens; you typed "
            f"{len(tokens)}. Showing the task's own sequence."
        )
    return tuple(tokens), None


def sequence(view: View, task: engine.Task) -> Sequence:
    """The text box for a sequence of the student's own (in the URL as sequence=…), read."""
    number = view.controls.passage  # a text task: the sidebar's passage
    sample = presets.sample_words(task, task.seq_len, number)
    st.text_input(
        "Your own sequence (empty: the task's own)",
        key=FIELD.sequence,
        max_chars=state.MAX_TEXT,
        placeholder=" ".join(sample),
        help=f"Tokens of '{task.title}': {vocabulary(task.vocab)}, separated by spaces (or written "
        f"together, e.g. ABCABC). From {task.min_len} to {state.MAX_SEQUENCE} tokens; the model "
        f"was trained on {task.seq_len}.",
    )
    typed, problem = read_sequence(view.controls.sequence, task)
    if problem:
        st.warning(md_escape(problem), icon=":material/warning:")
    chosen = typed or sample
    if typed is None and task.shown is not None:  # a text task's passage: its pasted copy marked
        found = presets.passage(task.name, number)
        st.markdown(passage.strip(chosen, None, found.pasted(len(chosen)), found.first))
    ids = tuple(task.vocab.index(w) for w in chosen)
    if typed:
        targets = task.targets(np.array([ids]))[0]
    else:  # the task's own scoring of its sample
        targets = presets.sample(task, len(ids), number)[1]
    return Sequence(
        ids=ids, words=chosen, targets=targets, expected=task.expected_keys(np.array([ids]))[0], typed=typed is not None
    )
