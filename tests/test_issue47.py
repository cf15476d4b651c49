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
CAUSAL = re.compile(r"\b(so|because|causes?|caused|therefore|hence|thus)\b", re.IGNORECASE)


# =========================================================================== 11 · a knock-out's effect
def _knockout_steps():
    from ui.lessons import shipped
    return [(name, i) for name in shipped.names() for i, step in enumerate(shipped.load(name).steps, start=1)
            if "{model.knockout_effect}" in step.text]


@pytest.mark.parametrize("key", _knockout_steps(), ids=lambda k: f"{k[0]}-{k[1]}")
def test_item11_a_knock_out_s_words_quote_the_loss_and_follow_the_larger_change(key):
    """Induction step 6 said 'one of them is enough' with accuracy alone (99.5% → 97.8%) while the loss grew
    15-fold: every lesson fact about a knock-out quotes both of the page's measures, read from its metrics,
    and names first the one whose ratio after / before is further from 1 (on a log scale)."""
    from ui.lessons import facts, shipped
    from ui.lessons.facts_trained import _model
    from ui.lessons.lesson import view_of
    step = shipped.load(key[0]).at(key[1])
    v = view_of(step)
    trained, T = _model(v, compute), len(v.words)
    base, out = compute.metrics(trained, T), compute.metrics(trained, T, v.controls.ablate)
    said = facts.fill("{model.knockout_effect}", v, compute)
    acc = f"{base.overall_accuracy:.1%}", f"{out.overall_accuracy:.1%}"
    loss = f"{fmt(base.overall_loss, '.3g')} → {fmt(out.overall_loss, '.3g')}"
    assert all(a in said for a in acc) and loss in said, said
    loss_first = (abs(np.log(out.overall_loss / base.overall_loss))
                  > abs(np.log(out.overall_accuracy / base.overall_accuracy)))
    assert said.index("loss" if loss_first else "accuracy") == min(said.index("loss"), said.index("accuracy")), said
    text = facts.fill(step.text, v, compute)
    for claim in ("one of them is enough", "does the same job"):            # what the loss contradicts
        assert claim not in text or out.overall_loss / base.overall_loss < 1.5, text


def test_item11_the_words_follow_whichever_measure_moved_more():
    from ui.lessons.words import knockout_effect
    assert knockout_effect(0.995, 0.978, 0.030, 0.454).startswith("the loss grows to 15 times its value")
    assert knockout_effect(0.995, 0.10, 0.030, 0.040).startswith("accuracy falls from 99.5% to 10.0%")
    assert "while the loss barely moves" in knockout_effect(0.90, 0.60, 0.50, 0.51)
    assert knockout_effect(0.50, 0.505, 0.50, 0.501).startswith("accuracy barely moves")


# =========================================================================== 9 · a poll question names its layer
POLLS = [dict(layers=2, layer=1), dict(layers=2, layer=0, head=1), dict(layers=3, layer=2, seq_len=5),
         dict(preset="trained-induction", layer=1), dict(preset="trained-text", seq_len=8, layer=0, head=3), dict()]


@pytest.mark.parametrize("params", POLLS, ids=lambda p: "&".join(f"{k}={v}" for k, v in p.items()) or "part4")
@pytest.mark.parametrize("page", ["softmax", "scores", "exercise"])
def test_item9_a_poll_question_names_the_layer_and_head_it_grades(page, params):
    """At layers=2&layer=1 the exercise's question was graded on layer 0 and no prompt named a layer: every
    question names the head, and in a model of several layers the layer, that it grades; the softmax and scores
    questions grade the layer the page shows, and the exercise (which works on layer 0) says so."""
    from engine import analysis
    from ui.poll import questions
    v = view(page, **params)
    try:
        asked = questions.ASKS[page].ask(v, compute)
    except questions.Unanswerable as why:
        asked, prompt = None, str(why)
    else:
        prompt = asked.prompt
    graded = 0 if page == "exercise" else v.layer
    named = f"Layer {graded}, head {v.head}" if v.config.n_layers > 1 else f"Head {v.head}"
    if asked is None:
        assert page != "softmax" or "Row" in prompt, prompt                       # a row's reason, not a head's
        return
    assert prompt.startswith(named), prompt
    if page == "exercise" and v.config.n_layers > 1:
        assert "works on layer 0" in prompt, prompt
    if page == "softmax":                                     # graded on the trace the page shows
        t = trace(v)
        _, rows = analysis.read_head(t, v.head, v.controls.beta)
        row = rows[t.T - 1]
        assert asked.answers == ([questions.EVEN] if row.kind == "even" else [str(j) for j in row.top])
    if page == "scores":
        raw, divided = analysis.score_spread(trace(v), v.head)
        assert asked == questions.scores_spread(trace(v), v.config, v.head) and raw > 0 and divided > 0


@pytest.mark.parametrize("params", [dict(layers=2, layer=1), dict(layers=3, layer=0), dict()],
                         ids=["layers=2&layer=1", "layers=3&layer=0", "part4"])
def test_item9_a_lesson_fact_that_names_heads_names_their_layer(params):
    """A lesson fact names only what the student can see: with several layers the heads' spreads say which
    layer's heads they are (the layer the page shows); with one layer there is no layer to name."""
    from ui.lessons import facts
    v = view("heads", **params)
    said = facts.fill("{heads.spreads}", v, compute)
    if v.config.n_layers > 1:
        assert said.startswith(f"layer {v.layer} head 0 ") and said.count(f"layer {v.layer} head") == v.config.num_heads
    else:
        assert "layer" not in said and said.startswith("head 0 ")
