"""Issue 52, the class experiment's queue (services/jobs.py on DBOS, the app's workers from services/jobrunner.py):
runs submitted by the server are trained by worker subprocesses and land in the rooms' store once, however often
submitted; a worker killed (SIGKILL) mid-run is started again under its executor id and the run is trained again
and kept once, its tries counted; a cancelled experiment's queued runs are never trained. Real processes, a real
SQLite queue (Python 3.12+ with a SQLite older than 3.42 goes through jobs._old_sqlite_shim)."""

from __future__ import annotations

import os
import signal
import time
import uuid

import pytest

from services import jobrunner, jobs
from services.poll import experiment as cx
from tests.test_poll import make, pg_url  # noqa: F401 - fixtures


@pytest.fixture
def room_store(make, monkeypatch):
    """A fresh rooms' store (SQLite or PostgreSQL, test_poll's fixture) that the server and its workers share; the
    queue beside it (a SQLite file next to the rooms' file, or DBOS's schema in the same PostgreSQL database)."""
    store = make()
    for name in ("DATABASE_URL", "ATTENTION_LAB_POLL_DB", "ATTENTION_LAB_QUEUE_DB", "ATTENTION_LAB_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL" if store.postgres else "ATTENTION_LAB_POLL_DB", store.target)
    monkeypatch.setenv("ATTENTION_LAB_REPLICA", f"test-{uuid.uuid4().hex[:8]}")
    yield store
    jobrunner.stop()
    jobs.close()


