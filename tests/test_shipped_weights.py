"""The trained presets' default runs ship whole in assets/weights/ (python -m factory.ship): they are what
training gives today in the pinned arithmetic (python -m factory.ship --check trains them again: every
checkpoint within 1e-6, the same predictions on 1,000 fresh sequences), small, and a fresh server shows
every trained preset with them, and replays them on the Learn page, without one training run."""

from __future__ import annotations

import dataclasses
import re

import pytest

import engine
from conftest import assert_clean, open_app, replay_steps
from engine.params import flatten, unflatten
from factory import evidence_files, ship, shipped_measures, shipped_roles, shipped_runs, store
from services import learnruns as training_process
from services import weights
from ui.shell import presets, site, state, url

TRAINED = [presets.TRAINED_PREFIX + t for t in presets.TRAINED_TASKS]


def test_every_trained_preset_ships_and_all_of_them_are_small():
    paths = [
        store.SHIPPED / file for task in presets.TRAINED_TASKS for one in shipped_runs.runs(task) for file in [one.file]
    ]
    assert all(p.is_file() for p in paths), "run: python -m factory.ship"
    measures = [
        evidence_files.evidence_path(
            store.SHIPPED,
            engine.params.digest(store.load_shipped(t, engine.TASKS[t].config, engine.TASKS[t].steps, 0).params),
        )
        for t in presets.TRAINED_TASKS
        if engine.TASKS[t].held_out is not None
    ]
    measures += [
        evidence_files.evidence_path(
            store.SHIPPED,
            engine.params.digest(  # every set of heads knocked out
                store.read(
                    store.SHIPPED / one.file,
                    one.config,
                    store.run_key(t, one.config, engine.TASKS[t].steps, shipped_runs.SEED),
                ).params
            ),
            evidence_files.MEASURES,
        )
        for t in presets.TRAINED_TASKS
        for one in shipped_runs.runs(t)
        if shipped_measures.ships_measures(t, one)
    ]
    assert len(measures) == len(paths) + 1, "the text model's evidence, and every shipped model's measures"
    roles = [  # every head's role with its controls (issue 50), beside each task's default run
        shipped_roles.roles_path(store.SHIPPED, engine.params.digest(shipped_roles.default_run(t)[1].params))
        for t in presets.TRAINED_TASKS
    ]
    assert all(p.is_file() for p in roles), "run: python -m factory.ship --roles"
    assert sorted(store.SHIPPED.glob("*.npz")) == sorted(paths + measures + roles), "nothing else ships"
    long = {
        store.SHIPPED / f"{t}.npz" for t in presets.TRAINED_TASKS if engine.TASKS[t].steps > shipped_runs.LONG_STEPS
    }
    total = sum(p.stat().st_size for p in paths if p not in long)
    assert total < 6_000_000, f"{total:,} bytes shipped for the letter and digit tasks"
    assert all(p.stat().st_size < 5_000_000 for p in long), "a long run (the text task's) ships within 5 MB"
    assert presets.BATCH_SEED == shipped_runs.SEED, "the shipped runs use the app's batch seed"


