"""Issue 47 (a lecturer's read of every sentence): items 9, 11, 12 and 15, and the rule that no causal word
('so', 'because', 'causes', 'therefore') stands in a sentence without the measurement behind it. Expected
numbers are read from the models and the traces, never typed."""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import link_trace, link_view  # noqa: E402
from ui import compute
from ui.prose.numbers import fmt, next_to
from ui.sections.scores import words as scores_words

view, trace = link_view, link_trace


# =========================================================================== 12 · the scores page's spread
SCORES = [
    dict(),
    dict(preset="day33"),
    dict(preset="trained-text"),
    dict(preset="trained-text", seq_len=64),
    dict(preset="trained-induction", layer=1),
    dict(layers=2, layer=1),
]


@pytest.mark.parametrize("params", SCORES, ids=lambda p: "&".join(f"{k}={v}" for k, v in p.items()) or "part4")
def test_item12_the_scores_intro_says_what_the_stds_show_not_a_cause(params):
    """'the entries of q and k have std 1.13 and 1.72, so … spread with std 2.53' implied the product of the
    stds makes the spread (1.13 × 1.72 ≈ 1.94): the sentence now compares the spread with that product, in
    the app's one scale of words, and has no 'so'."""
    t = trace(view("scores", **params))
    said = scores_words.scores_intro(t)
    sentence = next(s for s in re.split(r"(?<=\.) ", said) if "entries of q and k have std" in s)
    assert not CAUSAL.search(sentence), sentence
    q, k = float(np.std(t.q)), float(np.std(t.k))
    every = np.broadcast_to(t.visible, t.scores.shape)
    scaled = float(np.std(t.scaled[every]))
    assert (
        f"std {fmt(q, '.2f')} and {fmt(k, '.2f')}" in sentence and f"spread with std {fmt(scaled, '.2f')}" in sentence
    )
    assert f"{next_to(scaled / (q * k))} the {fmt(q * k, '.2f')} ({fmt(q, '.2f')} × {fmt(k, '.2f')})" in sentence, (
        sentence
    )


# =========================================================================== causal words
CAUSAL = re.compile(r"\b(so|because|causes?|caused|therefore|hence|thus)\b", re.IGNORECASE)


# =========================================================================== 11 · a knock-out's effect
def _knockout_steps():
    from ui.lessons import shipped

    return [
        (name, i)
        for name in shipped.names()
        for i, step in enumerate(shipped.load(name).steps, start=1)
        if "{model.knockout_effect}" in step.text
    ]


@pytest.mark.parametrize("key", _knockout_steps(), ids=lambda k: f"{k[0]}-{k[1]}")
def test_item11_a_knock_out_s_words_quote_the_loss_and_follow_the_larger_change(key):
    """Induction step 6 said 'one of them is enough' with accuracy alone (99.5% → 97.8%) while the loss grew
    15-fold: every lesson fact about a knock-out quotes both of the page's measures, read from its metrics,
    and names first the one whose ratio after / before is further from 1 (on a log scale)."""
    from ui.lessons import facts, shipped
    from ui.lessons.lesson import view_of
    from ui.sections.model.facts import _model

    step = shipped.load(key[0]).at(key[1])
    v = view_of(step)
    trained, T = _model(v, compute), len(v.words)
    base, out = compute.metrics(trained, T), compute.metrics(trained, T, v.controls.ablate)
    said = facts.fill("{model.knockout_effect}", v, compute)
    acc = f"{base.overall_accuracy:.1%}", f"{out.overall_accuracy:.1%}"
    loss = f"{fmt(base.overall_loss, '.3g')} → {fmt(out.overall_loss, '.3g')}"
    assert all(a in said for a in acc) and loss in said, said
    loss_first = abs(np.log(out.overall_loss / base.overall_loss)) > abs(
        np.log(out.overall_accuracy / base.overall_accuracy)
    )
    assert said.index("loss" if loss_first else "accuracy") == min(said.index("loss"), said.index("accuracy")), said
    text = facts.fill(step.text, v, compute)
    for claim in ("one of them is enough", "does the same job"):  # what the loss contradicts
        assert claim not in text or out.overall_loss / base.overall_loss < 1.5, text


