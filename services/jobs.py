"""The app's one task queue, for every training it asks for (issue 52): DBOS (https://docs.dbos.dev), a maintained
library whose queue lives in a database, chosen for what the hall needs (README, "The class experiment's queue"):
- at-least-once: a job whose worker dies is run again when a worker with the dead one's executor id starts (the
  supervisor below restarts it, a Kubernetes StatefulSet's pod keeps its name), at most MAX_TRIES times;
- embedded: on one machine the queue is a SQLite file beside the rooms' and the app starts its workers itself, as
  niced subprocesses (services/jobrunner.py), never inside the server process;
- distributed: on PostgreSQL (DATABASE_URL, the rooms' database; DBOS keeps its tables in its own schema) the
  workers are their own service that scales apart from the app (deploy/k8s/workers.yaml, docker-compose.yml).

Two kinds of job share the queue and its workers:
- a Learn page's training (services/learnruns.py), which a student watches live: its progress and then the run come
  back through a DBOS stream, and it goes before any class run (LEARN_PRIORITY < CLASS_PRIORITY);
- a class experiment's run k: a job names its run (room, experiment, k) and nothing else; the worker reads the
  run's plan from the rooms' database and writes the run's numbers there (services/classwork.py), where every
  replica and the presenter read them. Its id is the run's own, so a seat asking twice, or two replicas submitting
  the same run, make one job.
The server only enqueues, reads and cancels, through DBOSClient (it runs no job). No Streamlit here.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from services.jobwork import PROGRESS, in_a_thread, learn, leave

QUEUE = "class-runs"
VERSION = "attention-lab-class-runs-1"  # every worker's application version: DBOS hands a job only to its own
POLL_S = 0.1  # how often an idle worker asks the queue (DBOS's default, 1 s, adds ~0.7 s before a run starts)
WORKFLOW = "class_run"
LEARN_WORKFLOW = "learn_run"
LEARN_PRIORITY, CLASS_PRIORITY = 1, 10  # DBOS takes the lowest first: a student watching goes before the hall's runs
KEEP_S = 600.0  # an ended job is deleted after this long (a Learn job's page may still be reading it)
ENDED = ["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]
MAX_TRIES = 3  # services/poll/experiment.MAX_TRIES: DBOS's recovery limit counts the same starts


def queue_url(target: str | None = None) -> str:
    """The queue's database: ATTENTION_LAB_QUEUE_DB if set; else the rooms' PostgreSQL, or a SQLite file beside the
    rooms' SQLite file."""
    if os.environ.get("ATTENTION_LAB_QUEUE_DB"):
        return os.environ["ATTENTION_LAB_QUEUE_DB"]
    from services.poll.connect import default_target

    target = target or default_target()
    if target.startswith(("postgres://", "postgresql://")):
        return "postgresql://" + target.split("://", 1)[1]
    return f"sqlite:///{Path(target).with_name('queue.sqlite3')}"


def _subsec(modifier):
    """unixepoch('subsec') for a SQLite older than 3.42 (which returns NULL for it): DBOS writes its timestamps with
    it on Python 3.12 and later, taking a new enough SQLite for granted, where Debian's Python links 3.40."""
    if modifier == "subsec":
        return time.time()
    with sqlite3.connect(":memory:") as plain:  # any other argument: SQLite's own function
        return plain.execute("SELECT unixepoch(?)", (modifier,)).fetchone()[0]


def _old_sqlite_shim(needed: bool | None = None) -> None:
    """Give every new SQLite connection of this process unixepoch('subsec') where DBOS asks for it (Python 3.12 and
    later) and SQLite lacks it (before 3.42); needed: whether to, decided by the caller (a test)."""
    if needed is None:
        needed = sys.version_info >= (3, 12) and sqlite3.sqlite_version_info < (3, 42)
    if not needed:
        return
    import sqlalchemy as sa

    if not sa.event.contains(sa.pool.Pool, "connect", _connected):
        sa.event.listen(sa.pool.Pool, "connect", _connected)


def _connected(dbapi_connection, record) -> None:
    if isinstance(dbapi_connection, sqlite3.Connection):
        dbapi_connection.create_function("unixepoch", 1, _subsec)


def _wal(url: str) -> None:
    """The queue's SQLite file in WAL mode (kept by the file) and every SQLite connection of this process at WAL's
    durable-enough sync, as the rooms' file (services/poll/connect.py): DBOS leaves SQLite in its rollback journal,
    where a page polling a job's stream holds off the worker writing it, and every write waits for the disk."""
    if not url.startswith("sqlite:///"):
        return
    import sqlalchemy as sa

    path = Path(url.removeprefix("sqlite:///"))
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path, timeout=30) as plain:
        plain.execute("PRAGMA journal_mode=WAL")
    plain.close()
    if not sa.event.contains(sa.pool.Pool, "connect", _normal_sync):
        sa.event.listen(sa.pool.Pool, "connect", _normal_sync)


def _normal_sync(dbapi_connection, record) -> None:
    if isinstance(dbapi_connection, sqlite3.Connection):
        dbapi_connection.execute("PRAGMA synchronous=NORMAL")


# ------------------------------------------------------------------------------------------- the server's side
_client_lock = threading.Lock()
_clients: dict[str, object] = {}


def client(url: str | None = None):
    """This process's DBOSClient on the queue's database (made once: the schema migrated, the queue registered)."""
    url = url or queue_url()
    with _client_lock:
        found = _clients.get(url)
        if found is None:
            _old_sqlite_shim()
            from dbos import DBOS, DBOSClient

            _wal(url)
            DBOS.migrate(url)
            found = DBOSClient(system_database_url=url)
            found.register_queue(QUEUE, worker_concurrency=1, polling_interval_sec=POLL_S)
            _clients[url] = found
        return found


