"""A throwaway PostgreSQL server for the tests: Debian's binaries, run as an unprivileged user in a
temporary folder, listening on a Unix socket only, stopped by its PID."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager


def binaries() -> str | None:
    """The newest /usr/lib/postgresql/<version>/bin holding initdb and postgres, or None."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/postgres"),
        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0,
    )
    return os.path.dirname(found[-1]) if found else None


def _free_port() -> int:
    """A port number no one listens on (names the socket file; nothing listens on TCP)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def server():
    """Yields a postgresql:// URL to a fresh database; the server and its folder are gone afterwards."""
    bin_dir = binaries()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL is not installed (apt-get install postgresql)")
    as_root = os.geteuid() == 0
    user = pwd.getpwnam("nobody") if as_root else pwd.getpwuid(os.geteuid())  # PostgreSQL refuses root
    folder = tempfile.mkdtemp(prefix="attention-lab-pg-")
    os.chown(folder, user.pw_uid, user.pw_gid) if as_root else None
    data = os.path.join(folder, "data")
    run = dict(user=user.pw_uid, group=user.pw_gid, extra_groups=[]) if as_root else {}
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": folder}
    subprocess.run(
        [f"{bin_dir}/initdb", "-D", data, "-U", user.pw_name, "--auth=trust", "-E", "UTF8", "--no-sync"],
        check=True,
        capture_output=True,
        env=env,
        cwd=folder,
        **run,
    )
    port = _free_port()
    log = open(os.path.join(folder, "postgres.log"), "wb")
    proc = subprocess.Popen(
        [
            f"{bin_dir}/postgres",
            "-D",
            data,
            "-p",
            str(port),
            "-k",
            folder,
            "-h",
            "",
            "-c",
            "fsync=off",
            "-c",
            "max_connections=200",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=folder,
        start_new_session=True,
        **run,
    )
    url = f"postgresql:///postgres?host={folder}&port={port}&user={user.pw_name}"
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(os.path.join(folder, f".s.PGSQL.{port}")):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("PostgreSQL did not start: " + open(log.name).read()[-2000:])
            time.sleep(0.05)
        time.sleep(0.2)  # the socket exists a moment before connections are accepted
        yield url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # "fast" shutdown, by this server's own PID
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
