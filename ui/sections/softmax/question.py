"""The softmax page's poll question: which key takes the most weight in a row (registered with @asks). Pure."""

from __future__ import annotations

import engine
from engine import analysis
from ui.poll.asking import MAX_OPTIONS, Asked, Unanswerable, asks, who
from ui.prose import rows as row_words

EVEN = "even"  # the top-key option for a row the page calls spread almost evenly (it names no key)


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


@asks("softmax", "the top key")
def _on_softmax(view, numbers) -> Asked:
    t = numbers.trace(numbers.model_of(view), view.words, view.layer)
    return softmax_top_key(t, view.head, view.cell[0] if view.cell else t.T - 1, view.controls.beta)
