"""The exercise's lesson facts ({exercise.…} in a lesson's text), registered with @fact: each computed from
the numbers the page draws, by the page's own functions, and printed as the page prints it. Pure Python."""

from __future__ import annotations

from ui.lessons.registry import fact
from ui.prose.text import plain
from ui.sections.exercise.words_new_token import ordinal
from ui.shell import state


@fact("exercise.T", "the tokens before one is appended")
def _ex_T(view, numbers) -> str:
    return str(len(view.words))


@fact("exercise.t_next", "the tokens after one is appended")
def _ex_T_next(view, numbers) -> str:
    return str(len(view.words) + 1)


@fact("exercise.nth", "the new token's place ('6th')")
def _ex_nth(view, numbers) -> str:
    return ordinal(len(view.words) + 1)


@fact("exercise.new_token", "the default new token (what the length slider appends), quoted")
def _ex_new(view, numbers) -> str:
    return plain(state.next_word(view.controls))
