#!/usr/bin/env python3
"""Attention Lab for a lecture hall: N `streamlit run` replicas behind HAProxy on one machine.

    .venv/bin/python deploy/replicas.py start 2                  # http://127.0.0.1:8500 → replicas on 8501, 8502
    .venv/bin/python deploy/replicas.py start 3 --port 8080 --address 0.0.0.0      # the whole network
    .venv/bin/python deploy/replicas.py status                   # each replica: UP/DOWN, sessions now/total
    .venv/bin/python deploy/replicas.py stop
    .venv/bin/python deploy/replicas.py config --compose         # the haproxy config compose.yaml mounts

`start` returns once every replica answers /_stcore/health and HAProxy forwards; the processes keep
running in their own sessions (logs, the generated haproxy.cfg, the PIDs and the stats socket are in
deploy/.run/). `stop` ends exactly the PIDs that `start` recorded. `--foreground` keeps `start` in the
foreground until Ctrl-C or SIGTERM (for a systemd unit or a terminal you watch).

Each replica is `streamlit run streamlit_app.py --server.port P --server.address 127.0.0.1
--server.headless true`, run from the repository root so `.streamlit/config.toml` applies (XSRF and
CORS stay at their defaults); only HAProxy listens on --address. All replicas share one cookie secret
(server.cookieSecret, signs Streamlit's cookies): taken from STREAMLIT_SERVER_COOKIE_SECRET if set,
otherwise generated at start, and only ever passed in the replicas' environment, never written down.

HAProxy (Debian's `haproxy` package) does all the proxying; see deploy/haproxy.cfg.in and deploy/README.md.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import secrets
import shutil
import signal
import socket
import string
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "haproxy.cfg.in"
RUN_DIR = ROOT / "deploy" / ".run"
COMPOSE_CONFIG = ROOT / "deploy" / "haproxy-compose.cfg"
COMPOSE_MAX_REPLICAS = 8            # server-template slots; `docker compose up --scale app=N`, N ≤ this
COOKIE = "SRV"                      # HAProxy's affinity cookie (the template's `cookie SRV insert ...`)
BACKEND = "streamlit"
SECRET_ENV = "STREAMLIT_SERVER_COOKIE_SECRET"
MAX_REPLICAS = 16


# ---------------------------------------------------------------------------------- the config
def _bind(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def render(bind: str, servers: str, global_extra: str = "", cookie_extra: str = "") -> str:
    """The template with its placeholders filled in."""
    return string.Template(TEMPLATE.read_text()).substitute(
        bind=bind, servers=servers, global_extra=global_extra, cookie_extra=cookie_extra)


def render_local(address: str, port: int, replicas: list[tuple[str, int]], stats_socket: Path) -> str:
    """Config for replicas on this machine: one `server` line each, its cookie value = its name."""
    servers = "\n".join(f"    server {name} 127.0.0.1:{rport} cookie {name} check" for name, rport in replicas)
    stats = f"    stats socket {stats_socket} mode 600 level operator\n"
    return render(_bind(address, port), servers + "\n", global_extra=stats)


def render_compose(max_replicas: int = COMPOSE_MAX_REPLICAS) -> str:
    """Config for compose.yaml: the `app` service's replicas found through Docker's DNS.

    Every A record of `app` fills one server-template slot; the cookie value is derived from the
    replica's address and port with a key from the environment (`dynamic` cookies).
    """
    servers = (f'    dynamic-cookie-key "${{{SECRET_ENV}}}"\n'
               f"    server-template app 1-{max_replicas} app:8501 check resolvers docker init-addr none\n"
               "\n"
               "# Docker's embedded DNS: replicas appear and disappear as `--scale app=N` changes.\n"
               "resolvers docker\n"
               "    nameserver dns 127.0.0.11:53\n"
               "    resolve_retries 3\n"
               "    timeout resolve 1s\n"
               "    timeout retry 1s\n"
               "    hold valid 5s\n"
               "    hold other 5s\n"
               "    hold refused 5s\n"
               "    hold nx 5s\n"
               "    hold timeout 5s\n"
               "    hold obsolete 5s\n"
               "    accepted_payload_size 8192\n")
    return render(_bind("0.0.0.0", 8500), servers, cookie_extra=" dynamic")


def haproxy_path() -> str | None:
    for candidate in (os.environ.get("HAPROXY"), shutil.which("haproxy"), "/usr/sbin/haproxy"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def check_config(path: Path, env: dict[str, str] | None = None) -> None:
    """`haproxy -c`: raises with HAProxy's message if the config is not valid."""
    done = subprocess.run([haproxy_path() or "haproxy", "-c", "-f", str(path)], capture_output=True,
                          text=True, timeout=30, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"haproxy rejects {path}:\n{done.stdout}{done.stderr}")


