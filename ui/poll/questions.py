"""The poll's questions, each with its right answers computed by the same function as the page's own
sentence at the presenter's settings. Pure: each takes the numbers the page shows and returns an Asked,
or raises Unanswerable (with the reason) where the page itself gives no single answer to grade.

A question is registered with its page here, by `@asks(page, title)` on a function of the View and the
module that gives the page's numbers (ui.compute, passed in by the poll): adding a question is this file."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import engine
from engine import analysis
from services.poll.codes import MAX_OPTIONS
from ui.prose import exercise as exercise_words
from ui.prose import rows as row_words
from ui.shell import state

EVEN = "even"  # the top-key option for a row the page calls spread almost evenly (it names no key)


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


def softmax_top_key(t: engine.Trace, head: int, row: int, beta: float = 1.0) -> Asked:
    """Which key takes the most weight in one row at the page's β, read as the page reads it
    (analysis.read_head): every key tied with the top is right, and a row the page calls spread almost
    evenly has the answer 'none'. A row that sees one key, or more keys than a question has options,
    is not asked."""
    _, rows = analysis.read_head(t, head, beta)
    r, label = rows[row], t.labels[row]
    if r.kind == "forced":
        raise Unanswerable(
            f"Row {row} ({label}) sees one key only under the causal mask: its weight 1 is forced, "
            "so there is nothing to predict. Click a cell of a later row to ask about that row."
        )
    if r.keys + 1 > MAX_OPTIONS:
        raise Unanswerable(
            f"Row {row} ({label}) sees {r.keys} keys, more than the {MAX_OPTIONS - 1} keys a poll "
            "question can offer. Use a shorter sentence, or click a cell of an earlier row under "
            "the causal mask."
        )
    visible = [j for j in range(t.T) if t.visible[row, j]]
    options = [(str(j), f"{j}: {t.labels[j]}") for j in visible] + [(EVEN, "none: the row is spread almost evenly")]
    answers = [EVEN] if r.kind == "even" else [str(j) for j in r.top]
    at = "" if beta == 1 else f" at β = {beta:g}"
    return Asked(
        "softmax",
        f"{who(t, head)}, query row {row} ({label}){at}: which key will take the most weight after "
        f"the softmax? ({row_words.rule().capitalize()}; such a row names no key.)",
        options,
        answers,
    )


CANDIDATES = ("same", "root", "full", "grows", "half", "double")


def scores_spread(t: engine.Trace, cfg: engine.Config, head: int) -> Asked:
    """What dividing by √d_head does to the spread (standard deviation) of one head's scores, measured
    by the page's own function (analysis.score_spread)."""
    d = cfg.d_head
    if not cfg.scale_scores:
        raise Unanswerable(
            "Scaling is switched off, so this page divides nothing and says nothing about a spread "
            "after ÷√d_head: switch ÷√d_head on (sidebar, Switches) to ask this question."
        )
    raw, divided = analysis.score_spread(t, head)
    if not raw > 0:
        raise Unanswerable(f"{who(t, head)}: its visible scores are all equal, so they have no spread to shrink.")
    ratio = divided / raw  # measured on the numbers shown
    candidates = {
        "same": (1.0, "it stays the same"),
        "root": (1 / math.sqrt(d), f"it shrinks to 1/√{d} ≈ {1 / math.sqrt(d):.3f} of what it was"),
        "full": (1 / d, f"it shrinks to 1/{d} ≈ {1 / d:.3f} of what it was"),
        "grows": (math.sqrt(d), f"it grows √{d} ≈ {math.sqrt(d):.3f} times"),
        "half": (0.5, "it halves"),
        "double": (2.0, "it doubles"),
    }  # the last two for d_head = 1
    options, factors = [], []
    for value in CANDIDATES:
        factor, label = candidates[value]
        if all(abs(factor - f) > 1e-9 for f in factors) and len(options) < 4:  # d_head = 1: 1/√d = 1/d = 1
            options.append((value, label))
            factors.append(factor)
    answer = min(zip(options, factors), key=lambda of: abs(of[1] - ratio))[0][0]
    return Asked(
        "scores",
        f"{who(t, head)}, d_head = {d}: what happens to the spread (standard deviation) of the "
        f"{t.T} × {t.T} scores when every score is divided by √d_head?",
        options,
        [answer],
    )


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


# --------------------------------------------------------------------------- each page's question
@dataclass(frozen=True)
class Asks:
    title: str  # the question in a few words (the presenter's button names it)
    ask: Callable  # (view, numbers) -> Asked, or Unanswerable with the reason


ASKS: dict[str, Asks] = {}  # page path -> the question asked on that page


def step_qid(page: str, step: int | None) -> str:
    """A question's id in the room: its page's path, or in a lesson its page and step ('softmax@5'), so two
    steps on one page keep their answers apart."""
    return page if step is None else f"{page}@{step}"


def title(qid: str) -> str:
    """The question of an id, in a few words (with its lesson step, if any)."""
    page, _, step = qid.partition("@")
    named = ASKS[page].title if page in ASKS else page
    return f"{named}, step {step}" if step else named


def asks(page: str, title: str) -> Callable:
    """Register the decorated function as `page`'s question."""

    def register(fn: Callable) -> Callable:
        ASKS[page] = Asks(title, fn)
        return fn

    return register


@asks("softmax", "the top key")
def _on_softmax(view, numbers) -> Asked:
    t = numbers.trace(numbers.model_of(view), view.words, view.layer)
    return softmax_top_key(t, view.head, view.cell[0] if view.cell else t.T - 1, view.controls.beta)


@asks("scores", "the spread after ÷√d")
def _on_scores(view, numbers) -> Asked:
    return scores_spread(numbers.trace(numbers.model_of(view), view.words, view.layer), view.config, view.head)


@asks("exercise", "what one more token does")
def _on_exercise(view, numbers) -> Asked:
    return exercise_prediction(
        numbers.extension(numbers.model_of(view), view.words, state.next_word(view.controls), view.config),
        view.head,
        view.config.n_layers,
    )
