"""One model handle (issue 48, item 1): the frame works out once per run the model every page shows (a
services.handle.Handle on View.model), compute's cached functions take it, and only the trainer part and the
Learn page's explicit calls start a training.

* one render of each page under a trained preset (cold caches) looks the weights up once per distinct model
  and computes each stack once per distinct argument (engine.run and engine.measure.task_stack, counted);
* every cached function of ui/compute.py and ui/compute_experiments.py that derives a number from weights
  takes the model handle (a function on a trained run's own measures takes its Model, the handle's .trained:
  both are keyed by the weights' digest), and none takes a Training, which would resolve weights itself;
* with the weights neither shipped nor stored, every page under every trained preset opens, and every
  training goes through compute.train, called from ui/trainer.py or the Learn page (ui/sections/learn/),
  never from a getter. The "training" hands back the shipped run (loaded before it was hidden), so the test
  costs no training and the shipped measures, found by the weights' digest, spare the measuring: every
  trained preset, the text model's too.
"""

from __future__ import annotations

import collections
import inspect
import typing
from dataclasses import replace
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import engine
import engine.measure
from conftest import APP, ROOT, assert_clean
from factory import store
from services import learnruns, weights
from services.handle import Handle
from services.weights import Model, Training
from ui import compute, compute_experiments
from ui.shell import presets, site, state, url

PRESETS = [presets.TRAINED_PREFIX + t for t in presets.TRAINED_TASKS]
TRAINERS = ("ui/trainer.py", "ui/sections/learn/")  # where a training may start


def fresh() -> None:
    """Cold caches: every cached computation is computed again, every model looked up again."""
    st.cache_resource.clear()
    st.cache_data.clear()


def render(page: site.Page, params: dict[str, str], before=None) -> AppTest:
    """One render of `page` with these URL parameters: the frame's first run on the default page, then
    (caches cleared and `before` called) the page itself, one AppTest per page."""
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert_clean(at)
    fresh()
    if before is not None:
        before()
    if page.file != site.PAGES[0].file:
        at.switch_page(page.file)
    at.run()
    assert_clean(at)
    return at


# --------------------------------------------------------------------------- (a) once per model, once per argument
@pytest.fixture
def counted(monkeypatch):
    """Counters of weights.find per (config, training) and of engine.run / engine.measure.task_stack per argument."""
    finds, stacks = collections.Counter(), collections.Counter()
    real_find, real_run, real_task_stack = weights.find, engine.run, engine.measure.task_stack

    def find(cfg, training):
        finds[(repr(cfg), repr(training))] += 1
        return real_find(cfg, training)

    def run(cfg, tokens, params=None, ablate=(), means=None):
        drawn = None if params is None else engine.params.digest(params)
        stacks[("run", repr(cfg), tuple(tokens), drawn, tuple(ablate))] += 1
        return real_run(cfg, tokens, params, ablate, means)

    def task_stack(task, cfg, params, ids):
        stacks[("task_stack", repr(task), repr(cfg), engine.params.digest(params), tuple(ids))] += 1
        return real_task_stack(task, cfg, params, ids)

    monkeypatch.setattr(weights, "find", find)
    monkeypatch.setattr(engine, "run", run)
    monkeypatch.setattr(engine.measure, "task_stack", task_stack)
    yield finds, stacks
    fresh()


@pytest.mark.parametrize("page", site.PAGES, ids=lambda p: p.path or "inputs")
def test_one_render_looks_each_model_up_once_and_computes_each_stack_once(counted, page):
    """Under ?preset=trained-induction (before the handle: /scores looked the weights up 5 times, every other
    page 3 or 4 times; now once)."""
    finds, stacks = counted
    render(page, {"preset": "trained-induction"}, before=lambda: (finds.clear(), stacks.clear()))
    assert finds and max(finds.values()) == 1, finds
    assert max(stacks.values(), default=1) == 1, stacks
    if not page.trains:  # the frame's one lookup: the sidebar's model (the Learn page looks up its own run)
        controls, _ = url.from_params({"preset": "trained-induction"})
        wanted = (repr(state.to_config(controls)), repr(state.to_training(controls)))
        assert list(finds) == [wanted]