def test_item11_the_words_follow_whichever_measure_moved_more():
    from ui.lessons.lesson_words import knockout_effect

    assert knockout_effect(0.995, 0.978, 0.030, 0.454).startswith("the loss grows to 15 times its value")
    assert knockout_effect(0.995, 0.10, 0.030, 0.040).startswith("accuracy falls from 99.5% to 10.0%")
    assert "while the loss barely moves" in knockout_effect(0.90, 0.60, 0.50, 0.51)
    assert knockout_effect(0.50, 0.505, 0.50, 0.501).startswith("accuracy barely moves")


# =========================================================================== 9 · a poll question names its layer
POLLS = [
    dict(layers=2, layer=1),
    dict(layers=2, layer=0, head=1),
    dict(layers=3, layer=2, seq_len=5),
    dict(preset="trained-induction", layer=1),
    dict(preset="trained-text", seq_len=8, layer=0, head=3),
    dict(),
]


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
        assert page != "softmax" or "Row" in prompt, prompt  # a row's reason, not a head's
        return
    assert prompt.startswith(named), prompt
    if page == "exercise" and v.config.n_layers > 1:
        assert "works on layer 0" in prompt, prompt
    if page == "softmax":  # graded on the trace the page shows
        t = trace(v)
        _, rows = analysis.read_head(t, v.head, v.controls.beta)
        row = rows[t.T - 1]
        assert asked.answers == ([questions.EVEN] if row.kind == "even" else [str(j) for j in row.top])
    if page == "scores":
        raw, divided = analysis.score_spread(trace(v), v.head)
        assert asked == questions.scores_spread(trace(v), v.config, v.head) and raw > 0 and divided > 0


# =========================================================================== 15 · the README on the plateau
def test_item15_the_readme_says_of_the_plateau_what_the_app_finds_for_the_shipped_run():
    """The README said the induction plateau is 'marked' while the Learn page, for the shipped run, finds no level
    stretch. The README's Learn row claims a plateau exactly when ui.sections.learn.words.plateau finds one (its words
    name 'a plateau' only for a level stretch: tests/test_learn.py) on the shipped run's losses and drop."""
    from conftest import ROOT
    from ui.lessons import shipped
    from ui.lessons.lesson import view_of
    from ui.sections.learn import words as learn_words
    from ui.sections.learn.facts import learn_run

    step = next(s for s in shipped.load("induction").steps if "{learn.plateau}" in s.text)
    trained = learn_run(view_of(step), compute)
    found = "plateau" in learn_words.plateau(trained.run.losses, compute.circuit(trained)[1])
    row = next(
        line
        for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| Learn: train a head")
    )
    claimed = "plateau" in row.replace("no plateau", "")
    assert claimed == found, row
    assert found or "no plateau" in row, row


