"""Finished runs kept on disk (factory.store): a sound file comes back exactly (a real default run of
every task too, with every checkpoint it saved); a corrupt, cut-short or stale one is never loaded but
trained again; writers racing on one file cannot leave a broken one; two servers that trained the same
setting end with one stored run and both show it."""

from __future__ import annotations

import multiprocessing
from dataclasses import replace

import numpy as np
import pytest

import engine
import engine.params
from engine.params import flatten
from factory import shipped_runs, store

TASK, STEPS, SEED = "first", 12, 3  # a run small enough to train many times


@pytest.fixture(scope="module")
def run():
    return engine.train(TASK, steps=STEPS, seed=SEED)


def _load(folder):
    return store.load_run(folder, TASK, engine.TASKS[TASK].config, STEPS, SEED)


def _same(a: engine.TrainRun, b: engine.TrainRun, seconds: bool = True) -> None:
    assert (a.task, a.config, a.seed, a.steps, a.batch, a.lr) == (b.task, b.config, b.seed, b.steps, b.batch, b.lr)
    assert not seconds or a.seconds == b.seconds
    assert np.array_equal(a.losses, b.losses) and np.array_equal(a.accuracies, b.accuracies)
    assert [s for s, _ in a.checkpoints] == [s for s, _ in b.checkpoints]
    for (_, p), (_, q) in zip(a.checkpoints, b.checkpoints):
        assert np.array_equal(flatten(p), flatten(q))
    assert np.array_equal(flatten(a.params), flatten(b.params))


def test_a_saved_run_comes_back_exactly(run, tmp_path):
    path = store.save(run, tmp_path)
    assert path.parent == tmp_path and path.name == store.file_name(store.key_of(run))
    _same(_load(tmp_path), run)
    loaded = _load(tmp_path)
    assert not loaded.params.w_q.flags.writeable, "stored weights are read-only, as trained ones are"
    assert [p.name for p in tmp_path.iterdir()] == [path.name], "no temporary file is left behind"


def test_another_run_is_not_found(run, tmp_path):
    store.save(run, tmp_path)
    cfg = engine.TASKS[TASK].config
    assert store.load_run(tmp_path, TASK, cfg, STEPS + 1, SEED) is None
    assert store.load_run(tmp_path, TASK, cfg, STEPS, SEED + 1) is None
    assert store.load_run(tmp_path, TASK, replace(cfg, seed=cfg.seed + 1), STEPS, SEED) is None
    assert store.load_run(None, TASK, cfg, STEPS, SEED) is None


