"""N `streamlit run` replicas behind HAProxy on this machine, as processes (deploy/replicas.py's commands and
the benchmarks and tests start one): started in their own sessions, waited for until healthy, their PIDs
recorded in the run folder, stopped or killed by those PIDs, HAProxy's view of each read from its stats socket.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from deploy.haproxy_config import BACKEND, ROOT, SECRET_ENV, check_config, haproxy_path, render_local

RUN_DIR = ROOT / "deploy" / ".run"
MAX_REPLICAS = 16


@dataclass
class Proc:
    name: str  # r1, r2, ... or haproxy
    port: int
    pid: int
    log: str
    marker: str  # a word its /proc/PID/cmdline must contain before we signal it

    def alive(self) -> bool:
        try:
            cmdline = Path(f"/proc/{self.pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return False
        # (Right after exec the kernel may still show an empty command line.)
        return (not cmdline or self.marker in cmdline) and stat[0] != "Z"


def _port_free(address: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address, port))
        except OSError:
            return False
    return True


def _healthy(url: str, headers: dict[str, str] | None = None) -> bool:
    try:
        request = urllib.request.Request(url + "/_stcore/health", headers=headers or {})
        with urllib.request.urlopen(request, timeout=2) as response:
            return response.status == 200 and response.read().strip() == b"ok"
    except (urllib.error.URLError, ConnectionError, OSError):
        return False


def _signal_group(proc: Proc, sig: int) -> None:
    """Signal the process group the process leads (it was started in its own session)."""
    if proc.alive():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)


class Cluster:
    """N replicas and HAProxy. start() / stop() from Python (tests, benchmarks) or the CLI below."""

    def __init__(
        self,
        replicas: int,
        port: int = 8500,
        address: str = "127.0.0.1",
        replica_ports: list[int] | None = None,
        run_dir: Path = RUN_DIR,
        python: str = sys.executable,
        app: str = "streamlit_app.py",
        extra: list[str] | None = None,
    ):
        if not 1 <= replicas <= MAX_REPLICAS:
            raise ValueError(f"choose 1 to {MAX_REPLICAS} replicas, not {replicas}")
        self.n, self.port, self.address = replicas, port, address
        self.replica_ports = list(replica_ports or range(port + 1, port + 1 + replicas))
        if len(self.replica_ports) != replicas or port in self.replica_ports:
            raise ValueError("need one distinct replica port per replica, none equal to the proxy's")
        self.run_dir = Path(run_dir)
        self.python, self.app, self.extra = python, app, list(extra or [])
        self.config = self.run_dir / "haproxy.cfg"
        self.socket = self.run_dir / "haproxy.sock"
        self.state_file = self.run_dir / "state.json"
        self.replicas: list[Proc] = []
        self.haproxy: Proc | None = None
        self._popen: dict[int, subprocess.Popen] = {}

    # -- where to reach it
    @property
    def url(self) -> str:
        host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(self.address, self.address)
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    def replica(self, name: str) -> Proc:
        """The replica with this name (= its SRV cookie value)."""
        return next(r for r in self.replicas if r.name == name)

    # -- start and stop
    def _spawn(self, name: str, port: int, cmd: list[str], marker: str, env: dict[str, str] | None = None) -> Proc:
        log = self.run_dir / f"{name}.log"
        with open(log, "w") as out:
            # Own session: the CLI can exit while it runs, and stop() ends its whole process group.
            popen = subprocess.Popen(
                cmd,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )
        self._popen[popen.pid] = popen
        return Proc(name, port, popen.pid, str(log), marker)

    def start(self, timeout: float = 90) -> Cluster:
        haproxy = haproxy_path()
        if haproxy is None:
            raise RuntimeError("haproxy is not installed (apt-get install -y haproxy)")
        busy = [p for p in self.replica_ports if not _port_free("127.0.0.1", p)]
        if not _port_free(self.address, self.port):
            busy.insert(0, self.port)
        if busy:
            raise RuntimeError(f"port(s) already in use: {busy}")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.run_dir, 0o700)
        names = [f"r{i + 1}" for i in range(self.n)]
        self.config.write_text(render_local(self.address, self.port, list(zip(names, self.replica_ports)), self.socket))
        check_config(self.config)

        env = dict(os.environ)
        env.setdefault(SECRET_ENV, secrets.token_hex(32))  # one secret for all, never on disk or argv
        try:
            for name, port in zip(names, self.replica_ports):
                cmd = [
                    self.python,
                    "-m",
                    "streamlit",
                    "run",
                    self.app,
                    "--server.port",
                    str(port),
                    "--server.address",
                    "127.0.0.1",
                    "--server.headless",
                    "true",
                    *self.extra,
                ]
                # each replica's queue workers under ids of their own ("<host>-r1-0", ...): two workers with one
                # executor id would each take back, on starting, the jobs the other has begun (services/jobrunner.py)
                own = {
                    **env,
                    "ATTENTION_LAB_REPLICA": f"{env.get('ATTENTION_LAB_REPLICA') or socket.gethostname()}-{name}",
                }
                self.replicas.append(self._spawn(name, port, cmd, "streamlit", own))
            deadline = time.monotonic() + timeout
            waiting = list(self.replicas)
            while waiting:
                for proc in list(waiting):
                    if not proc.alive():
                        raise RuntimeError(f"replica {proc.name} exited:\n{Path(proc.log).read_text()[-3000:]}")
                    if _healthy(f"http://127.0.0.1:{proc.port}"):
                        waiting.remove(proc)
                if waiting and time.monotonic() > deadline:
                    raise TimeoutError(f"replicas {[p.name for p in waiting]} not healthy within {timeout} s")
                time.sleep(0.1)
            self.haproxy = self._spawn("haproxy", self.port, [haproxy, "-db", "-f", str(self.config)], "haproxy")
            while not (self.socket.exists() and _healthy(self.url) and self._all_up()):
                if not self.haproxy.alive():
                    raise RuntimeError(f"haproxy exited:\n{Path(self.haproxy.log).read_text()[-3000:]}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no /_stcore/health through HAProxy at {self.url} within {timeout} s")
                time.sleep(0.1)
            self._save()
        except BaseException:
            self.stop()
            raise
        return self

    def _all_up(self) -> bool:
        try:
            return all(row["status"] == "UP" for row in self.stats().values())
        except OSError:
            return False

    def _save(self) -> None:
        state = {
            "url": self.url,
            "port": self.port,
            "address": self.address,
            "config": str(self.config),
            "socket": str(self.socket),
            "haproxy": vars(self.haproxy),
            "replicas": [vars(r) for r in self.replicas],
        }
        self.state_file.write_text(json.dumps(state, indent=1) + "\n")

    @classmethod
    def load(cls, run_dir: Path = RUN_DIR) -> Cluster:
        """The cluster a previous `start` recorded in run_dir (to stop it or ask its status)."""
        state = json.loads((Path(run_dir) / "state.json").read_text())
        replicas = [Proc(**r) for r in state["replicas"]]
        cluster = cls(
            len(replicas),
            port=state["port"],
            address=state["address"],
            replica_ports=[r.port for r in replicas],
            run_dir=run_dir,
        )
        cluster.replicas, cluster.haproxy = replicas, Proc(**state["haproxy"])
        return cluster

    def _wait_gone(self, procs: list[Proc], timeout: float) -> list[Proc]:
        deadline = time.monotonic() + timeout
        while True:
            for proc in procs:
                if proc.pid in self._popen:
                    self._popen[proc.pid].poll()  # reap our own children
            left = [p for p in procs if p.alive()]
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.05)

    def stop(self, timeout: float = 10) -> None:
        """HAProxy first (no new connections), then every replica: SIGTERM, SIGKILL after `timeout`."""
        for group in ([self.haproxy] if self.haproxy else [], self.replicas):
            for proc in group:
                _signal_group(proc, signal.SIGTERM)
            for proc in self._wait_gone(group, timeout):
                _signal_group(proc, signal.SIGKILL)
            self._wait_gone(group, 5)
        for popen in self._popen.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                popen.wait(timeout=1)
        with contextlib.suppress(FileNotFoundError):
            self.state_file.unlink()
        with contextlib.suppress(FileNotFoundError):
            self.socket.unlink()

    def kill(self, name: str) -> None:
        """A replica crashes: SIGKILL its process group (the tests' failover)."""
        proc = self.replica(name)
        _signal_group(proc, signal.SIGKILL)
        self._wait_gone([proc], 5)

    def alive(self) -> bool:
        return bool(self.haproxy and self.haproxy.alive()) or any(r.alive() for r in self.replicas)

    # -- HAProxy's view
    def stats(self) -> dict[str, dict[str, str]]:
        """`show stat` on the stats socket: {server name: its row} for the backend's servers."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(str(self.socket))
            sock.sendall(b"show stat\n")
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        text = b"".join(chunks).decode().lstrip("# ")
        rows = csv.DictReader(io.StringIO(text))
        return {
            row["svname"]: row
            for row in rows
            if row["pxname"] == BACKEND and row["svname"] not in ("BACKEND", "FRONTEND")
        }

    def wait_status(self, name: str, status: str, timeout: float = 15) -> None:
        """Wait until HAProxy reports the server as `status` (UP, DOWN, ...)."""
        deadline = time.monotonic() + timeout
        while (now := self.stats()[name]["status"]) != status:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} is {now}, not {status}, after {timeout} s")
            time.sleep(0.1)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
