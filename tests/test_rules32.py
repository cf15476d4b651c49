"""Issue 32's rules, over a grid of settings: both articles, every trained preset at its own length and at
64 tokens, β 0 and 8, layers 1–3, a picked cell on every page that has one, and every poll question at each.

* one quantity, one function: the poll's right answers are the page's own reading (the softmax table's
  'attends most to', the scaled-scores notice's measured spread, the exercise's verdicts);
* the poll asks only what the page can answer (or says why not), and every question it asks can be stored;
* words for magnitudes follow one scale, a 'from A to B' range never names one item twice, and no factor that
  is 1 up to rounding is written as 1 − a share;
* a statistic from fewer than MIN_CASES cases is not stated as a finding.
Trained numbers are read from the run in use (ui.compute at the same settings)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from rules import off_scale, one_minus_tiny, same_item_twice, too_few
from test_words import notice, text_of

from conftest import assert_clean, handle_of, open_app, tables
from services.poll.store import Store
from ui import compute
from ui.poll import questions
from ui.prose import exercise as exercise_words
from ui.prose.numbers import MIN_CASES, parse
from ui.sections.exercise import keys as exercise_keys
from ui.sections.experiments import common as experiment_keys
from ui.shell import presets, site, state, url

PAGE = {p.path: p.file for p in site.PAGES}
TRAINED = [presets.TRAINED_PREFIX + t for t in presets.TRAINED_TASKS]
GRID = (
    [{"preset": "part4"}, {"preset": "day33"}]
    + [{"preset": p} for p in TRAINED]
    + [{"preset": p, "seq_len": "64"} for p in TRAINED]
    + [{"preset": p, "beta": b} for p in ("part4", "trained-max") for b in ("0", "8")]
    + [
        {"preset": "trained-induction", "layers": "1"},
        {"preset": "day33", "layers": "2", "layer": "1"},
        {"layers": "3", "layer": "2", "causal": "1"},
    ]
)
CELL_PAGES = ("scores", "softmax", "heads")


def ident(p: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in p.items())


def setting(params):
    c, _ = url.from_params(params)
    cfg, tokens, training = state.to_config(c), state.to_tokens(c).words, presets.training(c.preset)
    return c, cfg, tokens, training, compute.trace(handle_of(cfg, training), tokens, c.layer)


def cell(T: int) -> dict[str, str]:
    return {"cell": f"{T - 1},{max(0, T - 3)}"}


def page_text(at) -> str:
    shown = "\n".join(" ".join(map(str, t.astype(str).to_numpy().ravel())) for t in tables(at))
    return (text_of(at) + "\n" + shown + "\n" + " ".join(c.value for c in at.sidebar.caption)).replace("\\", "")


def broken(text: str) -> list[str]:
    return [*same_item_twice(text), *one_minus_tiny(text), *off_scale(text), *too_few(text, MIN_CASES)]


@pytest.mark.parametrize("params", GRID, ids=ident)
def test_words_follow_the_rules_on_every_page(params):
    """'from A to B', factors of 1, the one scale of magnitude words, small samples: every page, the
    exercise revealed with each prediction, every experiment."""
    c, cfg, tokens, training, t = setting(params)
    found = []
    for page in ("inputs", "qkv", "scores", "softmax", "heads", "output", "model", "exercise", "experiments"):
        at = open_app(PAGE[page], {**params, **(cell(t.T) if page in CELL_PAGES else {})}, timeout=300)
        assert_clean(at)
        texts = [page_text(at)]
        if page == "exercise":
            for choice in exercise_words.PREDICTIONS:
                at.radio(key=exercise_keys.PREDICTION).set_value(choice).run()
                at.button(key=exercise_keys.REVEAL).click().run()
                assert_clean(at)
                texts.append(page_text(at))
        if page == "experiments":
            for section in ("init", "positions", "mask"):
                at.segmented_control(key=experiment_keys.SECTION).set_value(section).run()
                assert_clean(at)
                texts.append(page_text(at))
        found += [f"{page}: {hit}" for text in texts for hit in broken(text)]
    assert not found, found


@pytest.mark.parametrize("params", GRID, ids=ident)
def test_the_poll_grades_what_the_page_says(params, tmp_path):
    """Every poll question at this setting: asked only where the page can answer it, its right answers the
    page's own reading, and storable; where it is not asked, a reason is given."""
    c, cfg, tokens, training, t = setting(params)
    store = Store(tmp_path / "poll.sqlite3")
    room = store.create_room()
    h = c.head

    # the top key, for every row (the presenter may pick any), against the softmax page's table
    at = open_app(PAGE["softmax"], {**params, **cell(t.T)}, timeout=300)
    read = [
        str(x).replace("\\", "")
        for x in next(x for x in tables(at) if "attends most to" in x.columns)["attends most to"]
    ]
    for row in range(t.T):
        try:
            q = questions.softmax_top_key(t, h, row, c.beta)
        except questions.Unanswerable as why:
            assert read[row] == "(its only key)" or t.visible[row].sum() + 1 > 16, (row, str(why))
            continue
        if q.answers == [questions.EVEN]:
            assert read[row] == "none: spread evenly", (row, read[row])
        else:
            assert read[row].removesuffix(" (tie)").split(" = ") == [t.labels[int(j)] for j in q.answers], row
        store.ask(room.code, room.key, "softmax", q.prompt, q.options, q.answers)

    # the spread after ÷√d: the factor graded right is the one the page's notice measures
    said = notice(open_app(PAGE["scores"], {**params, **cell(t.T)}, timeout=300))
    try:
        q = questions.scores_spread(t, cfg, h)
    except questions.Unanswerable:
        assert "Scaling is switched off" in said
    else:
        stds = re.search(r"\(std (\S+) → (\S+)\)", said)
        right = dict(q.options)[q.answers[0]]
        if stds:  # d_head > 1: the measured ratio
            ratio = parse(stds.group(2)) / parse(stds.group(1))
            assert f"1/√{cfg.d_head}" in right and ratio == pytest.approx(cfg.d_head**-0.5, rel=0.02)
        else:  # d_head = 1: nothing changes
            assert "changes nothing" in said and q.answers == ["same"]
        store.ask(room.code, room.key, "scores", q.prompt, q.options, q.answers)

    # the prediction: right exactly where the revealed page says right, for each prediction
    ext = compute.extension(handle_of(cfg, training), tokens, state.next_word(c), cfg)
    q = questions.exercise_prediction(ext, h)
    page = open_app(PAGE["exercise"], params, timeout=300)
    for choice in exercise_words.PREDICTIONS:
        page.radio(key=exercise_keys.PREDICTION).set_value(choice).run()
        page.button(key=exercise_keys.REVEAL).click().run()
        verdicts = [b.value for b in page.success if "You predicted" in b.value]
        assert bool(verdicts) == (choice in q.answers), (choice, q.answers)
    store.ask(room.code, room.key, "exercise", q.prompt, q.options, q.answers)
    assert {x.qid for x in store.questions(room.code)} >= {"exercise"}
    store.close()


