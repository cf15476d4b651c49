"""The Inputs page's live words: its intro (where a row of X comes from) and what to notice in X (pure Python;
token labels go through ui.prose.text's `quote`, escaped for Markdown)."""

from __future__ import annotations

from engine import Trace
from ui.prose import text
from ui.prose.numbers import count, verb


def inputs_intro(trained: bool, stand_in: str | None) -> str:
    """The Inputs page's intro: where a row of X comes from, and what happens to a word the vocabulary lacks
    (an article's preset: a vector of its own; a trained letter task: left out; the text model: its stand-in)."""
    other = (
        "any other word gets a vector of its own (the same word always the same vector). "
        if not trained
        else "any other word is left out (this model was trained on its task's tokens only) and the sequence is "
        "filled from the task. "
        if stand_in is None
        else f"any other word is read as {text.quote(stand_in)} (the model's one row for every word outside its "
        "vocabulary), and a short text is filled from the task. "
    )
    return (
        "The sentence in the sidebar is split into tokens. Each token becomes one row of **X**: a known word "
        "takes its row of the preset's table, " + other + "Everything on the next pages is computed from this matrix."
    )


def inputs_notice(t: Trace, words: tuple[str, ...], known: int, vocab_title: str, stand_in: str | None = None) -> str:
    """How many tokens the vocabulary knows (with a stand-in for unknown words, such as <unk>, the others are
    that stand-in), and which rows of X (and X + P) are equal."""
    T = len(words)
    repeats = sum(w != stand_in and w in words[:i] for i, w in enumerate(words))  # a stand-in may be any word
    said = f"{known} of {T} tokens are in the {vocab_title} vocabulary"
    if stand_in is not None and known < T:
        said += (
            f" (the other is {text.quote(stand_in)}: a word outside it)"
            if T - known == 1
            else f" (the other {T - known} are {text.quote(stand_in)}: words outside it, all read as the same row)"
        )
    if repeats:
        said += (
            f", and {count(repeats, 'token')} {verb(repeats, 'repeats', 'repeat')} an earlier word: "
            "a repeated word has exactly the same row of X"
        )
        if t.positions is not None:
            said += ", and the position code P makes every row of X + P different"
    elif stand_in is not None and T - known > 1:  # only the stand-in's rows are equal
        said += f"; no known word comes twice: the only equal rows of X are the {T - known} {text.quote(stand_in)} rows"
        if t.positions is not None:
            said += ", and the position code P makes every row of X + P different"
    else:
        said += "; every word is different, so every row of X is different"
        if t.positions is not None:
            said += ", and so is every row of X + P"
    return said + "."
