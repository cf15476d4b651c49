"""The sentence view of one head (issue 49 ★, for text): the running text itself, and for the word a student focuses,
taps or hovers, the words it attends to shaded by their weight on the weights' colour scale, each with a bar under
it as thick as its share (marks a projector shows) and its share printed above it. Drawn by the attention-map
component (ui/charts/attention_map.py registers it; attention_map_sentence.js draws it): the browser answers every
focus and tap, no server run.

Python sends each word as plain text (written with textContent), each weight's colour (a palette index, one byte)
and its share as text (ui.prose.numbers' fmt: nothing nonzero prints as 0 %), and per word a sentence that reads its
row (its strongest keys, in Python's words). Payload at 64 words: ~25 KB.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

import numpy as np

from ui.charts import attention_map as am
from ui.charts import colours as co
from ui.charts import memo
from ui.prose.numbers import fmt

TOP = 3  # keys named in a word's sentence
SHOWN_FROM = 0.005  # shares below this are left unprinted above the word (they still read in its sentence)


def share(w: float) -> str:
    """A weight as a share: '42%', '0.4%', '3e-5%' (never 0 % for a nonzero weight)."""
    return fmt(w, ".0%") if w >= 0.01 else fmt(w, ".1%")


def row_sentence(tokens: Sequence[str], weights: np.ndarray, shown: np.ndarray, r: int) -> str:
    """Word r's row in words: the keys it attends to most, with their shares, and how many it cannot see."""
    order = [c for c in np.argsort(-weights[r], kind="stable") if shown[r, c]][:TOP]
    named = ", ".join(f"“{tokens[c]}” ({c}) {share(weights[r, c])}" for c in order)
    hidden = int((~shown[r]).sum())
    tail = f"; {hidden} later word{'s' if hidden != 1 else ''} masked" if hidden else ""
    return f"“{tokens[r]}” ({r}) attends most to {named}{tail}."


def sentence_payload(
    weights: np.ndarray,
    tokens: Sequence[str],
    *,
    title: str,
    mask: np.ndarray | None = None,
    domain: tuple[float, float] = (0.0, 1.0),
) -> dict:
    """The component's data for the sentence view of one head's (T, T) weights over `tokens`."""
    weights = np.asarray(weights, dtype=np.float64)
    tokens = [str(t) for t in tokens]
    T = len(tokens)
    if weights.shape != (T, T):
        raise ValueError(f"weights {weights.shape} do not match {T} words")
    shown = np.ones((T, T), bool) if mask is None else np.asarray(mask, bool)
    colours, ink = am.palette(co.WEIGHTS)
    level = am.colour_index(np.where(shown, weights, 0.0), shown, co.WEIGHTS, domain)  # (T, T) uint8
    shares = [share(w) if s and w >= SHOWN_FROM else "" for w, s in zip(weights.ravel(), shown.ravel())]
    return {
        "sentence": {
            "title": title,
            "tokens": tokens,
            "colour": base64.b64encode(level.tobytes()).decode("ascii"),
            "shares": "|".join(shares),
            "rows": [row_sentence(tokens, weights, shown, r) for r in range(T)],
            "palette": colours,
            "ink": ink,
            "masked": am.MASKED,
            "hint": "Hover, tap or Tab to a word (arrow keys move along the text): the words it attends to are "
            "shaded by their weight, with a bar as thick as the share.",
            "mark": co.HIGHLIGHT_STROKE,
        }
    }


def sentence_view(weights: np.ndarray, tokens: Sequence[str], *, key: str, title: str, mask=None, domain=(0.0, 1.0)):
    """Draw the sentence view (see the module's docstring) with the attention-map component."""
    made = lambda: am.encoded(sentence_payload(weights, tokens, title=title, mask=mask, domain=domain))  # noqa: E731
    return am._component(
        key=key, data=memo.once(("sentence", weights, tokens, title, mask, domain, co.stretched()), made)
    )