# =========================================================================== no causal word without its measurement
# Every sentence of the app's prose (string literals of ui/ and pages/, docstrings aside, an f-string read with
# {…} for its values; the lessons' texts and notes) that holds 'so', 'because', 'causes', 'therefore', 'hence' or
# 'thus' is listed here, with what stands behind it: a number the same sentence or page prints, or the
# definition or arithmetic it spells out (a mask, a shared matrix, a seed), or a non-causal 'so' (degree,
# 'and so on'). A new one fails until it is worded without the causal word or listed with its measurement.
BEHIND = {
    # the arithmetic of the softmax, the mask and the exercise: each sentence prints the numbers it follows from
    (
        "ui/sections/softmax/facts.py",
        "sees one key only, so its weight 1 is forced",
    ): "one key: the softmax of one score is 1",
    ("ui/prose/stages.py", "Scaling is switched off, so nothing is divided"): "a switch's state",
    ("ui/sections/softmax/question.py", "its weight 1 is forced, so there is nothing to predict"): "one key: weight 1",
    ("ui/sections/scores/question.py", "its visible scores are all equal, so they have no spread"): "measured: std 0",
    (
        "ui/sections/exercise/words.py",
        "multiplied by one factor of its own, so the ratios inside a row are kept",
    ): "arithmetic",
    (
        "ui/sections/exercise/words.py",
        "so the ratios between a row's old weights, and their order, stay the same",
    ): "the deviation is printed",
    (
        "ui/sections/exercise/words.py",
        "(the causal mask makes its score −∞), so every factor is exactly 1",
    ): "the mask's −∞",
    ("ui/sections/exercise/words.py", "s = {…}, so e^s/Z = {…}"): "both numbers printed",
    ("ui/sections/exercise/words.py", "of its attention now goes to {…}, because {…}"): "the reason quotes s and e^s/Z",
    ("ui/sections/exercise/words.py", "so its score for them is −∞ (masked), e^−∞ = 0"): "the mask's −∞",
    ("ui/sections/exercise/words.py", "because every old query also scores the new key"): "the factors are printed",
    ("ui/sections/exercise/words.py", "because each old query scores the new key differently"): "each factor printed",
    ("ui/sections/exercise/words.py", "below rounding, so every factor is 1"): "the share is printed",
    ("ui/sections/exercise/words.py", "(at most {…} of a row), so they barely change"): "the share is printed",
    (
        "ui/sections/exercise/words_after.py",
        "because each output row is a weighted sum of the value vectors",
    ): "‖Δ‖ printed; the formula",
    (
        "ui/sections/exercise/words_after.py",
        "so the first {…} inputs and their scores are the same in both runs",
    ): "largest change printed",
    ("ui/sections/exercise/words_after.py", "already on in the sidebar, so this is the run above"): "a switch's state",
    (
        "ui/sections/exercise/words_after.py",
        "so nothing about them changes",
    ): "the changes are printed (0 up to rounding)",
    (
        "ui/sections/exercise/words_after.py",
        "The causal mask is on too, so no old query can see",
    ): "the mask's definition",
    (
        "ui/sections/exercise/words_after.py",
        "see the new token themselves, so they can change too",
    ): "each layer's change printed",
    ("ui/sections/exercise/words_after.py", "per entry), so the scores"): "the shift is printed",
    ("ui/sections/experiments/words.py", "so it sums to 1 over the keys it sees"): "the difference is printed",
    ("ui/sections/experiments/words.py", "the weights are so large that"): "degree, with the count printed",
    ("ui/sections/cell/worked.py", "so e^−∞ = 0 and the weight is exactly 0"): "the mask's −∞",
    ("ui/sections/experiments/mask.py", "and so on"): "not causal",
    ("ui/sections/experiments/mask.py", "computed at the last step, so it cannot change"): "the mask's definition",
    (
        "ui/sections/experiments/scaling.py",
        "each with variance 1, so the scores spread out like √d_head",
    ): "the page's random vectors measure it (variance_curve)",
    (
        "ui/sections/scores/words.py",
        "It adds up d_head products, so it spreads more the wider the head",
    ): "the Experiments page measures it (variance_curve)",
    (
        "ui/sections/qkv/words.py",
        "The same matrices serve every token, so equal input rows get equal Q, K and V rows",
    ): "one W_Q",
    ("ui/sections/inputs/words.py", "every word is different, so every row of X is different"): "the table's rows",
    (
        "ui/sections/qkv/words.py",
        "Without positions the same word therefore always gets the same rows",
    ): "one embedding row",
    ("ui/sections/qkv/words.py", "so it gets different rows"): "the position code is added",
    ("ui/sections/inputs/words.py", ", and so is every row of X + P"): "not causal: 'likewise'",
    ("ui/sections/scores/words.py", "the divisor is √1 = 1, so the division changes nothing"): "arithmetic",
    ("ui/prose/rows.py", "every row sees one key only, so every weight is 1 by force"): "one key: weight 1",
    ("ui/prose/rows.py", "so no row or head stands out"): "the spreads are printed",
    ("ui/prose/rows.py", "so no key stands out and none is named here"): "the spread is printed",
    ("ui/prose/rows.py", "sees only itself under the causal mask, so its weight 1 is forced"): "one key: weight 1",
    ("ui/prose/rows.py", "spread almost evenly ({…}), so no key is named"): "the spread is printed",
    # what the app does (its own rules: a seed, a list, a switch), said where it does it
    (
        "ui/prose/controls.py",
        "The effect is judged on mean ablation because it removes only what the head says about this input",
    ): "the rule's choice of knock-out; all three knock-outs are printed beside it",
    ("ui/sections/exercise/page.py", "tokens, so one more makes"): "a count",
    (
        "ui/sections/heads/page.py",
        "its own slice of Q, K and V, so each head can attend differently",
    ): "the slices are drawn",
    (
        "ui/sections/model/page.py",
        "reads the output of the one before, so its maps can mix",
    ): "the stack's definition ('can')",
    (
        "ui/sections/exercise/steps.py",
        "not in the vocabulary, so its vector comes from its own seeded stream",
    ): "the app's rule",
    ("ui/sections/learn/live.py", "asks for reduced motion, so the live curves and maps are hidden"): "the app's rule",
    ("ui/sections/model/grid.py", "from the weights sent once, so even"): "the app's drawing (tests/test_browser.py)",
    (
        "ui/sections/model/knockout.py",
        "no vocabulary to draw test sequences from, so no head is scored",
    ): "the app's rule",
    ("ui/sections/scores/maps.py", "One colour scale for both maps, so the shrinking shows"): "the app's drawing",
    (
        "ui/shell/sidebar.py",
        "fixed 0–1 colour scale, so a colour means the same weight on every map",
    ): "the app's drawing",
    ("ui/shell/state.py", "The token box is empty, so the"): "the app's rule",
    ("ui/shell/state.py", "tokens this model knows, so it reads"): "the vocabulary",
    ("ui/sections/exercise/words_new_token.py", "tokens this model knows, so it reads"): "the vocabulary",
    ("ui/sections/exercise/words_new_token.py", "so both give the same"): "the slider appends that token",
    ("ui/prose/knockout.py", "block with no task, so there is no accuracy to score"): "the app's rule",
    (
        "ui/prose/knockout.py",
        "followed by itself, so every token of the second half has an earlier copy",
    ): "the construction",
    (
        "ui/sections/learn/words.py",
        "pinned arithmetic, so these are the same weights on every machine",
    ): "factory.ship --check",
    ("ui/sections/learn/words.py", "so every machine shows the same model"): "factory.ship --check",
    ("ui/prose/preset_notes.py", "draws the embedding table first, so a new seed redraws X too"): "the seed's order",
    (
        "ui/prose/preset_notes.py",
        "from their own seed, 101, so the weights' seed does not move them",
    ): "the seed's order",
    (
        "ui/prose/preset_notes.py",
        "comes again, so a head that copies has something to copy",
    ): "how the window is picked",
    ("ui/prose/preset_notes.py", "so its rows past that need not do the task"): "the accuracy by position is printed",
    # the lessons' typed words
    ("lessons/induction.toml", "while its loss falls so slowly"): "degree, not causal",
    ("lessons/multi-head.toml", "one of the same shape, so blocks can be stacked"): "the shapes are printed",
    ("lessons/multi-head.toml", "so d_head is {qkv.d_head}"): "arithmetic",
    ("lessons/self-attention.toml", "so the input X is a {inputs.shape} matrix"): "the shape is printed",
    ("lessons/self-attention.toml", "so the {scores.T} tokens give a square table"): "the definition",
    ("lessons/self-attention.toml", "every old row gains a key, so its normaliser Z grows"): "the exercise prints Z",
    ("lessons/self-attention.toml", "so the new token is hidden from every old row"): "the mask's definition",
}