# ---------------------------------------------------------------------------------- processes
@dataclass
class Proc:
    name: str                   # r1, r2, ... or haproxy
    port: int
    pid: int
    log: str
    marker: str                 # a word its /proc/PID/cmdline must contain before we signal it

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

    def __init__(self, replicas: int, port: int = 8500, address: str = "127.0.0.1",
                 replica_ports: list[int] | None = None, run_dir: Path = RUN_DIR,
                 python: str = sys.executable, app: str = "streamlit_app.py", extra: list[str] | None = None):
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
            popen = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        self._popen[popen.pid] = popen
        return Proc(name, port, popen.pid, str(log), marker)

    def start(self, timeout: float = 90) -> "Cluster":
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
        self.config.write_text(render_local(self.address, self.port, list(zip(names, self.replica_ports)),
                                            self.socket))
        check_config(self.config)

        env = dict(os.environ)
        env.setdefault(SECRET_ENV, secrets.token_hex(32))     # one secret for all, never on disk or argv
        try:
            for name, port in zip(names, self.replica_ports):
                cmd = [self.python, "-m", "streamlit", "run", self.app, "--server.port", str(port),
                       "--server.address", "127.0.0.1", "--server.headless", "true", *self.extra]
                self.replicas.append(self._spawn(name, port, cmd, "streamlit", env))
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
            self.haproxy = self._spawn("haproxy", self.port, [haproxy, "-db", "-f", str(self.config)],
                                       "haproxy")
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
        state = {"url": self.url, "port": self.port, "address": self.address, "config": str(self.config),
                 "socket": str(self.socket), "haproxy": vars(self.haproxy),
                 "replicas": [vars(r) for r in self.replicas]}
        self.state_file.write_text(json.dumps(state, indent=1) + "\n")

    @classmethod
    def load(cls, run_dir: Path = RUN_DIR) -> "Cluster":
        """The cluster a previous `start` recorded in run_dir (to stop it or ask its status)."""
        state = json.loads((Path(run_dir) / "state.json").read_text())
        replicas = [Proc(**r) for r in state["replicas"]]
        cluster = cls(len(replicas), port=state["port"], address=state["address"],
                      replica_ports=[r.port for r in replicas], run_dir=run_dir)
        cluster.replicas, cluster.haproxy = replicas, Proc(**state["haproxy"])
        return cluster

    def _wait_gone(self, procs: list[Proc], timeout: float) -> list[Proc]:
        deadline = time.monotonic() + timeout
        while True:
            for proc in procs:
                if proc.pid in self._popen:
                    self._popen[proc.pid].poll()            # reap our own children
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
        return {row["svname"]: row for row in rows
                if row["pxname"] == BACKEND and row["svname"] not in ("BACKEND", "FRONTEND")}

    def wait_status(self, name: str, status: str, timeout: float = 15) -> None:
        """Wait until HAProxy reports the server as `status` (UP, DOWN, ...)."""
        deadline = time.monotonic() + timeout
        while (now := self.stats()[name]["status"]) != status:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} is {now}, not {status}, after {timeout} s")
            time.sleep(0.1)

    def __enter__(self) -> "Cluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# ------------------------------------------------------------------------------------------ CLI
