"""The exercise's poll question: what appending a token does to the old rows (registered with @asks). Pure."""

from __future__ import annotations

from engine import analysis
from ui.poll.asking import Asked, asks
from ui.sections.exercise import words as exercise_words
from ui.shell import state


def exercise_prediction(ext: analysis.Extension, head: int, layers: int = 1) -> Asked:
    """The exercise's prediction: what appending a token does to the old rows. Right: every choice the
    page's own verdict calls right. The exercise works on layer 0 (its first block alone): in a model of
    `layers` > 1 the prompt names layer 0 and says so."""
    T = ext.before.T
    named = (
        f"Head {head}"
        if layers == 1
        else (
            f"Layer 0, head {head} (the exercise works on layer 0, which reads "
            "the tokens themselves, whatever layer the sidebar picks)"
        )
    )
    return Asked(
        "exercise",
        f"{named}: what happens to the {T} rows of attention weights "
        f"when the token {ext.after.labels[T]!r} is appended as token {T}?",
        list(exercise_words.PREDICTIONS.items()),
        exercise_words.right_predictions(ext, head),
    )


@asks("exercise", "what one more token does")
def _on_exercise(view, numbers) -> Asked:
    return exercise_prediction(
        numbers.extension(numbers.model_of(view), view.words, state.next_word(view.controls), view.config),
        view.head,
        view.config.n_layers,
    )
