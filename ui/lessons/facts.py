"""The numbers a lesson's text may name, never typed: `{scores.divisor}` in a step's text is filled by the
function registered under that name, from the step's own View and the module that gives the pages their
numbers (ui.compute, passed in), formatted as the page formats it. A lesson that names a fact this app
does not compute is refused when it is read (unknown); one that names a fact with no value at its
settings is refused when it is checked (ui.lessons.check).

A fact is registered with `@fact("page.name", "what it gives")` (ui/lessons/registry.py) in its page's folder,
ui/sections/<page>/facts.py; importing them here registers them all. Pure Python."""

from __future__ import annotations

import ui.sections.exercise.facts  # noqa: F401  (importing each page's facts registers them)
import ui.sections.heads.facts  # noqa: F401
import ui.sections.inputs.facts  # noqa: F401
import ui.sections.learn.facts  # noqa: F401
import ui.sections.model.facts  # noqa: F401
import ui.sections.output.facts  # noqa: F401
import ui.sections.qkv.facts  # noqa: F401
import ui.sections.scores.facts  # noqa: F401
import ui.sections.softmax.facts  # noqa: F401
from ui.lessons.registry import FACTS, PLACE, Fact, NoFact, fact  # noqa: F401  (the registry, named here too)


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
            problems.append(
                f"{{{name}}} is not a number this app computes. "
                + (
                    f"The {page} facts are: {', '.join('{' + n + '}' for n in mine)}."
                    if mine
                    else f"Facts are named page.what; the pages with facts: {', '.join(pages())}."
                )
            )
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
