"""A Streamlit server of the app for the browser tests and the benchmarks (harness.browser exports it): `streamlit
run` on 127.0.0.1 and a free loopback port, waited for until healthy, its log kept under ARTIFACTS, stopped by its
PID.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"  # git-ignored: screenshots and server logs


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def free_ports(count: int) -> list[int]:
    """`count` distinct free loopback ports."""
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


class Server:
    """`streamlit run` on 127.0.0.1 and a free port; stop() ends it by its PID (and its group)."""

    def __init__(
        self,
        app: str = "streamlit_app.py",
        cwd: Path = ROOT,
        extra: list[str] | None = None,
        log_name: str | None = None,
        port: int | None = None,
        launcher: list[str] | None = None,
    ):
        self.app, self.cwd, self.extra = app, Path(cwd), list(extra or [])
        self.launcher = list(launcher or [sys.executable, "-m", "streamlit"])  # what runs `streamlit run`
        self.port = port or free_port()  # a given port: the same origin as before (the browser's cache)
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.log_path = ARTIFACTS / "logs" / (log_name or f"server-{self.port}.log")
        self.started_at = 0.0  # time.time() just before the process was launched
        self.healthy_at = 0.0  # time.time() when /_stcore/health first answered ok

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 60) -> Server:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        cmd = [
            *self.launcher,
            "run",
            self.app,
            "--server.headless",
            "true",
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            *self.extra,
        ]
        log = open(self.log_path, "w")
        self.started_at = time.time()
        # Own session (process group), so stop() also ends anything the server started.
        self.proc = subprocess.Popen(
            cmd, cwd=self.cwd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
        log.close()
        try:
            self.healthy_at = self.wait_healthy(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def wait_healthy(self, timeout: float = 60, interval: float = 0.05) -> float:
        """Poll /_stcore/health until it answers ok; returns the time.time() it did."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=2) as response:
                    if response.status == 200 and response.read().strip() == b"ok":
                        return time.time()
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(interval)
        raise TimeoutError(f"no /_stcore/health from {self.url} within {timeout} s:\n{self.log()}")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def stop(self) -> None:
        """End the server by its PID: SIGTERM, then SIGKILL after 10 s. Safe to call twice."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)  # the group is led by this very PID
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


@contextlib.contextmanager
def poll_server(folder: Path, log_name: str):
    """(a Server, its class poll's SQLite file in `folder`): the server process inherits the file's path
    (ATTENTION_LAB_POLL_DB), restored afterwards."""
    db = Path(folder) / "poll.sqlite3"
    saved = os.environ.get("ATTENTION_LAB_POLL_DB")
    os.environ["ATTENTION_LAB_POLL_DB"] = str(db)
    try:
        with Server(log_name=log_name) as srv:
            yield srv, db
    finally:
        os.environ.pop("ATTENTION_LAB_POLL_DB") if saved is None else os.environ.update(ATTENTION_LAB_POLL_DB=saved)
