"""Issue 47 (a lecturer's read of every sentence): items 9, 11, 12 and 15, and the rule that no causal word
('so', 'because', 'causes', 'therefore') stands in a sentence without the measurement behind it. Expected
numbers are read from the models and the traces, never typed."""
from __future__ import annotations

import re

import numpy as np
import pytest

from ui import compute
from ui.prose import notices
from ui.prose.numbers import fmt, next_to
from ui.shell import site, state, url
from ui.shell.view import View


def view(page: str, **params) -> View:
    """The View a link to `page` with these parameters draws (as the frame reads the URL)."""
    c, _ = url.from_params({key: str(value) for key, value in params.items()})
    return View(controls=c, config=state.to_config(c), tokens=state.to_tokens(c), notes=(), page=site.by_path(page),
                width=790, training=state.to_training(c))


def trace(v: View):
    return compute.trace(v.config, v.words, v.training, v.layer)


# =========================================================================== 12 · the scores page's spread
SCORES = [dict(), dict(preset="day33"), dict(preset="trained-text"), dict(preset="trained-text", seq_len=64),
          dict(preset="trained-induction", layer=1), dict(layers=2, layer=1)]


@pytest.mark.parametrize("params", SCORES, ids=lambda p: "&".join(f"{k}={v}" for k, v in p.items()) or "part4")
def test_item12_the_scores_intro_says_what_the_stds_show_not_a_cause(params):
    """'the entries of q and k have std 1.13 and 1.72, so … spread with std 2.53' implied the product of the
    stds makes the spread (1.13 × 1.72 ≈ 1.94): the sentence now compares the spread with that product, in
    the app's one scale of words, and has no 'so'."""
    t = trace(view("scores", **params))
    said = notices.scores_intro(t)
    sentence = next(s for s in re.split(r"(?<=\.) ", said) if "entries of q and k have std" in s)
    assert not CAUSAL.search(sentence), sentence
    q, k = float(np.std(t.q)), float(np.std(t.k))
    every = np.broadcast_to(t.visible, t.scores.shape)
    scaled = float(np.std(t.scaled[every]))
    assert f"std {fmt(q, '.2f')} and {fmt(k, '.2f')}" in sentence and f"spread with std {fmt(scaled, '.2f')}" in sentence
    assert f"{next_to(scaled / (q * k))} the {fmt(q * k, '.2f')} ({fmt(q, '.2f')} × {fmt(k, '.2f')})" in sentence, sentence


# =========================================================================== causal words
CAUSAL = re.compile(r"\b(so|because|causes?|caused|therefore|hence|thus)\b(?! (?:far|that|much|many|few|on)\b)",
                    re.IGNORECASE)