@pytest.mark.skipif(
    not ship.can_pin(),
    reason="the shipped weights are made with OpenBLAS's Haswell kernels "
    "(x86-64 with AVX2 and FMA); this CPU cannot run them",
)
@pytest.mark.parametrize("task", presets.TRAINED_TASKS)
def test_the_shipped_weights_are_what_training_gives(task):
    """Trained again in ship's pinned arithmetic (one BLAS kernel: training is chaotic, and another
    kernel's last bits grow to other weights), every weight within 1e-6 and every prediction on
    1,000 fresh sequences the same. A failure means training changed: python -m factory.ship."""
    done = ship.run_pinned(["--check", task], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    for file in [one.file for one in shipped_runs.runs(task)]:
        assert f"{file}: " in done.stdout and "largest gap" in done.stdout, done.stdout
    assert "DIFFERENT" not in done.stdout and "missing" not in done.stdout, done.stdout


def test_the_check_finds_weights_that_are_not_what_training_gives(tmp_path, monkeypatch):
    """The check above can fail: one weight moved by 2e-6 in a copy of the shipped file is found."""
    task = "first"
    t = engine.TASKS[task]
    shipped = store.load_shipped(task, t.config, t.steps, shipped_runs.SEED)
    theta = flatten(shipped.params).copy()
    theta[7] += 2e-6
    moved = unflatten(shipped.params, theta)
    store.save(
        dataclasses.replace(shipped, params=moved, checkpoints=shipped.checkpoints[:-1] + ((t.steps, moved),)),
        tmp_path,
        name=f"{task}.npz",
    )
    monkeypatch.setattr(store, "SHIPPED", tmp_path)
    assert not ship.check([task])
    assert ship.check(["max"]) is False, "a task without a file is reported, not passed"


@pytest.fixture
def no_training(monkeypatch, tmp_path):
    """A fresh server: empty caches (memory and disk), and any training run fails the test."""
    import streamlit as st

    monkeypatch.setenv(store.CACHE_ENV, str(tmp_path))
    st.cache_resource.clear()
    st.cache_data.clear()

    def refuse(*args, **kwargs):
        raise AssertionError("a training run on a fresh server")

    monkeypatch.setattr(engine, "train", refuse)
    monkeypatch.setattr(engine.training, "train", refuse)
    monkeypatch.setattr(training_process, "train", refuse)  # where the app trains: a job on the queue
    weights.forget()
    yield
    st.cache_resource.clear()  # later tests must not see weights drawn under this fixture
    weights.forget()


@pytest.mark.parametrize("preset", TRAINED)
def test_a_fresh_server_shows_every_trained_preset_without_training(no_training, preset):
    for page in [site.by_path("model").file, site.by_path("").file, site.by_path("softmax").file]:
        at = open_app(page, {"preset": preset}, timeout=60)
        assert_clean(at)
        assert at.title and not any("Training the block" in p.proto.text for p in at.get("progress"))
        controls, _ = url.from_params({"preset": preset})
        assert at.session_state["preset"] == preset
        assert (
            store.load_shipped(
                presets.training(preset).task,
                state.to_config(controls),
                presets.training(preset).steps,
                presets.BATCH_SEED,
            )
            is not None
        )


def test_a_fresh_learn_page_offers_training_without_running_it(no_training):
    at = open_app(site.by_path("learn").file, {"preset": "trained-induction"}, timeout=60)
    assert_clean(at)
    assert any(b.key == "learn_train" for b in at.button), "the student still presses Train to watch it learn"


LIVE = [t for t in presets.TRAINED_TASKS if engine.TASKS[t].held_out is None]  # text: shown at once (test_text_pages)


@pytest.mark.parametrize("task", LIVE)
def test_train_at_the_defaults_replays_the_shipped_run(no_training, task, monkeypatch):
    """Pressed at a task's defaults, Train replays the shipped run (its progress drawn, paced at its own
    training time) instead of training a second model: the replay is the shipped run's, and the page says
    so in one line before and names the weights after."""
    paced = [0.0]  # a clock that the waits move, not time
    monkeypatch.setattr(weights, "_clock", lambda: paced[0])
    monkeypatch.setattr(weights, "_sleep", lambda s: paced.__setitem__(0, paced[0] + s))
    at = open_app(site.by_path("learn").file, {"task": task}, timeout=60)
    assert any("Train replays the run that ships with the app" in c.value for c in at.caption)
    at.button(key="learn_train").click().run(timeout=120)
    assert_clean(at)
    t = engine.TASKS[task]
    shipped = store.load_shipped(task, t.config, t.steps, shipped_runs.SEED)
    assert replay_steps(at) == [s for s, _ in shipped.checkpoints]
    assert any(
        "the run that ships with the app" in c.value and weights.digest(shipped.params)[:8] in c.value
        for c in at.caption
    )
    assert paced[0] == pytest.approx(shipped.seconds, rel=1e-9), "replayed over the run's own training time"


def test_ship_refuses_a_cpu_it_cannot_pin_and_an_unknown_task(monkeypatch, capsys):
    monkeypatch.setattr(ship, "pinned", lambda: False)
    monkeypatch.setattr(ship, "can_pin", lambda: False)
    assert ship.ship_or_check(["--check"]) == 2 and "AVX2 and FMA" in capsys.readouterr().err
    assert ship.ship_or_check(["nope"]) == 2 and "unknown task 'nope'" in capsys.readouterr().err


def test_the_readme_types_no_step_of_a_trained_run():
    """A trained number comes from the run the app shows, never from prose (issue 36 §4): the README's
    picture of the Learn page said induction's loss drops 'at step 329', where the shipped run's drop is at
    step 333. No sentence of it ties the loss's drop to a step, and no step it names is a shipped run's drop."""
    from conftest import ROOT
    from engine.loss_curve import loss_drop_step

    readme = " ".join((ROOT / "README.md").read_text().split())
    assert not re.search(r"drop[^.\]]{0,60}\bsteps? \d", readme)
    named = {int(n.replace(",", "")) for n in re.findall(r"\bsteps? (\d[\d,]*)", readme)}
    drops = {
        loss_drop_step(store.load_shipped(t, engine.TASKS[t].config, engine.TASKS[t].steps, shipped_runs.SEED).losses)
        for t in presets.TRAINED_TASKS
    }
    assert not named & drops, named & drops
