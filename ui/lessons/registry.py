"""Where a lesson's facts are registered: the placeholder's form, the fact type and the registry that
each page's facts.py (ui/sections/<page>/) fills with @fact (ui.lessons.facts reads it). Pure Python."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

PLACE = re.compile(r"\{([a-z]+\.[A-Za-z0-9_]+)\}")


class NoFact(ValueError):
    """The fact has no value at this step's settings; the message says why and what to change."""


@dataclass(frozen=True)
class Fact:
    name: str  # page.what, as a lesson writes it between braces
    about: str  # what it gives, in a few words
    value: Callable  # (view, numbers) -> the text that replaces the placeholder


FACTS: dict[str, Fact] = {}


def fact(name: str, about: str) -> Callable:
    """Register the decorated function as the fact `name`."""

    def register(fn: Callable) -> Callable:
        FACTS[name] = Fact(name, about, fn)
        return fn

    return register


def trace_of(view, numbers):
    """The trace the block's pages draw (the layer the sidebar picks)."""
    return numbers.trace(numbers.model_of(view), view.words, view.layer)


def shape(rows: int, cols: int) -> str:
    return f"{rows} × {cols}"
