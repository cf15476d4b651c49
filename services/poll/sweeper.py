"""The expired rooms' sweeper (issue 51): a daemon thread of the server process that deletes expired rooms every
minute whether or not anyone uses the app, so a room nobody closed goes within a minute of its expiry even on an
evening after the lecture when nobody opens a page (ordinary use of a store sweeps too: Store._sweep), and the task
queue's ended jobs with it (services/jobs.tidy). Pure Python: ui/poll/db.py starts it with the process's store."""

from __future__ import annotations

import contextlib
import threading
import weakref

from services.poll.codes import PollError
from services.poll.store import SWEEP_EVERY_S, Store


def tidy_queue() -> None:
    """The task queue's ended jobs deleted too (services/jobs.tidy: a closed or expired room's runs with the rest),
    where a queue exists; one that does not answer is tidied at the next turn."""
    from services import jobs

    if jobs.exists():
        jobs.if_it_answers(jobs.tidy)


def sweep_in_background(store: Store, every_s: float = SWEEP_EVERY_S) -> threading.Thread:
    """Delete `store`'s expired rooms now and then every `every_s`, in a daemon thread, while the store lives.
    It holds the store weakly and ends once the store is gone or closed; a database that does not answer is tried
    again at the next turn."""
    mine, closed = weakref.ref(store), store.closed

    def sweep() -> None:
        while not closed.is_set():
            held = mine()
            if held is None:
                return
            with contextlib.suppress(PollError):
                held.purge()
            tidy_queue()
            del held
            closed.wait(every_s)

    thread = threading.Thread(target=sweep, name="poll-sweeper", daemon=True)
    thread.start()
    return thread
