"""The class poll's store, one per server process (SQLite file or DATABASE_URL), shared by its sessions, and its
sweeper: a thread that deletes expired rooms every minute while the server runs, whether or not anyone uses the
app (services/poll/sweeper.py). A server started afresh starts it SWEEPER_AFTER_S after its
first session if a rooms' database is there (a room nobody closed before a restart goes too), without slowing
that first page: SQLAlchemy is imported then, in that thread."""

from __future__ import annotations

import threading

import streamlit as st

from ui import streamlit_internals as internals

SWEEPER_AFTER_S = 30.0
_started = threading.Event()  # this process's first session has asked for the sweeper


@st.cache_resource(show_spinner=False)
def store():
    """SQLAlchemy is imported here, when a room is first opened, not by a page without one."""
    from services.poll.store import Store
    from services.poll.sweeper import sweep_in_background

    made = Store()
    sweep_in_background(made)
    return made


def sweep_later(after_s: float = SWEEPER_AFTER_S) -> None:
    """Once a server process (each session's first run calls it: after the first, nothing): if the rooms'
    database exists, open the store (and its sweeper) after_s from now, in a daemon thread."""
    if _started.is_set() or not internals.can_push():  # a Streamlit server's session only (not AppTest)
        return
    _started.set()
    timer = threading.Timer(after_s, _open_if_there)
    timer.daemon = True
    timer.start()


def _open_if_there() -> None:
    import contextlib
    from pathlib import Path

    from services.poll.codes import PollError
    from services.poll.connect import default_target

    target = default_target()
    if target.startswith(("postgres://", "postgresql://")) or Path(target).exists():
        with contextlib.suppress(PollError, OSError):
            store()
