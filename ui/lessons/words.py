"""The lessons' own sentences: where a lesson is, what a knock-out did, where the presenter is. Every number
comes in as an argument. Pure Python."""
from __future__ import annotations

import math

from ui.prose.numbers import count, fmt

BARELY = 0.02          # a knock-out that moves the accuracy by at most this (2 points) "barely moves" it
BARELY_LOSS = 0.05     # ... and the loss by at most this share of its value (5%)


def where(number: int, total: int, title: str) -> str:
    """'Step 3 of 8: Divide by √d_head'."""
    return f"Step {number} of {total}: {title}"


def changed(room: bool = False) -> str:
    """Said when the student moved a setting away from the step's own (allowed): the text's numbers are
    the step's."""
    return ("You changed this step's settings: the numbers in its text are the step's own. Back to its settings "
            "with the button; " + ("the presenter's next step brings its own." if room else
                                   "Next goes to the next step's own settings."))


def steps_list(titles: list[str], current: int) -> list[str]:
    """The lesson's steps as the list shows them, the current one marked."""
    return [f"{i}. {t}" + ("  ← you are here" if i == current else "") for i, t in enumerate(titles, start=1)]


def _loss_words(before: float, after: float) -> str:
    """What a knock-out did to the loss: 'the loss grows to 15 times its value (0.0302 → 0.454)'."""
    ratio, shown = after / before, f"({fmt(before, '.3g')} → {fmt(after, '.3g')})"
    if abs(ratio - 1) <= BARELY_LOSS:
        return f"the loss barely moves {shown}"
    if ratio > 1:
        return f"the loss grows to {fmt(ratio, '.2g')} times its value {shown}"
    return f"the loss falls to {fmt(ratio, '.0%')} of its value {shown}"


def knockout_effect(before: float, after: float, loss_before: float, loss_after: float) -> str:
    """What a knock-out did, in both measures the page has (accuracy and loss, on the same sequences), the
    larger change first: each measure's change is its ratio after / before, compared on a log scale (so a
    loss that grows 15-fold outweighs accuracy that falls 2 points, and accuracy falling to a tenth outweighs a
    loss that grows by half)."""
    if abs(after - before) <= BARELY:
        accuracy = f"accuracy barely moves ({before:.1%} → {after:.1%})"
    else:
        accuracy = f"accuracy {'falls' if after < before else 'rises'} from {before:.1%} to {after:.1%}"
    loss = _loss_words(loss_before, loss_after)
    accuracy_change = abs(math.log(max(after, 1e-12) / max(before, 1e-12)))
    loss_change = abs(math.log(loss_after / loss_before))
    if loss_change > accuracy_change:
        return f"{loss}, {'while' if 'barely' in accuracy else 'and'} {accuracy}"
    return f"{accuracy}, {'while' if 'barely' in loss else 'and'} {loss}"


def before_after(step: int, fall) -> str:
    """Where a replayed step lies against the loss's steepest fall (an engine.Fall: steps first .. last, the two
    neighbouring stretches whose mean losses differ most)."""
    where = f"steps {fall.first}–{fall.last}, {fall.window}-step means"
    if fall.first <= step <= fall.last:
        return f"during the loss's steepest fall ({where})"
    return f"{'before' if step < fall.first else 'after'} the loss's steepest fall ({where})"


def bad_file(problems: list[str]) -> str:
    """A lesson file refused: every problem, and that nothing changed."""
    shown = problems[:8] + ([f"… and {count(len(problems) - 8, 'more problem')}"] if len(problems) > 8 else [])
    return "This lesson file was not loaded; nothing changed.\n\n" + "\n\n".join(f"- {p}" for p in shown)


def steps_summary(steps: int, pages: int) -> str:
    return f"{count(steps, 'step')} on {count(pages, 'page')}"