def test_the_view_carries_one_trained_handle_and_the_learn_page_none(monkeypatch):
    """The View a page runs with has the handle of its settings' trained model (an article's preset: the
    config's own draw); the Learn page, which trains its own runs, has none."""
    from ui.shell import frame, session

    seen = {}
    real = session.remember_view

    def keep(view):
        seen[view.page.path] = view.model
        real(view)

    monkeypatch.setattr(session, "remember_view", keep)
    assert frame.session is session
    render(site.by_path("model"), {"preset": "trained-induction"})
    trained = seen["model"]
    assert isinstance(trained, Handle) and trained.is_trained and trained.digest == trained.trained.digest
    render(site.by_path("scores"), {"preset": "day33"})
    drawn = seen["scores"]
    assert isinstance(drawn, Handle) and not drawn.is_trained and drawn.digest.startswith("init:")
    render(site.by_path("learn"), {"preset": "trained-induction"})
    assert seen["learn"] is None


def test_the_handle_is_keyed_by_its_digest():
    """Two handles of one setting are equal and hash alike (the digest stands for the weights); the initial
    draw's digest names its config, and its params are the engine's draw."""
    cfg = engine.Config()
    one, two = compute.handle(cfg, None), compute.handle(cfg, None)
    assert one == two and hash(one) == hash(two) and one.digest.startswith("init:")
    assert compute.KEYS[Handle](one) == one.digest
    assert engine.params.digest(one.params) == engine.params.digest(engine.init_params(cfg))
    other = compute.handle(engine.Config(seed=cfg.seed + 1), None)
    assert other.digest != one.digest


# --------------------------------------------------------------------------- (b) the handle in every signature
def cached(module) -> dict[str, typing.Callable]:
    """The module's own Streamlit-cached functions, by name (the function under the cache)."""
    found = {}
    for name, value in vars(module).items():
        inner = getattr(value, "__wrapped__", None)
        if inner is not None and getattr(inner, "__module__", None) == module.__name__ and hasattr(value, "clear"):
            found[name] = inner
    return found


def test_compute_is_found_cached():
    """The reader above sees the caches (a test that cannot fail is a defect)."""
    assert {"stack", "params", "knocked_stack", "extension", "_metrics", "histories"} <= set(cached(compute))
    assert {"scaling_rows", "init_sweep", "positions_test", "causal_test"} <= set(cached(compute_experiments))


NO_WEIGHTS = {"variance_curve", "random_rows"}  # random vectors, no model
OWN_DRAW = {"initial_stack"}  # the Learn page's maps before training: a config's own initial draw, no handle
PAGE_MODEL = {
    "stack",
    "params",
    "knocked_stack",
    "extension",
    "worked_cells",
    *cached(compute_experiments),
} - NO_WEIGHTS


@pytest.mark.parametrize("module", [compute, compute_experiments], ids=lambda m: m.__name__)
def test_every_cached_function_on_weights_takes_the_handle(module):
    for name, function in cached(module).items():
        hints = typing.get_type_hints(function, vars(module) | {"Handle": Handle, "Model": Model})
        given = {hints.get(p) for p in inspect.signature(function).parameters}
        assert Training not in given, f"{name} takes a Training: it would work the weights out itself"
        assert engine.Params not in given, f"{name} takes bare weights: key it by a handle's digest"
        if name in PAGE_MODEL:
            assert Handle in given, f"{name} derives from the page's model: it takes the handle"
        elif name in OWN_DRAW:
            assert engine.Config in given and Handle not in given and Model not in given, name
        elif name not in NO_WEIGHTS:  # a trained run's own measures: its Model (a handle's .trained), by digest
            assert Model in given, f"{name} derives from a trained run: it takes the Model, keyed by its digest"
    for name in ("in_use", "weights", "ready", "_stack", "_params", "_extension", "_scaling_rows", "_causal_test"):
        assert not hasattr(module, name), f"{name} is gone: a getter never trains, no _x/x pair"


