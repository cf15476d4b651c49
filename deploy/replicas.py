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
import signal
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script (python deploy/replicas.py): the repository's root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from deploy.cluster import MAX_REPLICAS, RUN_DIR, Cluster
from deploy.haproxy_config import (
    COMPOSE_CONFIG,
    COOKIE,
    SECRET_ENV,
    check_config,
    haproxy_path,
    render_compose,
    render_local,
)

# What the benchmarks and tests read as replicas.X (the cluster and its config live beside this, its commands here)
__all__ = [
    "COMPOSE_CONFIG",
    "COOKIE",
    "MAX_REPLICAS",
    "RUN_DIR",
    "SECRET_ENV",
    "Cluster",
    "check_config",
    "haproxy_path",
    "main",
    "render_compose",
    "render_local",
]


# ------------------------------------------------------------------------------------------ CLI
def _status(cluster: Cluster) -> str:
    try:
        stats = cluster.stats()
    except OSError:
        stats = {}
    lines = [
        f"{cluster.url}  haproxy pid {cluster.haproxy.pid} "
        f"{'running' if cluster.haproxy and cluster.haproxy.alive() else 'NOT running'}"
    ]
    for r in cluster.replicas:
        row = stats.get(r.name, {})
        lines.append(
            f"  {r.name}  127.0.0.1:{r.port}  pid {r.pid} {'running' if r.alive() else 'NOT running':11}"
            f"  haproxy: {row.get('status', '?'):5}  connections now {row.get('scur', '?')}, "
            f"total {row.get('stot', '?')}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:3]),
    )
    parser.add_argument("--run-dir", type=Path, default=RUN_DIR, help=f"state, logs, config (default {RUN_DIR})")
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="start N replicas and HAProxy in front of them")
    start.add_argument("replicas", type=int, help=f"how many `streamlit run` processes (1-{MAX_REPLICAS})")
    start.add_argument("--port", type=int, default=8500, help="HAProxy's port (default 8500)")
    start.add_argument(
        "--address",
        default="127.0.0.1",
        help="HAProxy's bind address (default 127.0.0.1; 0.0.0.0 for the whole network)",
    )
    start.add_argument(
        "--replica-port", type=int, default=None, help="first replica port, the others follow (default: --port + 1)"
    )
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
        sys.stdout.write(
            render_compose()
            if args.compose
            else render_local(
                args.address,
                args.port,
                [(f"r{i + 1}", args.port + 1 + i) for i in range(args.replicas)],
                args.run_dir / "haproxy.sock",
            )
        )
        return 0

    state = args.run_dir / "state.json"
    if args.command == "start":
        if state.exists() and Cluster.load(args.run_dir).alive():
            parser.exit(1, f"already running (see `{Path(sys.argv[0]).name} status`); stop it first\n")
        first = args.replica_port or args.port + 1
        try:
            cluster = Cluster(
                args.replicas,
                port=args.port,
                address=args.address,
                replica_ports=list(range(first, first + args.replicas)),
                run_dir=args.run_dir,
            )
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
