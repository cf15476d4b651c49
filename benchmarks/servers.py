"""A `streamlit run` of any checkout of the app, and its CPU time read precisely.

The server runs in the checkout's own folder (its streamlit_app.py, pages/ and .streamlit/config.toml),
with an empty weights cache of its own ($ATTENTION_LAB_CACHE in a temp folder: a fresh deployment,
and nothing written into the checkout) and no .pyc files written there. harness.browser.Server starts
and stops it (by its PID).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from harness import browser as bs


def checkout(path: str | Path) -> Path:
    """A checkout of the app (a folder with streamlit_app.py and pages/), resolved."""
    folder = Path(path).expanduser().resolve()
    if not (folder / "streamlit_app.py").is_file() or not (folder / "pages").is_dir():
        raise SystemExit(f"{folder} is not a checkout of the app (no streamlit_app.py and pages/)")
    return folder


def label(folder: Path) -> str:
    """The checkout's folder and commit, for reports."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{folder} ({commit or 'no git'})"


@contextlib.contextmanager
def server(
    folder: Path,
    log_name: str,
    extra: list[str] | None = None,
    launcher: list[str] | None = None,
    app: str = "streamlit_app.py",
):
    """A started server of this checkout's `app` (launched by `launcher`, default `python -m streamlit`); stopped
    and its weights cache removed afterwards."""
    cache = tempfile.mkdtemp(prefix="attention-lab-bench-cache-")
    saved = {name: os.environ.get(name) for name in ("ATTENTION_LAB_CACHE", "PYTHONDONTWRITEBYTECODE")}
    os.environ.update(ATTENTION_LAB_CACHE=cache, PYTHONDONTWRITEBYTECODE="1")
    try:
        started = bs.Server(app=app, cwd=folder, extra=extra, log_name=log_name, launcher=launcher).start(timeout=120)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    try:
        yield started
    finally:
        started.stop()
        shutil.rmtree(cache, ignore_errors=True)


class Cpu:
    """CPU time of a process, all its threads (ended ones too), in seconds.

    The kernel's per-process CPU clock (clock_getcpuclockid) is read to the nanosecond; where it cannot
    be opened, /proc/PID/stat's utime + stime (clock ticks, 10 ms) are read instead.
    """

    def __init__(self, pid: int):
        self.pid = pid
        self.clock: int | None = None
        clock = ctypes.c_int()
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.clock_getcpuclockid(pid, ctypes.byref(clock)) == 0:
                time.clock_gettime(clock.value)
                self.clock = clock.value
        except (OSError, AttributeError):
            self.clock = None

    def seconds(self) -> float:
        if self.clock is not None:
            return time.clock_gettime(self.clock)
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
