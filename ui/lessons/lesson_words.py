"""The lessons' own sentences: where a lesson is, what a knock-out did, where the presenter is. Every number
comes in as an argument. Pure Python."""

from __future__ import annotations

from ui.prose.knockout import BARELY, BARELY_LOSS, knockout_effect  # noqa: F401 (one wording of a knock-out)
from ui.prose.numbers import count


def where(number: int, total: int, title: str) -> str:
    """'Step 3 of 8: Divide by √d_head'."""
    return f"Step {number} of {total}: {title}"


def changed(room: bool = False) -> str:
    """Said when the student moved a setting away from the step's own (allowed): the text's numbers are
    the step's."""
    return (
        "You changed this step's settings: the numbers in its text are the step's own. Back to its settings "
        "with the button; "
        + ("the presenter's next step brings its own." if room else "Next goes to the next step's own settings.")
    )


def steps_list(titles: list[str], current: int) -> list[str]:
    """The lesson's steps as the list shows them, the current one marked."""
    return [f"{i}. {t}" + ("  ← you are here" if i == current else "") for i, t in enumerate(titles, start=1)]


def before_after(step: int, fall) -> str:
    """Where a replayed step lies against the loss's steepest fall (an engine.loss_curve.Fall: steps first .. last,
    the two neighbouring stretches whose mean losses differ most)."""
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
