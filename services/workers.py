"""Training runs in worker processes of its own, not in the server's.

A training step is a few hundred small NumPy calls, and Python runs one thread's Python code at a time:
trained inside the server, ten students' trainings took turns with every other student's page on
one core, whatever the machine had (benchmarks/storm.py: the others' rerun p95 rose 10×). Here a run
goes to a worker: `python -m services.workers`, a plain interpreter with the engine (not the app,
not multiprocessing's copy of the server's main module), started when a training first needs it and
then kept for the next one. There are up to one per core (at most MAX_WORKERS), each at a lower
priority (nice 10): when a student's page and a training both want a core, the page gets it (a
nice-10 process gets about a tenth of a core against a nice-0 one). The worker sends every progress
call and then the run through its stdout; the caller's thread makes the progress calls, so a page
draws the run live as before. A page left mid-run stops its worker, which frees the core at once.

Pure Python (no Streamlit): the workers import this module and the engine, not the app.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

import engine

NICE = 10  # the workers' priority, below the server's (0)
MAX_WORKERS = 4  # each worker holds an interpreter and NumPy (~60 MB): at most this many
ROOT = Path(__file__).resolve().parents[1]


def _cores(cpu_max: Path = Path("/sys/fs/cgroup/cpu.max")) -> int:
    """The cores this process may use: its CPU affinity, capped by a container's CPU limit (cgroup v2's
    cpu.max, "quota period" or "max period"; a Kubernetes limit of 1 CPU is "100000 100000")."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    try:
        quota, period = cpu_max.read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, -(-int(quota) // int(period))))  # a limit of 1.5 CPUs: 2 workers
    except (OSError, ValueError):
        pass  # no cgroup v2 limit to read
    return cores


WORKERS = max(1, min(MAX_WORKERS, _cores()))  # trainings at once; more wait their turn
_turns = threading.BoundedSemaphore(WORKERS)
_lock = threading.Lock()
_idle: list[_Worker] = []  # started, waiting for a run
_busy: set[_Worker] = set()


class _Worker:
    """One worker process and its two pipes."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", __name__], cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.alive():
            self.proc.kill()
        self.proc.wait(timeout=10)
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass


def worker_pids() -> list[int]:
    """The process ids of the workers started so far and still running (for tests and benchmarks)."""
    with _lock:
        return [w.pid for w in [*_idle, *_busy] if w.alive()]


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
    """engine.train(task, cfg, steps, seed=seed, lr=lr) in a worker; on_progress is called here, in the
    caller's thread, with the arguments the worker's calls got. If on_progress raises (the page was
    left), the worker is stopped and the exception goes on. A worker that dies (out of memory) raises
    RuntimeError here and is replaced for the next run."""
    task = engine.get_task(task)  # the Task itself goes to the worker, which may not know the name
    with _turns:  # wait for a free worker
        with _lock:
            worker = _idle.pop() if _idle else None
        if worker is not None and not worker.alive():  # died while it waited (killed, out of memory)
            worker.stop()
            worker = None
        if worker is None:
            worker = _Worker()
        with _lock:
            _busy.add(worker)
        answered = False
        try:
            try:
                pickle.dump((task, cfg, steps, seed, lr), worker.proc.stdin)
                worker.proc.stdin.flush()
                while True:
                    kind, payload = pickle.load(worker.proc.stdout)
                    if kind == "progress":
                        if on_progress is not None:
                            step, steps_, losses, accuracies, params = payload
                            _freeze([losses, accuracies] + engine.params.param_arrays(params))
                            on_progress(step, steps_, losses, accuracies, params)
                        continue
                    answered = True
                    break
            except (OSError, EOFError, pickle.UnpicklingError) as error:
                raise RuntimeError(
                    f"the training worker stopped before the run ended "
                    f"(exit code {worker.proc.poll()}; {type(error).__name__})"
                ) from None
            if kind == "done":
                return _frozen(payload)
            if kind == "refused":
                raise ValueError(payload)
            raise RuntimeError(f"training failed: {payload}")
        finally:
            with _lock:
                _busy.discard(worker)
                if answered:
                    _idle.append(worker)  # ready for the next run
            if not answered:
                worker.stop()  # left mid-run, or dead: nobody wants its run


# ------------------------------------------------------------------------------------- in a worker
def serve() -> None:
    """A worker's life: a run asked for on stdin, its progress and then the run (or why not) on stdout,
    again until stdin closes (the server has gone)."""
    from threadpoolctl import threadpool_limits

    requests = sys.stdin.buffer
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")  # the pickles' own copy of stdout ...
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # ... and any print goes to stderr
    try:
        os.nice(NICE)
    except (OSError, AttributeError):
        pass
    threadpool_limits(1)

    def send(kind: str, payload) -> None:
        pickle.dump((kind, payload), answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()

    while True:
        try:
            task, cfg, steps, seed, lr = pickle.load(requests)
        except EOFError:
            return
        try:
            run = engine.train(task, cfg, steps, seed=seed, lr=lr, on_progress=lambda *args: send("progress", args))
        except ValueError as error:  # a refused argument: the caller raises it too
            send("refused", str(error))
        except Exception as error:  # anything else: reported, not lost
            send("failed", f"{type(error).__name__}: {error}")
        else:
            send("done", run)


if __name__ == "__main__":
    serve()