def job_id(code: str, eid: int, k: int) -> str:
    return f"{code}-run-{eid}-{k}"


def submit(code: str, eid: int, k: int, url: str | None = None) -> str:
    """Queue run k of the room's experiment eid (once: the same run again is the same job); its job id."""
    wid = job_id(code, eid, k)
    options = {"workflow_name": WORKFLOW, "queue_name": QUEUE, "workflow_id": wid, "app_version": VERSION}
    client(url).enqueue({**options, "priority": CLASS_PRIORITY}, code, eid, k)
    return wid


def progress(code: str, eid: int, k: int, url: str | None = None) -> tuple[int, int, float, float] | None:
    """Where run k is, as its worker last said (step, steps, loss, batch accuracy); None before its first word."""
    found = client(url).get_event(job_id(code, eid, k), PROGRESS, timeout_seconds=0)
    return None if found is None else tuple(found)


def cancel(code: str, eid: int, url: str | None = None) -> int:
    """Cancel the experiment's jobs that are queued or running (a running one stops at its next step, and the
    rooms' store has its run cancelled already: services/poll/experiment.cancel); how many."""
    c = client(url)
    ids = [
        w.workflow_id
        for w in c.list_workflows(
            workflow_id_prefix=f"{code}-run-{eid}-", status=["ENQUEUED", "PENDING"], load_input=False, load_output=False
        )
    ]
    if ids:
        c.cancel_workflows(ids)
    return len(ids)


def tidy(url: str | None = None) -> int:
    """Delete the jobs of either kind that ended KEEP_S ago or more (a class run's numbers are in the rooms' store,
    a read Learn job is deleted by its reader): what the queue keeps of a run goes with it; how many went."""
    c = client(url)
    before = (datetime.now(UTC) - timedelta(seconds=KEEP_S)).isoformat()
    old = [w.workflow_id for w in c.list_workflows(status=ENDED, end_time=before, load_input=False, load_output=False)]
    if old:
        c.delete_workflows(old)
    return len(old)


def forget(code: str, url: str | None = None) -> int:
    """Cancel and delete every job of the room's class runs (the room is closed: nothing of it stays); how many."""
    c = client(url)
    ids = [
        w.workflow_id for w in c.list_workflows(workflow_id_prefix=f"{code}-run-", load_input=False, load_output=False)
    ]
    if ids:
        c.cancel_workflows(ids)
        c.delete_workflows(ids)
    return len(ids)


def exists(url: str | None = None) -> bool:
    """Whether the queue's database is there (a SQLite file; PostgreSQL always), so a tidy need not make one."""
    url = url or queue_url()
    return not url.startswith("sqlite:///") or Path(url.removeprefix("sqlite:///")).exists()


def if_it_answers(act, *args, default=None):
    """`act(*args)` on the queue, or `default` where the queue does not answer (a missing or locked file, a database
    that is down, DBOS's own errors): the caller's page or sweep goes on without it, and tries again next time."""
    import sqlalchemy as sa
    from dbos._error import DBOSException

    try:
        return act(*args)
    except (OSError, sa.exc.SQLAlchemyError, DBOSException):
        return default


def close() -> None:
    """Drop this process's clients (tests; a server shutting down)."""
    with _client_lock:
        for found in _clients.values():
            found.destroy()
        _clients.clear()


# -------------------------------------------------------------------------------------------- a worker's side
def serve(executor: str, url: str | None = None) -> None:
    """A worker: runs the queue's jobs one at a time until its parent closes its stdin (when started by the app's
    supervisor) or it is stopped. `executor` must be stable across its restarts: DBOS recovers the jobs a worker
    of that id had begun."""
    _old_sqlite_shim()
    _wal(url or queue_url())
    idle = bool(os.environ.get("ATTENTION_LAB_WORKER_NICE"))
    if idle:  # the app's supervisor: below the server's pages
        os.nice(int(os.environ["ATTENTION_LAB_WORKER_NICE"]))
    from dbos import DBOS

    from services import classwork
    from services.poll.store import Store

    stores: list[Store] = []  # the rooms' database, found as the server finds it, opened by the first class run

    @DBOS.step()
    def train(code: str, eid: int, k: int) -> str:
        if not stores:
            stores.append(Store())
        return in_a_thread(idle, classwork.work, stores[0], code, eid, k, relay=lambda v: DBOS.set_event(PROGRESS, v))

    learn_step = DBOS.step(name="learn")(learn)

    @DBOS.workflow(name=LEARN_WORKFLOW, max_recovery_attempts=MAX_TRIES)
    def learn_run(task, cfg, steps: int, seed: int, lr) -> str:
        return learn_step(task, cfg, steps, seed, lr)

    @DBOS.workflow(name=WORKFLOW, max_recovery_attempts=MAX_TRIES)
    def class_run(code: str, eid: int, k: int) -> str:
        return train(code, eid, k)

    DBOS(
        config={
            "name": "attention-lab",
            "system_database_url": url or queue_url(),
            "executor_id": executor,
            "application_version": VERSION,
            "log_level": os.environ.get("ATTENTION_LAB_QUEUE_LOG", "WARNING"),
        }
    )
    DBOS.launch()  # the queue itself is in the database (client() registers it): this worker takes it up
    if os.environ.get("ATTENTION_LAB_WORKER_PARENT") == "1":  # the app's supervisor: leave with it
        sys.stdin.read()
        leave()  # the class runs begun first
        os._exit(0)
    threading.Event().wait()


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].strip():
        sys.exit("usage: python -m services.jobs EXECUTOR_ID   (stable across restarts, e.g. a pod's name)")
    serve(sys.argv[1])
