"""The Learn page's lesson facts ({learn.…}): its run (its loss's plateau and drop, the step the replay shows,
one layer against two), read through the same cached calls and the same words (registered with @fact). Pure
Python."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import engine
from services.weights import Training
from ui.lessons import lesson_words
from ui.lessons.registry import NoFact, fact
from ui.prose.numbers import fmt
from ui.sections.learn import words as learn_words


def learn_run(view, numbers):
    """The run the Learn page shows (its task's model, trained as the sidebar's training controls say)."""
    c = view.controls
    trained = numbers.model(
        engine.TASKS[c.task].config, Training(task=c.task, steps=c.steps, seed=c.train_seed, lr=c.lr)
    )
    if trained is None:
        raise NoFact("this run is not trained on this server: use the task's own settings (their run ships)")
    return trained


def _step(view, trained) -> int:
    """The saved step the replay shows (ui.sections.learn.replay: the nearest to replay=, else the last)."""
    steps, wanted = list(trained.steps), view.controls.replay_step
    return steps[-1] if wanted is None else min(steps, key=lambda s: (abs(s - wanted), s))


@fact("learn.task", "what the task asks, in the Learn page's words")
def _task(view, numbers) -> str:
    return engine.TASKS[view.controls.task].target


@fact("learn.step", "the saved step the replay shows")
def _learn_step(view, numbers) -> str:
    return str(_step(view, learn_run(view, numbers)))


@fact(
    "learn.drop",
    "where the loss falls most, as the page's window sees it: 'averaged over 30 steps, the loss falls "
    "most from steps 304–333 (…) to steps 334–363 (…), across the dashed line'",
)
def _drop(view, numbers) -> str:
    return learn_words.fall(numbers.circuit(learn_run(view, numbers))[1])


@fact("learn.plateau", "the page's sentence on the loss: its plateau, where it falls most and to what")
def _plateau(view, numbers) -> str:
    trained = learn_run(view, numbers)
    said = learn_words.plateau(trained.run.losses, numbers.circuit(trained)[1]).strip()
    return said[:1].upper() + said[1:]


@fact("learn.where", "whether the step shown comes before, during or after the loss's steepest fall")
def _where(view, numbers) -> str:
    trained = learn_run(view, numbers)
    return lesson_words.before_after(_step(view, trained), numbers.circuit(trained)[1])


@fact("learn.focus", "the head most on the task's keys at the step shown, and its share")
def _focus(view, numbers) -> str:
    trained = learn_run(view, numbers)
    steps, shares = numbers.share_history(trained)
    at = shares[list(steps).index(_step(view, trained))]  # (L, H)
    layer, head = np.unravel_index(int(np.argmax(at)), at.shape)
    return (
        f"layer {layer} head {head}" if at.shape[0] > 1 else f"head {head}"
    ) + f" puts {fmt(float(at[layer, head]), '.0%')} of its weight on the task's keys"


@fact("learn.lock", "which head locks on to the task's keys first, and at which step (the page's own words)")
def _lock(view, numbers) -> str:
    trained = learn_run(view, numbers)
    steps, shares = numbers.share_history(trained)
    found = learn_words.lock(steps, shares)
    if found is None:
        return f"no head reaches {learn_words.LOCKED:.0%} of its weight on the task's keys in this run"
    layer, head, step = found
    who = f"layer {layer} head {head}" if shares.shape[1] > 1 else f"head {head}"
    verb = "locks on" if _step(view, trained) < step else "locked on"
    return f"{who} {verb} (reaches {learn_words.LOCKED:.0%}) at step {step}"


@fact(
    "learn.accuracy",
    "the run's accuracy after its last step, on the sequences the page measures it on (its figures name them)",
)
def _learn_accuracy(view, numbers) -> str:
    return f"{numbers.metrics(learn_run(view, numbers)).overall_accuracy:.1%}"


@fact("learn.one_layer", "the accuracy of one layer trained with the same steps and batches")
def _one_layer(view, numbers) -> str:
    trained = learn_run(view, numbers)
    run = trained.run
    one = numbers.model(
        replace(trained.config, n_layers=1), Training(task=run.task, steps=run.steps, seed=run.seed, lr=run.lr)
    )
    if one is None:
        raise NoFact("the one-layer model of this run is not trained on this server: use the task's own settings")
    return f"{numbers.metrics(one).overall_accuracy:.1%}"
