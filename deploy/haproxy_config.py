"""The HAProxy config in front of the replicas (deploy/replicas.py): deploy/haproxy.cfg.in with its placeholders
filled in, for replicas on this machine or for compose.yaml's (deploy/haproxy-compose.cfg), and HAProxy's own
check of a config.
"""

from __future__ import annotations

import os
import shutil
import string
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "haproxy.cfg.in"
COMPOSE_CONFIG = ROOT / "deploy" / "haproxy-compose.cfg"
COMPOSE_MAX_REPLICAS = 8  # server-template slots; `docker compose up --scale app=N`, N ≤ this
COOKIE = "SRV"  # HAProxy's affinity cookie (the template's `cookie SRV insert ...`)
BACKEND = "streamlit"
SECRET_ENV = "STREAMLIT_SERVER_COOKIE_SECRET"


# ---------------------------------------------------------------------------------- the config
def _bind(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def render(bind: str, servers: str, global_extra: str = "", cookie_extra: str = "") -> str:
    """The template with its placeholders filled in."""
    return string.Template(TEMPLATE.read_text()).substitute(
        bind=bind, servers=servers, global_extra=global_extra, cookie_extra=cookie_extra
    )


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
    servers = (
        f'    dynamic-cookie-key "${{{SECRET_ENV}}}"\n'
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
        "    accepted_payload_size 8192\n"
    )
    return render(_bind("0.0.0.0", 8500), servers, cookie_extra=" dynamic")


def haproxy_path() -> str | None:
    for candidate in (os.environ.get("HAPROXY"), shutil.which("haproxy"), "/usr/sbin/haproxy"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def check_config(path: Path, env: dict[str, str] | None = None) -> None:
    """`haproxy -c`: raises with HAProxy's message if the config is not valid."""
    done = subprocess.run(
        [haproxy_path() or "haproxy", "-c", "-f", str(path)], capture_output=True, text=True, timeout=30, env=env
    )
    if done.returncode != 0:
        raise RuntimeError(f"haproxy rejects {path}:\n{done.stdout}{done.stderr}")
