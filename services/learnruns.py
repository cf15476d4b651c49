"""A Learn page's training, as a job on the app's one queue (services/jobs.py, DBOS) that its workers train
(services/jobrunner.py: subprocesses below the server's priority, or a worker service of their own).

The server enqueues the run (ahead of any class experiment's run) and reads what the worker sends on the job's
stream: every progress call of engine.train, then the run (or why not). The progress calls are made here, in the
caller's thread, so a page draws the run live as it did when it trained itself. A page left mid-run (its progress
call raises) cancels the job, and the worker stops at its next progress call, which frees its core. A worker that
dies mid-run is started again under its id and DBOS hands it the job again (at-least-once): the run starts over
and the page sees its progress start over, then the run. An ended job's rows (its stream holds the weights at each
progress call) are deleted as soon as it is read, and any left behind by a page that went away later (jobs.tidy).

The worker's side is services/jobwork.learn. Pure Python, no Streamlit.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable

import numpy as np

import engine

PREFIX = "learn-"  # every Learn job's id starts so (the class runs' ids start with their room's code)
READ_POLL_S = 0.1  # how often the server looks for the job's next value on SQLite (PostgreSQL notifies); a page
# draws its maps every LIVE_EVERY_S (0.25 s)
WATCH_S = 5.0  # no word from the job for this long: the app's workers are checked (a dead one started again)


def _freeze(arrays) -> None:
    """Read-only again, as engine.train handed them out (pickling drops NumPy's flags)."""
    for array in arrays:
        if isinstance(array, np.ndarray):
            array.setflags(write=False)


def _frozen(run: engine.TrainRun) -> engine.TrainRun:
    _freeze(
        [run.losses, run.accuracies] + [a for _, params in run.checkpoints for a in engine.params.param_arrays(params)]
    )
    return run


def train(
    task: str | engine.Task,
    cfg,
    steps: int,
    seed: int = 0,
    lr: float | None = None,
    on_progress: Callable | None = None,
) -> engine.TrainRun:
    """engine.train(task, cfg, steps, seed=seed, lr=lr) as a job; on_progress is called here, in the caller's
    thread, with the arguments the worker's calls got. If on_progress raises (the page was left), the job is
    cancelled and the exception goes on. A refused argument is the engine's ValueError; a job that ended without
    its run (failed, or its worker died MAX_TRIES times) is a RuntimeError."""
    from dbos._error import DBOSStreamTimeoutError

    from services import jobrunner, jobs, jobwork

    task = engine.get_task(task)  # the Task itself goes to the worker, which may not know the name
    jobrunner.ensure()
    queue = jobs.client()
    jobs.tidy()
    wid = f"{PREFIX}{uuid.uuid4().hex}"
    options = {"workflow_name": jobs.LEARN_WORKFLOW, "queue_name": jobs.QUEUE, "workflow_id": wid}
    queue.enqueue({**options, "app_version": jobs.VERSION, "priority": jobs.LEARN_PRIORITY}, task, cfg, steps, seed, lr)
    read, answer = 0, None
    try:
        while answer is None:
            try:
                for kind, payload in queue.read_stream(
                    wid, jobwork.LEARN_STREAM, offset=read, polling_interval_sec=READ_POLL_S, timeout_seconds=WATCH_S
                ):
                    read += 1
                    if kind != "progress":
                        answer = (kind, payload)
                        break
                    if on_progress is not None:
                        step, steps_, losses, accuracies, params = payload
                        _freeze([losses, accuracies] + engine.params.param_arrays(params))
                        on_progress(step, steps_, losses, accuracies, params)
                else:  # the stream ended, and no run on it
                    status = queue.retrieve_workflow(wid).get_status().status
                    answer = ("failed", f"the training job ended without its run (status {status})")
            except DBOSStreamTimeoutError:  # quiet for WATCH_S: waiting for a worker, or its worker died
                jobrunner.ensure()
    finally:
        if answer is None:  # left mid-run: nobody wants the run
            queue.cancel_workflow(wid)
    threading.Thread(target=_delete_when_ended, args=(queue, wid), daemon=True).start()  # the page goes on
    kind, payload = answer
    if kind == "done":
        return _frozen(payload)
    if kind == "refused":
        raise ValueError(payload)
    raise RuntimeError(payload if payload.startswith("the training job") else f"training failed: {payload}")


def _delete_when_ended(queue, wid: str, seconds: float = 2.0) -> None:
    """Delete the job's rows once it has ended (a moment after its last value); else jobs.tidy does later."""
    from services import jobs

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if queue.retrieve_workflow(wid).get_status().status in jobs.ENDED:
            queue.delete_workflow(wid)
            return
        time.sleep(0.02)