@pytest.mark.parametrize("preset", TRAINED)
def test_a_position_is_called_done_only_on_enough_sequences(preset):
    """'does the task up to position N' is a finding about each position up to N: each must be scored in at
    least MIN_CASES of the sequences it was measured on, or the page must say there are too few to tell."""
    at = open_app(PAGE["softmax"], {"preset": preset, "seq_len": "64"}, timeout=300)
    warned = " ".join(w.value for w in at.warning).replace("\\", "")
    upto = re.search(r"up to position (\d+)", warned)
    if upto is None:
        return
    task = presets.task_of(preset)
    _, targets = task.sample(np.random.RandomState(compute.METRICS_SEED), compute.sequences(task, 64), 64)
    counts = (targets >= 0).sum(axis=0)[: int(upto.group(1)) + 1]
    few = [i for i, n in enumerate(counts) if 0 < n < MIN_CASES]
    assert not few or "too few" in warned, (few, counts[few].tolist(), warned)


def test_the_rules_catch_what_they_must():
    """The checks above, on the issue's own sentences (they must fail) and on true ones (they must not)."""
    assert same_item_twice("the factors differ, from 1 − 1.4·10⁻²³ (‘5 (0)’) to 1 − 1.4·10⁻²³ (‘5 (0)’).")
    assert same_item_twice("factors from 0.9998 (‘E’) to 1 (‘E’), so")
    assert not same_item_twice("the factors run from 0.7519 (‘AI’) to 0.8056 (‘builds’). From 0 to 9.")
    assert one_minus_tiny("every factor is 1 − 1.4·10⁻²³.") and not one_minus_tiny("multiplied by 1 − 4.8·10⁻⁶")
    assert off_scale("(s = 0.160, so e^s/Z = 0.3299: e^s is large next to its old total Z)")
    assert not off_scale("(s = 0.160, so e^s/Z = 0.3299: e^s is 33% of its old total Z)")
    assert off_scale("moved the vectors by 0.500 on average per entry, larger than the 0.300 the residual")
    assert off_scale("the change is small next to the inputs")  # a magnitude word, no ratio
    assert too_few("right in 2 of 3 sequences", MIN_CASES) and not too_few("right in 20 of 200 sequences", MIN_CASES)


def test_magnitude_words_come_from_the_one_scale_only():
    """No page, section or sentence writes its own 'large/small/tiny next to': numbers.next_to does."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    own = re.compile(r"\b(?:large|small|tiny|huge) next to\b|\blarger than (?:the|its)\b")
    found = [
        f"{path.relative_to(root)}:{n}"
        for folder in ("ui", "pages")
        for path in (root / folder).rglob("*.py")
        if path.name != "numbers.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if own.search(line)
    ]
    assert not found, found
