"""The numbers a lesson's text may name, never typed: `{scores.divisor}` in a step's text is filled by the
function registered under that name, from the step's own View and the module that gives the pages their
numbers (ui.compute, passed in), formatted as the page formats it. A lesson that names a fact this app
does not compute is refused when it is read (unknown); one that names a fact with no value at its
settings is refused when it is checked (ui.lessons.check).

A fact is registered with `@fact("page.name", "what it gives")` in facts_block.py (the block's pages and
the exercise) or facts_trained.py (the model view and the Learn page). Pure Python."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

PLACE = re.compile(r"\{([a-z]+\.[A-Za-z0-9_]+)\}")


class NoFact(ValueError):
    """The fact has no value at this step's settings; the message says why and what to change."""


@dataclass(frozen=True)
class Fact:
    name: str                       # page.what, as a lesson writes it between braces
    about: str                      # what it gives, in a few words
    value: Callable                 # (view, numbers) -> the text that replaces the placeholder


FACTS: dict[str, Fact] = {}


def fact(name: str, about: str) -> Callable:
    """Register the decorated function as the fact `name`."""
    def register(fn: Callable) -> Callable:
        FACTS[name] = Fact(name, about, fn)
        return fn
    return register


def names(text: str) -> list[str]:
    """The facts a text names, in order."""
    return PLACE.findall(text)


def unknown(text: str) -> list[str]:
    """What is wrong with a text's placeholders: a name no fact has, a brace that opens none."""
    problems = []
    for name in names(text):
        if name not in FACTS:
            page = name.split(".")[0]
            mine = sorted(n for n in FACTS if n.startswith(page + "."))
            problems.append(f"{{{name}}} is not a number this app computes. "
                            + (f"The {page} facts are: {', '.join('{' + n + '}' for n in mine)}." if mine else
                               f"Facts are named page.what; the pages with facts: {', '.join(pages())}."))
    rest = PLACE.sub("", text)
    if "{" in rest or "}" in rest:
        problems.append("a brace that is not a fact's: write {page.what} for a number, or leave braces out.")
    return problems


def pages() -> list[str]:
    return sorted({n.split(".")[0] for n in FACTS})


def fill(text: str, view, numbers) -> str:
    """The text with every placeholder replaced by its fact's value at the view's settings (NoFact if one
    has none)."""
    return PLACE.sub(lambda m: FACTS[m.group(1)].value(view, numbers), text)


from ui.lessons import facts_block, facts_trained  # noqa: E402,F401  (they register the facts)