def _status(cluster: Cluster) -> str:
    try:
        stats = cluster.stats()
    except OSError:
        stats = {}
    lines = [f"{cluster.url}  haproxy pid {cluster.haproxy.pid} "
             f"{'running' if cluster.haproxy and cluster.haproxy.alive() else 'NOT running'}"]
    for r in cluster.replicas:
        row = stats.get(r.name, {})
        lines.append(f"  {r.name}  127.0.0.1:{r.port}  pid {r.pid} {'running' if r.alive() else 'NOT running':11}"
                     f"  haproxy: {row.get('status', '?'):5}  connections now {row.get('scur', '?')}, "
                     f"total {row.get('stot', '?')}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:3]))
    parser.add_argument("--run-dir", type=Path, default=RUN_DIR, help=f"state, logs, config (default {RUN_DIR})")
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="start N replicas and HAProxy in front of them")
    start.add_argument("replicas", type=int, help=f"how many `streamlit run` processes (1-{MAX_REPLICAS})")
    start.add_argument("--port", type=int, default=8500, help="HAProxy's port (default 8500)")
    start.add_argument("--address", default="127.0.0.1",
                       help="HAProxy's bind address (default 127.0.0.1; 0.0.0.0 for the whole network)")
    start.add_argument("--replica-port", type=int, default=None,
                       help="first replica port, the others follow (default: --port + 1)")
    start.add_argument("--foreground", action="store_true", help="stay until Ctrl-C / SIGTERM, then stop")
    sub.add_parser("stop", help="stop what `start` started (by its recorded PIDs)")
    sub.add_parser("status", help="each process and HAProxy's view of each replica")
    config = sub.add_parser("config", help="print a generated HAProxy config")
    config.add_argument("--compose", action="store_true", help="the one deploy/haproxy-compose.cfg holds")
    config.add_argument("replicas", type=int, nargs="?", default=2)
    config.add_argument("--port", type=int, default=8500)
    config.add_argument("--address", default="127.0.0.1")
    args = parser.parse_args(argv)

    if args.command == "config":
        sys.stdout.write(render_compose() if args.compose else render_local(
            args.address, args.port, [(f"r{i + 1}", args.port + 1 + i) for i in range(args.replicas)],
            args.run_dir / "haproxy.sock"))
        return 0

    state = args.run_dir / "state.json"
    if args.command == "start":
        if state.exists() and Cluster.load(args.run_dir).alive():
            parser.exit(1, f"already running (see `{Path(sys.argv[0]).name} status`); stop it first\n")
        first = args.replica_port or args.port + 1
        try:
            cluster = Cluster(args.replicas, port=args.port, address=args.address,
                              replica_ports=list(range(first, first + args.replicas)), run_dir=args.run_dir)
        except ValueError as exc:
            parser.error(str(exc))
        try:
            cluster.start()
        except (RuntimeError, TimeoutError) as exc:
            parser.exit(1, f"start failed: {exc}\n")
        print(_status(cluster))
        stop = "Ctrl-C" if args.foreground else f"`{sys.executable} deploy/replicas.py stop`"
        print(f"Open {cluster.url}  (logs and config in {args.run_dir}); stop it with {stop}", flush=True)
        if args.foreground:
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
            try:
                while cluster.alive():
                    time.sleep(1)
            except (KeyboardInterrupt, SystemExit):
                pass
            finally:
                cluster.stop()
        return 0

    if not state.exists():
        print(f"nothing running (no {state})")
        return 0 if args.command == "stop" else 1
    cluster = Cluster.load(args.run_dir)
    if args.command == "status":
        print(_status(cluster))
        return 0
    cluster.stop()
    print("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
