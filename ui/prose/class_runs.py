"""A class experiment in words (issue 52): what the hall's runs show, every number from engine.class_runs' figures,
a difference between groups called an effect only when its bootstrap interval excludes zero (pure Python)."""

from __future__ import annotations

from engine.class_runs import LEVEL, Comparison, Group, median_step
from ui.prose.numbers import count, fmt


def formed(group: Group, head: str) -> str:
    """'83 of 91 runs formed an induction head, between steps 180 and 410; the 8 that did not ended at 31 %
    accuracy (median)': one group, or the whole hall."""
    n, k = group.runs, len(group.formed)
    if k == 0:
        said = f"none of the {count(n, 'run')} formed {head}"
    else:
        every = "the one run" if n == 1 else f"all {count(n, 'run')}"
        said = f"{k} of {count(n, 'run')} formed {head}" if k < n else f"{every} formed {head}"
        said += (
            f", at step {group.formed[0]:,}"
            if k == 1
            else f", between steps {group.formed[0]:,} and {group.formed[-1]:,}"
        )
        said += f" (median {fmt(group.median_formed, ',.0f')})" if k > 2 else ""
    if group.missed_accuracy is not None and k:
        said += f"; the {n - k} that did not ended at {fmt(group.missed_accuracy, '.0%')} accuracy"
        said += " (median)" if n - k > 1 else ""
    elif group.missed_accuracy is not None:
        said += f"; they ended at {fmt(group.missed_accuracy, '.0%')} accuracy (median)"
    return said[0].upper() + said[1:] + "."


def compared(c: Comparison, setting: str) -> str:
    """Two groups' median formation steps: an effect, or no difference the runs can tell, with the interval."""
    interval = f"{LEVEL:.0%} interval {fmt(c.low, ',.0f')} to {fmt(c.high, ',.0f')} steps"
    if not c.effect:
        return (
            f"{setting} {c.a} and {c.b}: no difference the runs can tell (medians {fmt(abs(c.difference), ',.0f')} "
            f"steps apart; {interval}, which includes 0)."
        )
    sooner = "earlier" if c.difference < 0 else "later"
    return (
        f"With {setting} {c.a} the head formed {fmt(abs(c.difference), ',.0f')} steps {sooner} than with {c.b} "
        f"(difference of the medians; {interval}, which excludes 0): an effect."
    )


SETTINGS = {"steps": "steps", "lr": "learning rate", "layers": "layers", "width": "width"}
HEADS = {"induction": "an induction head", "previous": "a previous-token head"}  # what a task's run forms


def plan(settings: dict, varies: str | None, values: tuple, title: str) -> str:
    """'induction, 480 steps, learning rate 0.02, 2 layers, width 32; the learning rate varies: 0.02, 0.005'."""
    words = {
        "steps": count(int(settings["steps"]), "step"),
        "lr": f"learning rate {fmt(settings['lr'], 'g')}",
        "layers": count(int(settings["layers"]), "layer"),
        "width": f"width {int(settings['width'])}",
    }
    said = ", ".join([title, *(said for name, said in words.items() if name != varies)])
    if varies is not None:
        said += f"; the {SETTINGS[varies]} varies across the hall: {', '.join(fmt(v, 'g') for v in values)}"
    return said


def seeds(k: int | None = None) -> str:
    """What run k's seed is (the student's own, or every run's for the presenter)."""
    if k is None:
        return (
            "Run k uses k both as its weight seed (the initial weights) and as its batch seed (the training "
            "sequences): the spread you see comes from both sources."
        )
    return f"You are run {k}: seed {k}, for your initial weights and for your training sequences."


def yours(formed_at: int | None, accuracy: float | None, done: int, steps: list[int], head: str) -> str:
    """A student's run among the hall's: 'your head formed at step 212; the hall's median is 240 (of 35 runs).'"""
    said = (
        f"Your run formed {head} at step {formed_at:,}"
        if formed_at is not None
        else f"Your run did not form {head} (it ended at {fmt(accuracy or 0.0, '.0%')} accuracy)"
    )
    if done <= 1:
        return said + "; the hall's runs appear here as they finish."
    if not steps:
        return said + f"; none of the hall's {count(done, 'finished run')} formed it."
    median = fmt(median_step(steps), ",.0f")
    return said + f"; the hall's median is step {median} ({len(steps)} of {count(done, 'finished run')} formed it)."
