"""Training runs in worker processes of their own, not in the server's.

A training step is a few hundred small NumPy calls, and Python runs one thread's Python code at a
time: trained inside the server, ten students' trainings took turns with every other student's page
on one core, whatever the machine had (benchmarks/storm.py: the others' rerun p95 rose 10×). Here a
run goes to a pool of up to one process per core (at most MAX_WORKERS), each started when a training
first needs it and then kept, each at a lower priority (nice 10): when a student's page and a training
both want a core, the page gets it (a nice-10 process gets about a tenth of a core against a nice-0
one). The run comes back whole; its progress calls come back through a queue and are made in the
caller's thread, so a page draws the run live as before.

Pure Python (no Streamlit): the workers import this module and the engine, not the app.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable

import numpy as np

import engine

NICE = 10              # the workers' priority, below the server's (0)
POLL_S = 0.05          # how often a waiting caller looks for progress


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))                           # the cores this process may use
    except AttributeError:                                            # not Linux
        return os.cpu_count() or 1


MAX_WORKERS = 4        # each worker holds an interpreter and NumPy (~70 MB): at most this many
WORKERS = max(1, min(MAX_WORKERS, _cores()))                          # trainings at once; more wait their turn

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_progress = None                                                      # the workers' progress queue
_boxes: dict[int, queue.SimpleQueue] = {}                             # job -> its caller's progress calls
_jobs = itertools.count()


# ------------------------------------------------------------------------------------- in a worker
def _start_worker(progress) -> None:
    """Each worker, once: its progress queue, a lower priority, one BLAS thread."""
    from threadpoolctl import threadpool_limits
    global _progress
    _progress = progress
    try:
        os.nice(NICE)
    except OSError:
        pass
    threadpool_limits(1)


def _run(job: int, task, cfg, steps: int, seed: int, lr: float | None):
    return engine.train(task, cfg, steps, seed=seed, lr=lr,
                        on_progress=lambda *args: _progress.put((job, args)))


# ------------------------------------------------------------------------------------- in the server
def _forward(progress) -> None:
    """A thread of the server: hands each progress call to the caller waiting for that job."""
    while True:
        job, args = progress.get()
        box = _boxes.get(job)
        if box is not None:                                           # else the caller has gone
            box.put(args)


def _workers() -> ProcessPoolExecutor:
    """The pool, started on first use (spawned: a clean interpreter, whatever threads the server has)."""
    global _pool
    with _lock:
        if _pool is None:
            ctx = multiprocessing.get_context("spawn")
            progress = ctx.Queue()
            _pool = ProcessPoolExecutor(WORKERS, mp_context=ctx, initializer=_start_worker, initargs=(progress,))
            threading.Thread(target=_forward, args=(progress,), daemon=True, name="training-progress").start()
        return _pool


def _freeze(arrays) -> None:
    """Read-only again, as engine.train handed them out (pickling drops NumPy's flags)."""
    for array in arrays:
        if isinstance(array, np.ndarray):
            array.setflags(write=False)


def _frozen(run):
    _freeze([run.losses, run.accuracies] + [a for _, params in run.checkpoints
                                            for a in engine.params.param_arrays(params)])
    return run


def train(task: str | engine.Task, cfg, steps: int, seed: int = 0, lr: float | None = None, on_progress: Callable | None = None):
    """engine.train(task, cfg, steps, seed=seed, lr=lr) in a worker; on_progress is called here, in the
    caller's thread, with the arguments the worker's calls got. If on_progress raises (the page was
    left), the exception goes on and the run is dropped when it ends. A worker that died (out of memory)
    is replaced for the next run; this one raises RuntimeError."""
    global _pool
    job, box = next(_jobs), queue.SimpleQueue()
    _boxes[job] = box
    try:
        pool = _workers()
        # the Task itself, not its name: the worker runs the task this process knows by that name
        future = pool.submit(_run, job, engine.get_task(task), cfg, steps, seed, lr)
        while True:
            try:
                args = box.get(timeout=POLL_S)
            except queue.Empty:
                if future.done():
                    break
                continue
            if on_progress is not None:
                step, steps, losses, accuracies, params = args
                _freeze([losses, accuracies] + engine.params.param_arrays(params))
                on_progress(step, steps, losses, accuracies, params)
        try:
            return _frozen(future.result())
        except BrokenProcessPool as error:
            with _lock:
                if _pool is pool:
                    _pool = None                                      # the next run starts a new pool
            raise RuntimeError(f"the training worker stopped before the run ended ({error})") from None
    finally:
        del _boxes[job]
