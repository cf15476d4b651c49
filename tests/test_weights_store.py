"""Finished runs kept on disk (engine.store): a sound file comes back exactly; a corrupt, cut-short or
stale one is never loaded but trained again; writers racing on one file cannot leave a broken one."""
from __future__ import annotations

import multiprocessing
from dataclasses import replace

import numpy as np
import pytest

import engine
from engine import store
from engine.train import flatten

TASK, STEPS, SEED = "first", 12, 3          # a run small enough to train many times


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
    data[len(data) // 2] ^= 0xFF                                        # one flipped byte in the middle
    path.write_bytes(bytes(data))


def _cut_short(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])    # a write that stopped half way


def _altered_numbers(path):
    """A file rewritten with other weights but the old checksum: only the checksum can tell."""
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["thetas"] = arrays["thetas"] + 1e-9
    np.savez_compressed(path, **arrays)


def _stale(path, monkeypatch):
    monkeypatch.setattr(store.training, "VERSION", store.training.VERSION + 1)   # the training code changed


def _app_train(monkeypatch, folder):
    """ui.compute.train as a fresh server runs it (nothing in memory), on `folder`; and a list that
    counts its engine.train calls."""
    from ui import compute
    from ui.shell import presets

    monkeypatch.setenv(store.CACHE_ENV, str(folder))
    from ui import training_process
    calls, real = [], training_process.train                            # the app trains in a worker process

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(training_process, "train", counting)

    def fresh_server():
        compute._slot.clear()                                           # a restart: memory is empty
        return compute.train(engine.TASKS[TASK].config, presets.Training(task=TASK, steps=STEPS, seed=SEED))
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
    _same(_load(tmp_path), again)                                      # and the sound run replaced the bad file
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
    while not any(tmp_path.glob("*.npz")):                             # the first file is in place
        pass
    reader.start()
    for process in [*writers, reader]:
        process.join(120)
        assert process.exitcode == 0
    seen = results.get(timeout=10)
    assert seen == {"sound": 200, "absent": 0}, seen
    _same(_load(tmp_path), run, seconds=False)                         # each writer timed its own run
    assert len(list(tmp_path.iterdir())) == 1, "every temporary file was renamed or removed"
