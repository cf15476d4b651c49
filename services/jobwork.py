"""What a queue worker does in a job (services/jobs.py's workers): a Learn page's training, which sends its progress
and then its run on the job's stream (services/learnruns.py reads it), and a class run, trained in a thread of its
own in Linux's idle class with its progress relayed as the job's event. No Streamlit here."""

from __future__ import annotations

import os
import queue
import threading
import time

LEARN_STREAM = "run"  # a Learn job's stream: ("progress", args), then ("done", run), ("refused" | "failed", why)
PROGRESS = "progress"  # a class run's event: (step, steps, loss, batch accuracy), the newest every PROGRESS_EVERY_S
PROGRESS_EVERY_S = 1.0
LEAVE_S = 60.0  # a worker whose server has gone finishes the class runs it had begun, for at most this long
_leaving = threading.Event()
_running: set[threading.Thread] = set()  # the class runs in progress


def leave(grace_s: float = LEAVE_S) -> None:
    """The worker's server has gone (a replica killed): a Learn job stops at its next progress call (its page went
    with the server) and a class run begun finishes, its numbers in the rooms' store (a student's run outlives the
    replica that served them), for at most grace_s; a class run taken after this waits for the process's end and
    stays with its executor id, whose next worker runs it again."""
    _leaving.set()
    end = time.monotonic() + grace_s
    for thread in list(_running):
        thread.join(max(0.0, end - time.monotonic()))


def in_a_thread(idle: bool, fn, *args, relay=None):
    """fn(*args) in a thread of its own, put in Linux's idle class first if `idle` (a class run: every page of the
    server first, where a Learn job, which a student watches, keeps nice 10: a thread cannot leave the idle class
    again, so each class run gets a new one). With a relay, fn also gets on_progress=, and the newest value it was
    given is handed to relay here, in the caller's thread (where DBOS knows the job), every PROGRESS_EVERY_S. Its
    result, or its exception raised here."""
    out: dict = {}
    newest: queue.SimpleQueue = queue.SimpleQueue()

    def run() -> None:
        if idle:
            idle_class()
        try:
            out["value"] = fn(*args) if relay is None else fn(*args, on_progress=newest.put)
        except BaseException as error:  # noqa: BLE001 - raised again in the caller's thread
            out["error"] = error

    if _leaving.is_set():  # taken while the worker leaves: left to its executor id's next worker
        threading.Event().wait()
    thread = threading.Thread(target=run, name="class-run", daemon=True)
    _running.add(thread)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(PROGRESS_EVERY_S)
            value = None
            while not newest.empty():
                value = newest.get()
            if value is not None and relay is not None:
                relay(value)
    finally:  # a relay that fails (the queue's database gone) leaves nothing for leave() to wait on
        _running.discard(thread)
    if "error" in out:
        raise out["error"]
    return out["value"]


def idle_class() -> bool:
    """Put the calling thread (and the threads it starts afterwards) in Linux's idle scheduling class, where it runs
    only on a core nothing else wants: a page's run then takes the core at once, where a nice-10 process still holds
    it for a time slice. Whether it could (not on other systems)."""
    policy = getattr(os, "SCHED_IDLE", None)
    if policy is None:
        return False
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except OSError:
        return False
    return True


class _Left(Exception):
    """The job was cancelled: its page was left."""


def learn(task, cfg, steps: int, seed: int, lr) -> str:
    """A Learn page's job (services/learnruns.py), in a worker's DBOS step: engine.train, its progress and then the
    run (or why not) on the job's stream; stops at a progress call once the job is cancelled. What happened, in a
    word."""
    from dbos import DBOS

    import engine

    wid = DBOS.workflow_id

    def send(kind: str, payload) -> None:
        DBOS.write_stream(LEARN_STREAM, (kind, payload))

    def progress(*args) -> None:
        status = DBOS.get_workflow_status(wid)
        if _leaving.is_set() or status is None or status.status == "CANCELLED":
            raise _Left
        send("progress", args)

    try:
        run = engine.train(task, cfg, steps, seed=seed, lr=lr, on_progress=progress)
    except _Left:
        return "left"
    except ValueError as error:  # a refused argument: the caller raises it too
        send("refused", str(error))
        return "refused"
    except Exception as error:  # anything else: reported, not lost
        send("failed", f"{type(error).__name__}: {error}")
        return "failed"
    send("done", run)
    return "done"
