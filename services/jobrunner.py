"""The app's own queue workers (issue 52, the embedded mode): where no worker service runs (Streamlit Community
Cloud's one container, a laptop), the server starts the class experiment's workers itself, as subprocesses
(`python -m services.jobs EXECUTOR`), never inside its own process, which would slow every student's rerun.

As many as the trainer's workers may be (services/workers.WORKERS: one per core the process may use, at most
MAX_WORKERS), each at nice NICE, so a student's page gets a core before a run. Each has a stable executor id,
"<replica>-<i>" (ATTENTION_LAB_REPLICA, else the host's name): one that died is started again under the same id,
and DBOS then runs again the job it had begun (at-least-once). They leave with the server (their stdin closes).
ATTENTION_LAB_WORKERS=external: the workers are a service of their own (docker-compose.yml, deploy/k8s/) and the
server starts none. No Streamlit here.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

from services import workers

NICE = workers.NICE
_lock = threading.Lock()
_procs: dict[str, subprocess.Popen] = {}


def external() -> bool:
    """The workers are a service of their own: the server starts none."""
    return os.environ.get("ATTENTION_LAB_WORKERS", "").strip().lower() == "external"


def replica() -> str:
    name = os.environ.get("ATTENTION_LAB_REPLICA") or socket.gethostname() or "local"
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)[:60]


def _start(executor: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(workers.ROOT), os.environ.get("PYTHONPATH")])),
        "ATTENTION_LAB_WORKER_PARENT": "1",
        "ATTENTION_LAB_WORKER_NICE": str(NICE),
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "services.jobs", executor],
        cwd=workers.ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=None,
    )


def ensure(count: int | None = None) -> list[int]:
    """The app's workers running: started where missing, started again under the same id where one died (its
    begun job runs again). Cheap when all run (a poll of each). Their process ids; none with external workers."""
    if external():
        return []
    count = workers.WORKERS if count is None else count
    with _lock:
        for i in range(count):
            executor = f"{replica()}-{i}"
            proc = _procs.get(executor)
            if proc is None or proc.poll() is not None:
                _procs[executor] = _start(executor)
        return [p.pid for p in _procs.values() if p.poll() is None]


def stop() -> None:
    """Stop the app's workers (tests; a server shutting down): their stdin closed, killed if they linger."""
    with _lock:
        for proc in _procs.values():
            try:
                proc.stdin.close()
            except OSError:
                pass
        for proc in _procs.values():
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
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
