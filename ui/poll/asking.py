"""How a poll question is made and registered: a page's question is a function of the View and the module
that gives the page's numbers (ui.compute, passed in by the poll), registered with `@asks(page, title)` in the
page's own folder (ui/sections/<page>/question.py); it returns an Asked, with its right answers computed by the
same function as the page's own sentence at the presenter's settings, or raises Unanswerable (with the reason)
where the page itself gives no single answer to grade. ui/poll/questions.py imports every page's question.
Pure Python."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import engine
from services.poll.codes import MAX_OPTIONS  # noqa: F401  (a question offers at most this many options)


class Unanswerable(ValueError):
    """This page, at these settings, has no question the poll can grade; the message says why."""


@dataclass(frozen=True)
class Asked:
    qid: str  # the page it belongs to
    prompt: str
    options: list[tuple[str, str]]  # (value stored, label shown)
    answers: list[str]  # every right option's value (ties: all of them)


def who(t: engine.Trace, head: int) -> str:
    """The head a question grades, as the page's sidebar names it: 'Layer 1, head 0' in a model of several layers
    (the layer the page shows), 'Head 0' in a one-layer model (no layer to pick)."""
    return f"Layer {t.layer}, head {head}" if t.config.n_layers > 1 else f"Head {head}"


# --------------------------------------------------------------------------- each page's question
@dataclass(frozen=True)
class Asks:
    title: str  # the question in a few words (the presenter's button names it)
    ask: Callable  # (view, numbers) -> Asked, or Unanswerable with the reason


ASKS: dict[str, Asks] = {}  # page path -> the question asked on that page
DRAWN = {"softmax:draw": "draw the row"}  # a drawn question's id -> its title (ui/poll/drawq.py)


def step_qid(page: str, step: int | None) -> str:
    """A question's id in the room: its page's path, or in a lesson its page and step ('softmax@5'), so two
    steps on one page keep their answers apart."""
    return page if step is None else f"{page}@{step}"


def title(qid: str) -> str:
    """The question of an id, in a few words (with its lesson step, if any)."""
    page, _, step = qid.partition("@")
    named = ASKS[page].title if page in ASKS else DRAWN.get(page, page)
    return f"{named}, step {step}" if step else named


def asks(page: str, title: str) -> Callable:
    """Register the decorated function as `page`'s question."""

    def register(fn: Callable) -> Callable:
        ASKS[page] = Asks(title, fn)
        return fn

    return register
