"""A Learn page's training is a job on the app's one queue (services/learnruns.py on services/jobs.py's DBOS queue,
trained by services/jobrunner.py's workers): the same run as engine.train, its progress made in the caller's
thread, read-only arrays, errors that arrive as errors, a page left mid-run that cancels its job and frees its
worker, a worker killed mid-run whose run still finishes, a job that goes before the class experiment's queued runs,
ended jobs' rows deleted, and workers below the server's priority. Real processes, a real SQLite queue."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

import engine
from engine.params import flatten, param_arrays
from services import jobrunner, jobs, learnruns
from services.poll import experiment as cx
from services.poll.store import Store
from tests.test_jobs import idle_threads, until

TASK = engine.TASKS["first"]


@pytest.fixture(autouse=True)
def queue(tmp_path, monkeypatch):
    """A queue of this test's own (a SQLite file beside a rooms' file of its own), its workers stopped after."""
    for name in ("DATABASE_URL", "ATTENTION_LAB_QUEUE_DB", "ATTENTION_LAB_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ATTENTION_LAB_POLL_DB", str(tmp_path / "poll.sqlite3"))
    monkeypatch.setenv("ATTENTION_LAB_REPLICA", f"test-{uuid.uuid4().hex[:8]}")
    yield tmp_path
    jobrunner.stop()
    jobs.close()


def _jobs(prefix: str = learnruns.PREFIX) -> list:
    return jobs.client().list_workflows(workflow_id_prefix=prefix, load_input=False, load_output=False)


def test_a_run_as_a_job_is_engine_train_and_its_progress_comes_to_the_caller():
    calls, threads = [], set()

    def progress(step, steps, losses, accuracies, params):
        calls.append((step, steps, len(losses), len(accuracies)))
        threads.add(threading.get_ident())
        assert isinstance(params, engine.Params)
        assert not losses.flags.writeable and not params.w_q.flags.writeable, "read-only, as engine.train's"

    run = learnruns.train("first", TASK.config, 60, seed=3, on_progress=progress)
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
    assert until(lambda: _jobs() == [], 5), "a read job's rows (its stream holds the weights) are deleted at once"


def test_a_refused_argument_is_a_value_error_with_the_engines_words():
    with pytest.raises(ValueError, match="steps and batch must be at least 1"):
        learnruns.train("first", TASK.config, 0)


def test_a_job_that_crashes_is_an_error_that_says_why_and_the_next_run_works():
    import copy

    broken = copy.copy(TASK.config)
    object.__setattr__(broken, "d_model", 16.5)  # past the config's checks: the worker's training crashes
    with pytest.raises(RuntimeError, match="training failed: TypeError"):
        learnruns.train("first", broken, 5)
    assert learnruns.train("first", TASK.config, 5).steps == 5


def test_an_unknown_task_is_refused_before_any_job_is_queued():
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        learnruns.train("nope", TASK.config, 5)
    assert jobrunner.pids() == [], "no worker was started"


def test_a_page_left_mid_run_cancels_its_job_and_its_worker_takes_the_next_at_once(monkeypatch):
    class Left(Exception):
        pass

    def leave(step, *args):
        raise Left

    monkeypatch.setattr(jobrunner, "WORKERS", 1)  # one worker: the next run needs the left one's
    jobrunner.ensure()
    with pytest.raises(Left):
        learnruns.train("induction", engine.TASKS["induction"].config, 20_000, on_progress=leave)  # minutes
    (left,) = _jobs()
    assert left.status == "CANCELLED"
    started = time.monotonic()
    assert learnruns.train("first", TASK.config, 5).steps == 5  # the one worker is free again
    assert time.monotonic() - started < 20, "the cancelled run stopped at its next progress call"


def test_a_worker_killed_mid_run_is_started_again_and_the_run_finishes(monkeypatch):
    monkeypatch.setattr(learnruns, "WATCH_S", 1.0)  # the reader checks the workers after 1 s without word
    monkeypatch.setattr(jobrunner, "WORKERS", 1)  # the one worker runs the job
    (pid,) = jobrunner.ensure(1)
    steps, killed = [], []

    def progress(step, *args):
        steps.append(step)
        if not killed:
            os.kill(pid, signal.SIGKILL)
            killed.append(step)

    task = engine.TASKS["induction"]
    run = learnruns.train("induction", task.config, 480, seed=2, on_progress=progress)
    assert run.steps == 480 and killed
    url, proc = jobrunner._procs[f"{jobrunner.replica()}-0"]
    assert proc.pid != pid and proc.poll() is None and pid not in jobrunner.pids(), "started again under its id"
    assert steps[-1] == 480 and min(steps[1:]) < max(steps[:-1]), "the page saw the run start over, then end"


def test_a_learn_run_goes_before_the_class_experiments_queued_runs(monkeypatch):
    store = Store()
    room = store.create_room()
    cx.start(store, room.code, room.key, cx.plan("induction", 480, 0.02, 2, 32))  # ~1-3 s a run
    tickets = [cx.claim(store, room.code, f"seat-0000{i}") for i in range(1, 5)]
    for t in tickets:
        jobs.submit(room.code, t.eid, t.k)
    monkeypatch.setattr(jobrunner, "WORKERS", 1)  # one worker, busy with the first class run
    jobrunner.ensure()
    assert until(lambda: cx.tally(store, room.code, 1)["running"] == 1)
    learnruns.train("first", TASK.config, 20)
    tally = cx.tally(store, room.code, 1)
    assert tally["done"] <= 1 and tally["done"] + tally["running"] < 4, tally  # it waited for one run at most
    store.close()


def test_ended_jobs_nobody_read_are_deleted_later(monkeypatch):
    jobrunner.ensure(1)
    queue = jobs.client()
    wid = f"{learnruns.PREFIX}unread"
    options = {"workflow_name": jobs.LEARN_WORKFLOW, "queue_name": jobs.QUEUE, "workflow_id": wid}
    queue.enqueue({**options, "app_version": jobs.VERSION}, TASK, TASK.config, 5, 0, None)  # nobody reads it
    assert until(lambda: queue.retrieve_workflow(wid).get_status().status == "SUCCESS")
    learnruns.train("first", TASK.config, 5)
    assert until(lambda: [w.workflow_id for w in _jobs()] == [wid], 5), "kept while a page might still read it"
    monkeypatch.setattr(jobs, "KEEP_S", 0.0)
    learnruns.train("first", TASK.config, 5)
    assert until(lambda: _jobs() == [], 5)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads a process's priority from /proc")
def test_workers_run_below_the_servers_priority_one_per_core_at_most():
    seen = []
    learnruns.train("first", TASK.config, 40, on_progress=lambda *a: seen.append(idle_threads(jobrunner.pids())))
    assert seen and not any(seen), "a Learn job, which a student watches, is not in the idle class (class runs are)"
    assert jobrunner.WORKERS == max(1, min(jobrunner.MAX_WORKERS, len(os.sched_getaffinity(0))))
    assert len(jobrunner.pids()) == jobrunner.WORKERS
    server = os.getpriority(os.PRIO_PROCESS, 0)  # this test runner may be niced itself
    for pid in jobrunner.pids():
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        nice = int(fields[16])  # field 19 of /proc/PID/stat: nice
        assert nice > server or nice == server == 19, (nice, server)  # below the server's priority (19 is the floor)


def test_workers_on_another_queue_are_started_again_on_the_new_one(tmp_path, monkeypatch):
    first = set(jobrunner.ensure(1))
    assert set(jobrunner.ensure(1)) == first, "the same queue: the same workers"
    monkeypatch.setenv("ATTENTION_LAB_POLL_DB", str(tmp_path / "elsewhere" / "poll.sqlite3"))
    again = set(jobrunner.ensure(1))
    assert again and not again & first
    assert learnruns.train("first", TASK.config, 3).steps == 3


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
    assert jobrunner._cores(path) == (cores if limit is None else min(cores, limit))
