"""The app trains in worker processes (services/workers.py): the same run as engine.train, its
progress made in the caller's thread, read-only arrays, errors that arrive as errors, a worker that dies
replaced, and workers below the server's priority."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

import engine
from engine.params import flatten, param_arrays
from services import workers

TASK = engine.TASKS["first"]


def test_a_run_in_a_worker_is_engine_train_and_its_progress_comes_to_the_caller():
    calls, threads = [], set()

    def progress(step, steps, losses, accuracies, params):
        calls.append((step, steps, len(losses), len(accuracies)))
        threads.add(threading.get_ident())
        assert isinstance(params, engine.Params)
        assert not losses.flags.writeable and not params.w_q.flags.writeable, "read-only, as engine.train's"

    run = workers.train("first", TASK.config, 60, seed=3, on_progress=progress)
    here = engine.train("first", TASK.config, 60, seed=3)
    assert np.abs(flatten(run.params) - flatten(here.params)).max() <= 1e-12
    assert np.allclose(run.losses, here.losses, rtol=1e-12) and [s for s, _ in run.checkpoints] == [
        s for s, _ in here.checkpoints
    ]
    assert threads == {threading.get_ident()}, "progress is called in the caller's thread"
    assert calls[-1] == (60, 60, 60, 60) and [c[0] for c in calls] == sorted({c[0] for c in calls})
    for array in [run.losses, run.accuracies] + [a for _, p in run.checkpoints for a in param_arrays(p)]:
        assert not array.flags.writeable
    assert run.params.w_q.dtype == np.float64


def test_a_refused_argument_is_a_value_error_with_the_engines_words():
    with pytest.raises(ValueError, match="steps and batch must be at least 1"):
        workers.train("first", TASK.config, 0)


def test_a_page_left_mid_run_stops_its_worker_and_the_next_run_still_works():
    class Left(Exception):
        pass

    def leave(step, *args):
        raise Left

    workers.train("first", TASK.config, 2)
    before = set(workers.worker_pids())
    with pytest.raises(Left):
        workers.train("first", TASK.config, 100, on_progress=leave)
    assert len(before - set(workers.worker_pids())) == 1, "the left run's worker was stopped"
    assert workers.train("first", TASK.config, 5).steps == 5


def test_a_worker_that_dies_is_an_error_and_the_next_run_gets_a_new_one():
    workers.train("first", TASK.config, 2)  # a worker is up
    pids = workers.worker_pids()

    def kill(step, *args):
        for pid in pids:
            os.kill(pid, 9)

    with pytest.raises(RuntimeError, match="training worker stopped"):
        workers.train("first", TASK.config, 2000, on_progress=kill)
    run = workers.train("first", TASK.config, 5)
    assert run.steps == 5 and not set(workers.worker_pids()) & set(pids)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads a process's priority from /proc")
def test_workers_run_below_the_servers_priority_one_per_core_at_most():
    workers.train("first", TASK.config, 2)
    assert workers.WORKERS == max(1, min(workers.MAX_WORKERS, len(os.sched_getaffinity(0))))
    server = os.getpriority(os.PRIO_PROCESS, 0)  # this test runner may be niced itself
    for pid in workers.worker_pids():
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        nice = int(fields[16])  # field 19 of /proc/PID/stat: nice
        assert nice > server or nice == server == 19, (nice, server)  # below the server's priority (19 is the floor)


def test_an_unknown_task_is_refused_before_any_worker_is_asked():
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        workers.train("nope", TASK.config, 5)


@pytest.mark.parametrize(
    "cpu_max, limit",
    [
        ("max 100000\n", None),
        ("100000 100000\n", 1),
        ("150000 100000", 2),
        ("50000 100000", 1),
        ("garbage", None),
        (None, None),
    ],
)
def test_a_containers_cpu_limit_caps_the_workers(tmp_path, cpu_max, limit):
    path = tmp_path / "cpu.max"
    if cpu_max is not None:
        path.write_text(cpu_max)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert workers._cores(path) == (cores if limit is None else min(cores, limit))