def _corrupt(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte in the middle
    path.write_bytes(bytes(data))


def _cut_short(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # a write that stopped half way


def _altered_numbers(path):
    """A file rewritten with other weights but the old checksum: only the checksum can tell."""
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["final"] = (arrays["final"] * (1 + 1e-6)).astype(arrays["final"].dtype)  # other numbers, same dtype
    np.savez_compressed(path, **arrays)


def _stale(path, monkeypatch):
    monkeypatch.setattr(engine.training, "VERSION", engine.training.VERSION + 1)  # the training code changed


def _app_train(monkeypatch, folder):
    """ui.compute.train as a fresh server runs it (nothing in memory), on `folder`; and a list that
    counts its engine.train calls."""
    from services import weights
    from ui import compute
    from ui.shell import presets

    monkeypatch.setenv(store.CACHE_ENV, str(folder))
    from services import learnruns as training_process

    calls, real = [], training_process.train  # the app trains as a job on the queue

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(training_process, "train", counting)

    def fresh_server():
        weights.forget()  # a restart: memory is empty
        return compute.train(engine.TASKS[TASK].config, presets.Training(task=TASK, steps=STEPS, seed=SEED)).run

    return fresh_server, calls


def test_a_restart_reads_the_stored_run(run, tmp_path, monkeypatch):
    fresh_server, calls = _app_train(monkeypatch, tmp_path)
    first = fresh_server()
    assert len(calls) == 1 and any(tmp_path.glob("*.npz"))
    _same(fresh_server(), first)
    assert len(calls) == 1, "the second server read the first one's run"


@pytest.mark.parametrize("damage", [_corrupt, _cut_short, _altered_numbers, _stale, "empty", "missing"])
def test_a_bad_file_is_trained_again_not_loaded(run, tmp_path, monkeypatch, damage):
    path = store.save(run, tmp_path)
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "missing":
        path.unlink()
    elif damage is _stale:
        _stale(path, monkeypatch)
    else:
        damage(path)
    assert _load(tmp_path) is None, "a damaged or stale file must not load"
    fresh_server, calls = _app_train(monkeypatch, tmp_path)
    again = fresh_server()
    assert len(calls) == 1, "trained again"
    assert np.allclose(flatten(again.params), flatten(run.params), rtol=0, atol=1e-12)
    _same(_load(tmp_path), again)  # and the sound run replaced the bad file
    fresh_server()
    assert len(calls) == 1, "the next server reads it"


def test_a_folder_that_refuses_files_only_costs_the_keeping(run, tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    fresh_server, calls = _app_train(monkeypatch, blocked)
    again = fresh_server()
    assert len(calls) == 1 and np.allclose(flatten(again.params), flatten(run.params), rtol=0, atol=1e-12)


def test_the_cache_folder_is_configurable(monkeypatch, tmp_path):
    monkeypatch.delenv(store.CACHE_ENV, raising=False)
    assert store.cache_folder() == store.DEFAULT_CACHE
    monkeypatch.setenv(store.CACHE_ENV, str(tmp_path))
    assert store.cache_folder() == tmp_path
    monkeypatch.setenv(store.CACHE_ENV, "off")
    assert store.cache_folder() is None


def _writer(folder, rounds):
    run = engine.train(TASK, steps=STEPS, seed=SEED)
    for _ in range(rounds):
        store.save(run, folder)


def _reader(folder, rounds, results):
    seen = {"sound": 0, "absent": 0}
    for _ in range(rounds):
        loaded = _load(folder)
        seen["absent" if loaded is None else "sound"] += 1
        if loaded is not None:
            assert loaded.steps == STEPS
    results.put(seen)


def test_racing_writers_never_leave_a_broken_file(run, tmp_path):
    """Four processes write the same run 30 times each while another reads it: every read finds
    either no file yet or a sound one (a file that failed its checks would read as absent, so absent
    reads after the first write are counted too), and the file left at the end is sound."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    writers = [context.Process(target=_writer, args=(tmp_path, 30)) for _ in range(4)]
    reader = context.Process(target=_reader, args=(tmp_path, 200, results))
    for process in writers:
        process.start()
    while not any(tmp_path.glob("*.npz")):  # the first file is in place
        pass
    reader.start()
    for process in [*writers, reader]:
        process.join(120)
        assert process.exitcode == 0
    seen = results.get(timeout=10)
    assert seen == {"sound": 200, "absent": 0}, seen
    _same(_load(tmp_path), run, seconds=False)  # each writer timed its own run
    assert len(list(tmp_path.iterdir())) == 1, "every temporary file was renamed or removed"


# --------------------------------------------------------------------------- whole default runs, replicas
@pytest.mark.parametrize("task", list(engine.TASKS))
def test_a_real_default_run_of_every_task_comes_back_whole(task, tmp_path):
    """A default run keeps extra checkpoints across its loss's drop (more than checkpoint_steps gives): the
    store reads the steps it wrote, so every one of them comes back. Trained here (the long text run: the
    one that ships, too long to train in a test)."""
    t = engine.TASKS[task]
    run = engine.train(task) if t.steps <= shipped_runs.LONG_STEPS else store.load_shipped(task, t.config, t.steps, 0)
    store.save(run, tmp_path)
    loaded = store.load_run(tmp_path, task, t.config, t.steps, 0)
    assert loaded is not None, "a real run must come back"
    _same(loaded, run)
    if t.steps <= shipped_runs.LONG_STEPS:  # the shipped long run keeps a few of its steps
        assert len(run.checkpoints) >= len(store.training.checkpoint_steps(t.steps)), "the run's own count"


def test_a_file_whose_steps_do_not_make_a_whole_run_is_refused(run, tmp_path):
    cut = replace(run, checkpoints=run.checkpoints[:-1])  # no checkpoint at the last step
    store.save(cut, tmp_path, name=store.file_name(store.key_of(run)))
    assert _load(tmp_path) is None


def test_the_first_run_stored_wins_and_the_second_is_dropped(run, tmp_path):
    theta = flatten(run.params).copy()
    theta[0] += 1.0
    other = replace(
        run,
        params=engine.params.unflatten(run.params, theta),
        checkpoints=run.checkpoints[:-1] + ((STEPS, engine.params.unflatten(run.params, theta)),),
    )
    assert store.keep_first(run, tmp_path) is run
    kept = store.keep_first(other, tmp_path)  # the same key, other weights
    _same(kept, run)
    assert [p.name for p in tmp_path.glob("*.npz")] == [store.file_name(store.key_of(run))]
    assert store.keep_first(run, None) is run  # no folder: nothing kept, the run itself


REPLICA = r"""
import json, sys, time
from dataclasses import replace
from pathlib import Path
import engine
from engine.params import flatten, unflatten
from services import learnruns, weights
folder, tag = Path(sys.argv[1]), int(sys.argv[2])

def tagged(task, cfg, steps, seed=0, lr=None, on_progress=None):
    run = engine.train(task, cfg, steps, seed=seed, lr=lr)
    theta = flatten(run.params).copy()
    theta[0] += tag                                            # this writer's own weights
    params = unflatten(run.params, theta)
    losses = run.losses.copy()
    losses[0] = tag                                            # and its tag
    (folder / f"trained-{tag}").touch()
    while len(list(folder.glob("trained-*"))) < 2:             # both have trained before either stores
        time.sleep(0.01)
    return replace(run, params=params, checkpoints=run.checkpoints[:-1] + ((steps, params),), losses=losses)

learnruns.train = tagged
task = engine.TASKS["first"]
training = weights.Training(task="first", steps=12, seed=3)
first = weights.get(task.config, training)
weights.forget()                                               # and after a restart, from the disk
again = weights.find(task.config, training)
print(json.dumps({"shown": float(first.run.losses[0]), "origin": first.origin, "digest": first.digest,
                  "again": again.digest}))
"""


def test_two_servers_that_train_the_same_setting_show_one_run(tmp_path):
    """Two processes share a cache folder and train the same setting at once, each a run of its own
    (tagged 1 and 2): both end showing the one stored first, the other's run is gone, and a restart
    reads the same."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "ATTENTION_LAB_CACHE": str(tmp_path), "PYTHONPATH": str(store.ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", REPLICA, str(tmp_path), str(tag)],
            env=env,
            cwd=store.ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in (1, 2)
    ]
    said = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        said.append(json.loads(out.strip().splitlines()[-1]))
    files = list(tmp_path.glob("*.npz"))
    assert len(files) == 1, files
    with np.load(files[0]) as data:
        stored_tag = float(data["losses"][0])
    assert stored_tag in (1.0, 2.0)
    assert [s["shown"] for s in said] == [stored_tag, stored_tag], said  # both show the stored run
    assert said[0]["digest"] == said[1]["digest"] == said[0]["again"] == said[1]["again"]
    assert sorted(s["origin"] for s in said) == ["stored", "trained here"]  # the loser says whose it shows


SECOND_SERVER = r"""
import json, sys
sys.path.insert(0, "tests")
from conftest import open_app, replay_sent
from services import jobrunner, learnruns
from ui.shell import site

def refuse(*args, **kwargs):
    raise AssertionError("a training run on the second server")

learnruns.train = refuse
at = open_app(site.by_path("learn").file, {"task": "induction", "train_seed": "1"}, timeout=120)
print(json.dumps({"exceptions": [e.message for e in at.exception], "replay": replay_sent(at) is not None,
                  "buttons": [b.key for b in at.button], "workers": jobrunner.pids(),
                  "notice": [s.value for s in at.success]}))
"""


def test_a_second_server_replays_a_stored_induction_run_without_training(tmp_path):
    """A real induction run (batch seed 1: not the shipped one) trained and kept by one server, with the
    one-layer model its Learn page sets beside it: a second server process on the same folder shows the
    Learn replay at once, and no worker is started."""
    import json
    import os
    import subprocess
    import sys

    from services import weights
    from ui.shell import presets

    task = engine.TASKS["induction"]
    store.keep_first(engine.train("induction", seed=1), tmp_path)
    store.keep_first(engine.train("induction", replace(task.config, n_layers=1), seed=1), tmp_path)
    env = {**os.environ, "ATTENTION_LAB_CACHE": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", SECOND_SERVER], env=env, cwd=store.ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert not said["exceptions"] and not said["workers"], said
    assert said["replay"] and "learn_train" not in said["buttons"]  # its replay
    stored = store.load_run(tmp_path, "induction", task.config, task.steps, 1)
    accuracy = engine.evaluate(task, task.config, stored.params)
    assert any(f"predicts {accuracy:.1%} of the scored targets of 1,000" in n for n in said["notice"]), said["notice"]
    assert weights.Training(task="induction", steps=task.steps, seed=1) == presets.Training("induction", task.steps, 1)


def test_a_lossy_file_keeps_the_last_step_exactly_and_the_steps_between_to_float16(tmp_path):
    """A run too large to ship whole keeps the steps the Learn page replays in float16: within float16's
    rounding of each number; the final weights and step 0 (the init, drawn again) exactly."""
    run = engine.train("previous", steps=80, seed=2)
    store.save(run, tmp_path, lossy=True)
    loaded = store.load_run(tmp_path, "previous", engine.TASKS["previous"].config, 80, 2)
    assert [s for s, _ in loaded.checkpoints] == [s for s, _ in run.checkpoints]
    assert np.array_equal(flatten(loaded.params), flatten(run.params))
    assert np.array_equal(flatten(loaded.checkpoints[0][1]), flatten(run.checkpoints[0][1]))
    for (_, got), (_, was) in zip(loaded.checkpoints[1:-1], run.checkpoints[1:-1]):
        a, b = flatten(got), flatten(was)
        assert np.all(np.abs(a - b) <= np.abs(b) * 2.0**-11 + 2.0**-24), "float16 keeps 11 significant bits"
    assert not np.array_equal(flatten(loaded.checkpoints[1][1]), flatten(run.checkpoints[1][1])), "it was rounded"
