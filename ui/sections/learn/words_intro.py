"""The Learn page's opening words, by the task it shows (kept apart from ui/sections/learn/words.py, which holds the
rest of that page's words, within the 300-line rule)."""

from __future__ import annotations

import engine


def intro(name: str) -> str:
    """The Learn page's opening words: a task one attention pattern solves, or a language model's (none does)."""
    one, t = engine.TASKS[name].held_out is None, engine.TASKS[name]
    return (
        "Every other page shows a block's numbers; here the block learns. "
        + (
            "Each task has a right answer that an attention pattern gives. Press Train: the model is trained in plain "
            "NumPy (gradients written out by hand, Adam), and its attention maps move from what the random initial "
            "weights give to the pattern. "
            if one
            else f"'{t.title}' has no answer that one attention pattern gives: "
            "the model learns to predict the next token, trained in plain NumPy (gradients written out by hand, Adam), "
            "and its attention maps move from what the random initial weights give to what training made of them. "
        )
        + "Afterwards, scrub through the saved steps and see what the model predicts."
    )
