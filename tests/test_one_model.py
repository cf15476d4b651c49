"""One trained model per setting (issue 31): the model view, the Learn page's replay at its last step, its
circuit sentence and the class poll's right answer report one model's numbers, before a Learn run and
after it, whichever run is in use: the shipped one, one injected in its place, or one trained here for a
changed setting. Every number is read from the pages and held against the engine's numbers of the one
model the weights service gives for that setting (never against a run trained in this test: training
is chaotic, and another CPU's kernels give other weights)."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace

import numpy as np
import pytest

import engine
import engine.evidence
from conftest import assert_clean, attention_maps, open_app, replay_steps, replay_to, tables
from factory import store
from services import learnruns, weights
from ui import compute
from ui.poll import questions
from ui.shell import presets, site, state, url

MODEL, LEARN, SOFTMAX = (site.by_path(p).file for p in ("model", "learn", "softmax"))
TASKS = [t for t in presets.TRAINED_TASKS if engine.TASKS[t].held_out is None]  # text: tests/test_text_pages.py


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A fresh server with an empty disk store, and a count of the trainings it starts."""
    import streamlit as st

    monkeypatch.setenv(store.CACHE_ENV, str(tmp_path / "cache"))
    trained, real = [], learnruns.train

    def counted(*args, **kwargs):
        trained.append(args[:3])
        return real(*args, **kwargs)

    monkeypatch.setattr(learnruns, "train", counted)
    monkeypatch.setattr(weights, "_sleep", lambda s: None)  # replays without waiting
    weights.forget()
    st.cache_resource.clear()
    st.cache_data.clear()
    yield trained
    weights.forget()
    st.cache_resource.clear()
    st.cache_data.clear()


def _in_use(params: dict) -> weights.Model:
    """The model the service gives for a link's settings (the one every page must show)."""
    controls, _ = url.from_params(params)
    return compute.model(state.to_config(controls), state.to_training(controls))


SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def _number(text: str) -> float:
    """A number as the app prints it: 0.77, −1.2 or 5.0·10⁻⁹ (ui.prose.numbers.fmt)."""
    text = text.replace("\\", "").replace("−", "-")
    if "·10" in text:
        mantissa, power = text.split("·10")
        return float(mantissa) * 10.0 ** int(power.translate(SUPERSCRIPT))
    return float(text)


def _caption_digest(at, others: int = 0) -> str:
    """The digest of the weights the page says it shows (the first named; `others` more may be named:
    the Learn page's one-layer model)."""
    said = " ".join(c.value for c in at.caption)
    found = re.findall(r"weights ([0-9a-f]{8})", said)
    assert found, said
    assert len(set(found)) <= 1 + others, found
    return found[0]


def _model_view(params: dict) -> dict:
    """The model view's numbers: accuracy, each head's knock-out cost, each head's role scores, the digest."""
    at = open_app(MODEL, params, timeout=300)
    assert_clean(at)
    accuracy = float(next(m.value for m in at.metric if m.label == "accuracy").rstrip("%")) / 100
    roles = next(t for t in tables(at) if "strongest measured role" in t.columns)
    scores = {}
    for i, name in enumerate(roles["map"]):
        layer, head = (int(x) for x in re.findall(r"\d+", name))
        scores[(layer, head)] = {
            col: _number(roles[col][i])
            for col in roles.columns
            if col not in ("map", "strongest measured role", "label, with its controls", "knocked out")
        }
    costs = {}
    for pair in scores:
        knocked = open_app(MODEL, {**params, "ablate": f"{pair[0]}.{pair[1]}"}, timeout=300)
        assert_clean(knocked)
        delta = next(m.delta for m in knocked.metric if m.label == "accuracy")
        costs[pair] = -float(delta.split()[0].replace("−", "-"))
    return {"accuracy": accuracy, "costs": costs, "roles": scores, "digest": _caption_digest(at)}