def until(done, seconds: float = 90.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if done():
            return True
        time.sleep(0.1)
    return False


def idle_threads(pids) -> list[int]:
    """The threads of these processes in Linux's idle scheduling class."""
    found = []
    for pid in pids:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                if os.sched_getscheduler(int(tid)) == os.SCHED_IDLE:
                    found.append(int(tid))
            except OSError:  # ended meanwhile
                pass
    return found


def _state(store, code):
    with store.engine.connect() as conn:
        return conn.execute(cx.sa.text("SELECT k, state, tries FROM poll_runs ORDER BY k")).all()


def test_the_servers_runs_are_trained_by_its_workers_once(room_store):
    s = room_store
    assert jobs.queue_url().endswith("queue.sqlite3" if not s.postgres else s.target.split("://", 1)[1])
    room = s.create_room()
    cx.start(s, room.code, room.key, cx.plan("previous", 40, 0.06, 1, 16))
    tickets = [cx.claim(s, room.code, f"seat-0000{i}") for i in range(1, 4)]
    for t in tickets + tickets[:1]:  # the first seat asks twice: one job
        jobs.submit(room.code, t.eid, t.k)
    pids = jobrunner.ensure(2)
    assert len(pids) == 2
    assert until(lambda: [os.getpriority(os.PRIO_PROCESS, p) for p in pids] == [jobrunner.NICE] * 2)  # below pages
    assert until(lambda: cx.tally(s, room.code, 1)["done"] == 3), _state(s, room.code)
    assert [tuple(r) for r in _state(s, room.code)] == [(1, "done", 1), (2, "done", 1), (3, "done", 1)]
    listed = jobs.client().list_workflows(workflow_id_prefix=f"{room.code}-run-1-", load_input=False, load_output=False)
    assert sorted(w.status for w in listed) == ["SUCCESS"] * 3


def test_a_worker_killed_mid_run_is_started_again_and_its_run_trained_again_once(room_store):
    s = room_store
    room = s.create_room()
    cx.start(s, room.code, room.key, cx.plan("induction", 480, 0.02, 2, 32))  # ~3 s a run
    t = cx.claim(s, room.code, "seat-00001")
    jobs.submit(room.code, t.eid, t.k)
    (pid,) = jobrunner.ensure(1)
    assert until(lambda: cx.tally(s, room.code, 1)["running"] == 1), _state(s, room.code)
    if hasattr(os, "SCHED_IDLE"):  # a class run trains in a thread of Linux's idle class (its worker at nice 10)
        assert until(lambda: idle_threads([pid]), 10), "a class run in a thread of the idle class"
        assert os.sched_getscheduler(pid) != os.SCHED_IDLE, "the worker's own thread is not"
    os.kill(pid, signal.SIGKILL)
    assert until(lambda: jobrunner._procs and all(p.poll() is not None for _, p in jobrunner._procs.values()), 10)
    (again,) = jobrunner.ensure(1)  # the same executor id: DBOS hands it back the job it had begun
    assert again != pid
    assert until(lambda: cx.tally(s, room.code, 1)["done"] == 1), _state(s, room.code)
    assert [tuple(r) for r in _state(s, room.code)] == [(1, "done", 2)]


def test_a_running_class_run_says_its_progress_and_the_page_reads_it(room_store):
    s = room_store
    room = s.create_room()
    cx.start(s, room.code, room.key, cx.plan("induction", 2000, 0.02, 2, 32))  # several seconds
    t = cx.claim(s, room.code, "seat-00001")
    assert jobs.progress(room.code, t.eid, t.k) is None, "no word before the job exists"
    jobs.submit(room.code, t.eid, t.k)
    jobrunner.ensure(1)
    said = []
    assert until(lambda: said.append(jobs.progress(room.code, t.eid, t.k)) or (said[-1] and said[-1][0] > 100))
    step, steps, loss, accuracy = said[-1]
    assert steps == 2000 and 0 < step < steps and loss > 0 and 0 <= accuracy <= 1
    assert until(lambda: cx.tally(s, room.code, 1)["done"] == 1)
    assert jobs.progress(room.code, t.eid, t.k)[0] >= step, "the newest word, never an older one"


def test_a_class_run_begun_outlives_the_server_that_started_its_worker(room_store):
    """A replica killed mid-run: its workers' stdin closes. The worker finishes the run it had begun (its numbers in
    the rooms' store, where every replica reads them), then leaves."""
    s = room_store
    room = s.create_room()
    cx.start(s, room.code, room.key, cx.plan("induction", 480, 0.02, 2, 32))  # ~1-3 s a run
    t = cx.claim(s, room.code, "seat-00001")
    jobs.submit(room.code, t.eid, t.k)
    jobrunner.ensure(1)
    (proc,) = [p for _, p in jobrunner._procs.values()]
    assert until(lambda: cx.tally(s, room.code, 1)["running"] == 1), _state(s, room.code)
    proc.stdin.close()  # what the server's death does to it
    assert until(lambda: proc.poll() is not None, 60), "it leaves"
    assert [tuple(r) for r in _state(s, room.code)] == [(1, "done", 1)], "after its run, trained once"


def test_a_cancelled_experiments_queued_runs_are_never_trained(room_store):
    s = room_store
    room = s.create_room()
    cx.start(s, room.code, room.key, cx.plan("induction", 480, 0.02, 2, 32))
    tickets = [cx.claim(s, room.code, f"seat-0000{i}") for i in range(1, 4)]
    for t in tickets:
        jobs.submit(room.code, t.eid, t.k)
    jobrunner.ensure(1)
    assert until(lambda: cx.tally(s, room.code, 1)["running"] == 1), _state(s, room.code)
    cx.cancel(s, room.code, room.key)
    assert jobs.cancel(room.code, 1) == 3  # the running one and the two queued
    time.sleep(4)  # longer than a run: the worker would have taken the next by now
    states = {k: (state, tries) for k, state, tries in _state(s, room.code)}
    assert states[2] == states[3] == ("cancelled", 0)


def test_a_closed_rooms_jobs_leave_the_queue_and_ended_jobs_are_tidied(room_store, monkeypatch):
    from services.poll import sweeper

    s = room_store
    closing, staying = s.create_room(), s.create_room()
    for room in (closing, staying):
        cx.start(s, room.code, room.key, cx.plan("previous", 30, 0.06, 1, 16))
        for i in (1, 2):
            t = cx.claim(s, room.code, f"seat-0000{i}")
            jobs.submit(room.code, t.eid, t.k)
    listed = lambda code: sorted(  # noqa: E731
        w.workflow_id for w in jobs.client().list_workflows(workflow_id_prefix=f"{code}-run-", load_input=False)
    )
    assert len(listed(closing.code)) == len(listed(staying.code)) == 2  # queued: no worker yet
    s.close_room(closing.code, closing.key)
    assert jobs.forget(closing.code) == 2
    assert listed(closing.code) == [] and len(listed(staying.code)) == 2, "only the closed room's jobs"
    jobrunner.ensure(1)
    assert until(lambda: cx.tally(s, staying.code, 1)["done"] == 2)
    assert until(lambda: all(w.status == "SUCCESS" for w in jobs.client().list_workflows(load_input=False)))
    sweeper.tidy_queue()
    assert len(listed(staying.code)) == 2, "ended less than KEEP_S ago: kept"
    monkeypatch.setattr(jobs, "KEEP_S", 0.0)
    sweeper.tidy_queue()  # what the sweeper does each minute
    assert listed(staying.code) == [], "ended: what the queue kept of the runs is gone (their numbers are the store's)"
    assert cx.tally(s, staying.code, 1)["done"] == 2


def test_a_tidy_makes_no_queue_where_there_is_none(tmp_path, monkeypatch):
    from services.poll import sweeper

    monkeypatch.setenv("ATTENTION_LAB_QUEUE_DB", f"sqlite:///{tmp_path / 'none' / 'queue.sqlite3'}")
    assert not jobs.exists()
    sweeper.tidy_queue()
    assert not (tmp_path / "none").exists()


def test_a_queue_that_does_not_answer_gives_the_default_and_any_other_error_is_raised(tmp_path, monkeypatch):
    """services/jobs.if_it_answers, the one guard of the sweeper, the closing panel and a student's progress bar: a
    queue in a directory that cannot be made (sqlite's OperationalError, through SQLAlchemy) gives the default; a bug
    in the caller is not hidden."""
    from dbos._error import DBOSException

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("ATTENTION_LAB_QUEUE_DB", f"sqlite:///{blocker / 'queue.sqlite3'}")
    jobs.close()
    try:
        assert jobs.if_it_answers(jobs.progress, "ROOM", 1, 1, default="unread") == "unread"
        assert jobs.if_it_answers(jobs.forget, "ROOM") is None
    finally:
        jobs.close()

    def fails(err):
        raise err

    assert jobs.if_it_answers(fails, OSError("disk"), default=0) == 0
    assert jobs.if_it_answers(fails, DBOSException("queue"), default=0) == 0
    with pytest.raises(KeyError):
        jobs.if_it_answers(fails, KeyError("a bug"))


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's idle scheduling class")
def test_a_class_runs_thread_is_in_the_idle_class_and_relays_its_newest_progress():
    from services import jobwork

    relayed = []

    def run(on_progress):
        for step in range(5):
            on_progress(step)
        time.sleep(1.5 * jobwork.PROGRESS_EVERY_S)
        on_progress("last")
        return os.sched_getscheduler(0)

    assert jobwork.in_a_thread(True, run, relay=relayed.append) == os.SCHED_IDLE
    assert os.sched_getscheduler(0) != os.SCHED_IDLE, "the caller's thread keeps its class"
    assert relayed == [4, "last"], "the newest value each time, none twice"

    def crash():
        raise MemoryError("in the run's thread")

    with pytest.raises(MemoryError, match="in the run's thread"):
        jobwork.in_a_thread(False, crash)


def test_unixepoch_subsec_is_given_where_sqlite_lacks_it():
    """DBOS stamps its rows with unixepoch('subsec') on Python 3.12+, which SQLite before 3.42 answers with NULL
    (Debian's Python links 3.40): the shim answers it with the time in seconds, and other arguments as SQLite."""
    import sqlite3

    now = time.time()
    assert abs(jobs._subsec("subsec") - now) < 5
    assert jobs._subsec("2026-01-01") == 1767225600
    engine = cx.sa.create_engine("sqlite://")
    cx.sa.event.listen(engine, "connect", jobs._connected)  # what the shim does for every pool of the process
    with engine.connect() as conn:
        value = conn.exec_driver_sql("SELECT unixepoch('subsec') * 1000").scalar()
    assert value is not None and abs(value / 1000 - now) < 5
    if sqlite3.sqlite_version_info < (3, 42):  # without it, SQLite's own answer
        with sqlite3.connect(":memory:") as plain:
            assert plain.execute("SELECT unixepoch('subsec')").fetchone()[0] is None


@pytest.mark.parametrize("make", ["sqlite"], indirect=True)  # the service is the same on PostgreSQL
def test_a_worker_service_trains_the_runs_and_stops_its_workers_on_sigterm(room_store, monkeypatch):
    """`python -m services.jobrunner` (compose's `workers`, the Kubernetes StatefulSet): the app with
    ATTENTION_LAB_WORKERS=external starts none, the service's own workers train the runs, and SIGTERM stops them."""
    import subprocess
    import sys

    s = room_store
    monkeypatch.setenv("ATTENTION_LAB_WORKERS", "external")
    assert jobrunner.ensure() == []
    room = s.create_room()
    cx.start(s, room.code, room.key, cx.plan("previous", 40, 0.06, 1, 16))
    t = cx.claim(s, room.code, "seat-00001")
    jobs.submit(room.code, t.eid, t.k)
    service = subprocess.Popen([sys.executable, "-m", "services.jobrunner"], cwd=jobrunner.ROOT)
    try:
        assert until(lambda: cx.tally(s, room.code, 1)["done"] == 1, 60), _state(s, room.code)
        service.send_signal(signal.SIGTERM)
        assert service.wait(timeout=20) == 0
    finally:
        if service.poll() is None:
            service.kill()
    replica = os.environ["ATTENTION_LAB_REPLICA"]
    left = subprocess.run(["pgrep", "-f", f"services.jobs {replica}-"], capture_output=True, text=True).stdout
    assert left.strip() == ""  # its workers left with it