def _literal(node) -> str | None:
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{…}" for v in node.values)
    return None


def causal_sentences() -> list[tuple[str, str]]:
    """(file, sentence) for every sentence of the app's prose and the lessons with a causal word."""
    import ast

    from conftest import ROOT

    found = []
    for path in sorted([*ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        parts = {id(value) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for value in node.values}
        for node in ast.walk(tree):
            said = _literal(node)
            if said is not None and id(node) not in docs | parts:
                found += [(path.relative_to(ROOT).as_posix(), s) for s in re.split(r"(?<=[.!?:;])\s+", said)]
    for path in sorted(ROOT.glob("lessons/*.toml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            found += [(path.relative_to(ROOT).as_posix(), s) for s in re.split(r"(?<=[.!?:;])\s+", line)]
    return [(where, s) for where, s in found if CAUSAL.search(s)]


def test_no_causal_word_stands_without_its_measurement():
    unlisted = [
        (where, s)
        for where, s in causal_sentences()
        if not any(where == file and phrase in s for file, phrase in BEHIND)
    ]
    assert not unlisted, "\n".join(f"{where}: {s}" for where, s in unlisted)


def test_the_causal_word_scan_finds_what_it_must():
    """The scan sees a causal word in an f-string and in a lesson's text (a test that cannot fail is a defect)."""
    assert CAUSAL.search("the entries have std {…}, so the scores spread") and CAUSAL.search("Because it is")
    assert not CAUSAL.search("the soft mask") and not CAUSAL.search("also")
    found = causal_sentences()
    assert any(where.endswith(".toml") for where, _ in found) and any("{…}" in s for _, s in found)


@pytest.mark.parametrize(
    "params",
    [dict(layers=2, layer=1), dict(layers=3, layer=0), dict()],
    ids=["layers=2&layer=1", "layers=3&layer=0", "part4"],
)
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