def _learn(params: dict) -> dict:
    """The Learn page's numbers after Train (a replay of the run in use, or a training)."""
    at = open_app(LEARN, params, timeout=300)
    if any(b.key == "learn_train" for b in at.button):
        at.button(key="learn_train").click().run(timeout=600)
    assert_clean(at)
    replay_to(at, replay_steps(at)[-1], timeout=300)
    notice = next(s.value for s in at.success if "What to notice" in s.value).replace("\\", "")
    right = re.search(r"predicts (every one of|([\d.]+)% of) the (?:scored )?targets of 1,000", notice)
    accuracy = 1.0 if right.group(1) == "every one of" else float(right.group(2)) / 100
    costs = {}  # each head's knock-out: accuracy before → after, in points
    for n, h, effect in re.findall(r"layer (\d) head (\d): (.*?)(?:; |\. With)", notice):
        a, b = re.search(
            r"accuracy (?:falls from |rises from |barely moves \()([\d.]+)% (?:to|→) ([\d.]+)%", effect
        ).groups()
        costs[(int(n), int(h))] = float(a) - float(b)
    shares = {(int(n), int(h)): float(p) / 100 for n, h, p in re.findall(r"layer (\d) head (\d) \((\d+)%\)", notice)}
    return {
        "accuracy": accuracy,
        "costs": costs,
        "shares": shares,
        "notice": notice,
        "digest": _caption_digest(at, others=1),
    }


def _softmax_poll(params: dict, model: weights.Model) -> None:
    """The poll's right answers on the softmax page are the top keys of a row the page draws (the last row a
    question can offer every key of), read from the same model."""
    at = open_app(SOFTMAX, params, timeout=300)
    shown = np.nan_to_num(attention_maps(at)[0]["values"])
    T = len(shown)
    controls, _ = url.from_params(params)
    trace = engine.run(state.to_config(controls), state.to_tokens(controls).words, model.params).layers[0]
    row = min(T, questions.MAX_OPTIONS - 1) - 1
    asked = questions.softmax_top_key(trace, 0, row)
    np.testing.assert_allclose(shown[row], trace.weights[0, row], rtol=5e-3, atol=1e-12)  # 3 significant digits
    for answer in asked.answers:
        assert answer == "none" or shown[row, int(answer)] == pytest.approx(shown[row].max(), rel=5e-3)
    if "none" not in asked.answers:
        assert int(np.argmax(shown[row])) in {int(a) for a in asked.answers}


def _agree(task: str, params: dict, learn_params: dict) -> weights.Model:
    """Every page's numbers at these settings are the one model's."""
    view, learn = _model_view(params), _learn(learn_params)
    model = _in_use(params)
    t = engine.TASKS[task]
    assert view["digest"] == learn["digest"] == model.digest[:8]
    expected = engine.evaluate(t, model.config, model.params)
    assert view["accuracy"] == pytest.approx(expected, abs=5e-4) and learn["accuracy"] == pytest.approx(
        expected, abs=5e-4
    )
    for pair, cost in view["costs"].items():  # the model view's cost of each head ...
        knocked = engine.evaluate(t, model.config, model.params, ablate=(pair,))
        assert cost == pytest.approx((expected - knocked) * 100, abs=0.05 + 1e-9)
        if pair in learn["costs"]:  # ... is the Learn page's, to its decimal
            # two roundings: the Learn page prints both accuracies to 0.1%, the model view their difference
            assert learn["costs"][pair] == pytest.approx(cost, abs=0.1 + 1e-9), (pair, learn["notice"])
        elif model.config.n_layers > 1:
            assert abs(cost) <= 2.05, (pair, cost, learn["notice"])  # "moves accuracy by at most 2 points"
    tokens, targets = t.sample(np.random.RandomState(compute.SHARE_SEED), compute.SHARE_SEQUENCES)
    scores = engine.evidence.head_scores(model.config, model.params, tokens, t, targets)
    for pair, shown in view["roles"].items():
        for name, value in scores.roles().items():
            assert shown[name.replace("\\", "")] == pytest.approx(value[pair], abs=0.005 + 1e-9), (pair, name)
    for pair, share in learn["shares"].items():  # "layer 0 head 1 (77%)": a role's score
        assert any(abs(share - value[pair]) <= 0.005 + 1e-9 for value in scores.roles().values()), (pair, share)
    _softmax_poll(params, model)
    return model


