"""The app's own queue workers (the embedded mode): where no worker service runs (Streamlit Community Cloud's one
container, a laptop), the server starts the queue's workers itself, as subprocesses (`python -m services.jobs
EXECUTOR`), never inside its own process, which would slow every student's rerun. They train every run the app
asks for: the Learn page's (services/learnruns.py) and the class experiment's (services/classwork.py).

A training step is a few hundred small NumPy calls, and Python runs one thread's Python code at a time: trained
inside the server, ten students' trainings took turns with every other student's page on one core (benchmarks/
storm.py: the others' rerun p95 rose 10x). So there are WORKERS of them: one per core the process may use (a
container's CPU limit included), at most MAX_WORKERS, each at nice NICE (a class run in Linux's idle class
too: services/jobwork.in_a_thread), so a student's page gets a core before a run. Each has a stable executor id,
"<replica>-<i>" (ATTENTION_LAB_REPLICA, else the host's name): one that died is started again under the same id,
and DBOS then runs again the job it had begun (at-least-once). Each is told its queue's database: when that
changes (a test's own), they are started again on it. They leave with the server (their stdin closes).
ATTENTION_LAB_WORKERS=external: the workers are a service of their own (docker-compose.yml, deploy/k8s/) and the
server starts none. No Streamlit here.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

NICE = 10  # the workers' priority, below the server's (0)
MAX_WORKERS = 4  # each worker holds an interpreter, NumPy and DBOS (~80 MB): at most this many
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


WORKERS = max(1, min(MAX_WORKERS, _cores()))  # trainings at once; more wait their turn in the queue
_lock = threading.Lock()
_procs: dict[str, tuple[str, subprocess.Popen]] = {}  # executor id: (its queue's database, its process)


def external() -> bool:
    """The workers are a service of their own: the server starts none."""
    return os.environ.get("ATTENTION_LAB_WORKERS", "").strip().lower() == "external"


def replica() -> str:
    name = os.environ.get("ATTENTION_LAB_REPLICA") or socket.gethostname() or "local"
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)[:60]


def _start(executor: str, url: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "ATTENTION_LAB_QUEUE_DB": url,
        "ATTENTION_LAB_WORKER_PARENT": "1",
        "ATTENTION_LAB_WORKER_NICE": str(NICE),
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "services.jobs", executor],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=None,
    )


def ensure(count: int | None = None) -> list[int]:
    """The app's workers running on the queue's database of now: started where missing, started again under the
    same id where one died (its begun job runs again) or listens to another database. Cheap when all run (a poll
    of each). Their process ids; none with external workers."""
    if external():
        return []
    from services.jobs import queue_url

    count = WORKERS if count is None else count
    url = queue_url()
    with _lock:
        stale = {e: p for e, (u, p) in _procs.items() if u != url}
        _end(stale.values())
        for executor in stale:
            del _procs[executor]
        for i in range(count):
            executor = f"{replica()}-{i}"
            found = _procs.get(executor)
            if found is None or found[1].poll() is not None:
                _procs[executor] = (url, _start(executor, url))
        return pids()


def pids() -> list[int]:
    """The process ids of the app's workers that run (tests and benchmarks)."""
    return [p.pid for _, p in _procs.values() if p.poll() is None]


def _end(procs) -> None:
    """Stop these workers: their stdin closed, killed if they linger."""
    procs = list(procs)
    for proc in procs:
        try:
            proc.stdin.close()
        except OSError:
            pass
    for proc in procs:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def stop() -> None:
    """Stop the app's workers (tests; a server shutting down)."""
    with _lock:
        _end(p for _, p in _procs.values())
        _procs.clear()


def main() -> None:
    """`python -m services.jobrunner`: a worker service's container (docker compose's `workers`, the Kubernetes
    StatefulSet deploy/k8s/workers.yaml): keeps this machine's workers running (one per core it may use), each
    started again under its id when it dies, until SIGTERM or SIGINT, which stops them."""
    import signal

    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    os.environ.pop("ATTENTION_LAB_WORKERS", None)  # this process is where the workers run
    while not stopping.is_set():
        ensure()
        stopping.wait(1.0)
    stop()


if __name__ == "__main__":
    main()