def test_nothing_in_compute_takes_a_training_but_the_lookups_and_train():
    takes = {
        name
        for name, value in vars(compute).items()
        if inspect.isfunction(value) and value.__module__ == compute.__name__
        for hint in typing.get_type_hints(value, vars(compute)).values()
        if hint in (Training, Training | None)
    }
    assert takes == {"handle", "model", "train", "trained_handle"}, takes


# --------------------------------------------------------------------------- (c) who trains
@pytest.fixture
def unshipped(monkeypatch, tmp_path):
    """Weights neither shipped nor stored (an empty store, store.load_shipped finds nothing), and a record of
    every training: compute.train's callers (the file of the frame that called it) and the worker's runs
    (each handed the shipped run, loaded before it was hidden: a training that costs nothing)."""
    runs = {}
    for name in PRESETS:
        task, training = presets.task_of(name), presets.training(name)
        controls, _ = url.from_params({"preset": name})
        cfg = state.to_config(controls)
        for shape in {cfg, replace(cfg, n_layers=1)}:  # a stack's one-layer twin ships too (the Learn page's)
            runs[(task.name, repr(shape), training.steps)] = store.load_shipped(task.name, shape, training.steps, 0)
    monkeypatch.setenv(store.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(store, "load_shipped", lambda *args, **kwargs: None)
    weights.forget()
    fresh()
    callers, trained = [], []
    entry, real_worker = compute.train, learnruns.train

    def train(cfg, training, on_progress=None):
        here = inspect.stack()
        callers.append(Path(here[1].filename).resolve().relative_to(ROOT).as_posix())
        return entry(cfg, training, on_progress)

    def worker(task, cfg, steps, seed=0, lr=None, on_progress=None, **kwargs):
        files = [Path(frame.filename).resolve() for frame in inspect.stack()]
        assert Path(inspect.getsourcefile(entry)).resolve() in files, "a training that bypassed compute.train"
        trained.append((task, steps))
        run = runs.get((task, repr(cfg), steps))
        if run is None:  # a run that ships nowhere (the Learn page's one-layer comparison): trained for real
            return real_worker(task, cfg, steps, seed=seed, lr=lr, on_progress=on_progress, **kwargs)
        if on_progress is not None:
            on_progress(run.steps, run.steps, run.losses, run.accuracies, run.params)
        return run

    monkeypatch.setattr(compute, "train", train)
    monkeypatch.setattr(learnruns, "train", worker)
    yield callers, trained
    weights.forget()
    fresh()


@pytest.mark.parametrize("preset", PRESETS)
def test_without_weights_only_the_trainer_trains(unshipped, preset):
    """Every page under the preset: the first page's trainer part trains the sidebar's model (once), no other
    page and no getter trains again; the Learn page trains only by its own explicit calls (its replay of a
    two-layer run trains the one-layer comparison, "one layer, same budget")."""
    callers, trained = unshipped
    for page in site.PAGES:
        before = len(callers)
        render(page, {"preset": preset})
        allowed = "ui/sections/learn/" if page.trains else "ui/trainer.py"
        assert all(c.startswith(allowed) for c in callers[before:]), (page.path, callers[before:])
    assert callers.count("ui/trainer.py") == 1, callers  # one run per server, whatever page asks
    assert trained[0] == (presets.training(preset).task, presets.training(preset).steps), trained


def test_without_weights_the_learn_pages_train_button_trains_through_the_entry_point(unshipped):
    """Train on the Learn page (induction: two layers, so the one-layer comparison trains too): every training
    comes from the Learn page's explicit calls."""
    callers, trained = unshipped
    at = AppTest.from_file(APP, default_timeout=600)
    at.query_params["preset"] = "trained-induction"
    at.switch_page(site.by_path("learn").file)
    at.run()
    assert_clean(at)
    assert not callers, "opening the Learn page trains nothing"
    at.button(key="learn_train").click().run()
    assert_clean(at)
    assert callers and all(c.startswith("ui/sections/learn/") for c in callers), callers
    assert len(callers) == 2 and len(trained) == 2, (callers, trained)  # the run, then its one-layer twin