@pytest.mark.parametrize("task", TASKS)
def test_every_page_shows_the_shipped_model_before_and_after_a_learn_run(fresh, task):
    preset = {"preset": presets.TRAINED_PREFIX + task}
    before = _model_view(preset)
    model = _agree(task, preset, {"task": task})
    after = _model_view(preset)
    assert before == after and model.origin == "shipped"
    assert not fresh, "the defaults ship: nothing is trained (a deep task's one-layer model ships too)"


def _inject(monkeypatch, tmp_path, task: str) -> engine.TrainRun:
    """A shipped folder whose `task` file holds another run (batch seed 1) under the default key."""
    folder = tmp_path / "shipped"
    shutil.copytree(store.SHIPPED, folder)
    t = engine.TASKS[task]
    other = replace(engine.train(task, seed=1), seed=0)  # another run, stored as the default one
    store.save(other, folder, name=f"{task}.npz")
    monkeypatch.setattr(store, "SHIPPED", folder)
    assert store.load_shipped(task, t.config, t.steps, 0) is not None
    return other


@pytest.mark.parametrize("task", ["induction", "previous"])
def test_an_injected_run_is_shown_everywhere_and_mixed_with_nothing(fresh, task, monkeypatch, tmp_path):
    """On a machine whose kernels match the pinned ones a local run and the shipped one coincide, so a
    differing run is injected in the shipped one's place: every page shows it, none the real one."""
    real = weights.digest(store.load_shipped(task, engine.TASKS[task].config, engine.TASKS[task].steps, 0).params)
    other = _inject(monkeypatch, tmp_path, task)
    preset = {"preset": presets.TRAINED_PREFIX + task}
    model = _agree(task, preset, {"task": task})
    assert model.digest == weights.digest(other.params) != real


def test_a_changed_weights_seed_trains_once_and_every_page_shows_that_run(fresh):
    params = {"preset": "trained-induction", "seed": "5"}
    shipped = _in_use({"preset": "trained-induction"})
    for page in ("inputs", "softmax", "model", "heads"):
        at = open_app(site.by_path(page).file, params, timeout=300)
        assert_clean(at)
        assert _caption_digest(at) == _in_use(params).digest[:8] != shipped.digest[:8]
    assert len(fresh) == 1, fresh
    view = _model_view(params)
    model = _in_use(params)
    assert view["accuracy"] == pytest.approx(engine.evaluate("induction", model.config, model.params), abs=5e-4)
    assert len(fresh) == 1, "knock-outs and roles read the same run"


def test_a_changed_batch_seed_trains_once_on_the_learn_page_and_its_link_shows_that_run(fresh):
    learn = _learn({"task": "induction", "train_seed": "5"})
    trained = len(fresh)
    assert trained == 2, fresh  # the run and the one-layer model beside it
    at = open_app(LEARN, {"task": "induction", "train_seed": "5"}, timeout=300)
    link = next(m.value for m in at.markdown if "with these weights" in m.value)
    query = dict(part.split("=") for part in re.search(r"\(model\?([^)]*)\)", link).group(1).split("&"))
    assert query == {"preset": "trained-induction", "train_seed": "5"}
    view = _model_view(query)
    assert view["digest"] == learn["digest"] == _in_use(query).digest[:8]
    assert view["accuracy"] == pytest.approx(learn["accuracy"], abs=5e-4)
    for pair, cost in learn["costs"].items():
        assert view["costs"][pair] == pytest.approx(cost, abs=0.1 + 1e-9)
    assert len(fresh) == trained, "the model view trained nothing: it shows the Learn page's run"
