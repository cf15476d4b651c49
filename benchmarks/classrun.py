"""The class experiment's queue at scale (issue 52): how long a hall waits for every run, and what the presenter's
overlay costs at 300 runs.

1. **The queue**: N runs (--runs, e.g. 100 and 300) submitted at once (as a hall pressing Train together) to W
   workers (--workers, e.g. 1, 2 and 4: the app's own subprocesses, services/jobrunner.py, on a SQLite queue and
   rooms' file of its own): the time from the first submit until the last result is in the rooms' store, and the
   median time from submit to a run's start on an idle queue (the queue's own delay). With more workers than
   cores the workers share the cores: the figure then says what this machine can do, not what W cores would.
2. **The overlay**: the presenter's refresh after a new run finished with R runs done (300 by default): reading the
   finished runs, the overlay's figures and the three charts' data (services/poll/classview.py,
   ui/charts/class_charts.py), median of --repeat; target under 0.5 s.
3. **The table**: a run's cost in core-seconds through the queue (its workers × the time until the last result /
   the runs, at the fewest workers measured: the workers single-threaded, as the app starts them), and from it the
   workers (one core each) a hall of 300 needs to see every run within 2 minutes: ceil(300 × cost / (120 s − the
   queue's delay)).

    python -m benchmarks.classrun                                   # overlay, 100 runs on 1 and 2 workers
    python -m benchmarks.classrun --runs 100,300 --workers 1,2,4 --steps 120   # a quicker grid (shorter runs)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

HALL, MINUTES = 300, 2.0


def _env(folder: Path) -> None:
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("ATTENTION_LAB_QUEUE_DB", None)
    os.environ.pop("ATTENTION_LAB_WORKERS", None)
    os.environ["ATTENTION_LAB_POLL_DB"] = str(folder / "poll.sqlite3")
    os.environ["ATTENTION_LAB_REPLICA"] = f"bench-{uuid.uuid4().hex[:6]}"


def queue(folder: Path, task: str, steps: int, runs: int, workers: int) -> dict:
    """Submit `runs` runs at once to `workers` workers: seconds until the last result, and each run's wait."""
    from services import jobrunner, jobs
    from services.poll import experiment as cx
    from services.poll.store import Store

    _env(folder)
    store = Store(folder / "poll.sqlite3")
    try:
        room = store.create_room()
        t = __import__("engine").TASKS[task]
        cx.start(store, room.code, room.key, cx.plan(task, steps, t.lr, t.config.n_layers, t.config.d_model))
        jobrunner.ensure(workers)
        jobs.client()  # the queue's schema made before the clock starts
        time.sleep(2.0)  # the workers up
        started = time.perf_counter()
        for i in range(runs):
            ticket = cx.claim(store, room.code, f"seat-{i:05d}")
            jobs.submit(room.code, ticket.eid, ticket.k)
        submitted = time.perf_counter() - started
        while True:
            tally = cx.tally(store, room.code, 1)  # one read a check
            if tally["done"] + tally["failed"] >= runs:
                break
            time.sleep(0.2)
        last = time.perf_counter() - started
        with store.engine.connect() as conn:
            rows = conn.exec_driver_sql("SELECT queued_at, started_at, finished_at FROM poll_runs").all()
        return {
            "runs": runs,
            "workers": workers,
            "submit_all_s": round(submitted, 3),
            "last_result_s": round(last, 2),
            "runs_per_s": round(runs / last, 3),
            "wait_p50_s": round(statistics.median(s - q for q, s, _ in rows), 2),
            "run_p50_s": round(statistics.median(f - s for _, s, f in rows), 3),
        }
    finally:
        jobrunner.stop()
        jobs.close()
        store.close()


def delay(folder: Path, samples: int = 10) -> float:
    """The queue's own delay: submit → start of a tiny run on an idle worker, median (s)."""
    from services import jobrunner, jobs
    from services.poll import experiment as cx
    from services.poll.store import Store

    _env(folder)
    store = Store(folder / "poll.sqlite3")
    try:
        room = store.create_room()
        cx.start(store, room.code, room.key, cx.plan("previous", 20, 0.06, 1, 16))
        jobrunner.ensure(1)
        jobs.client()
        time.sleep(2.0)
        waits = []
        for i in range(samples):
            ticket = cx.claim(store, room.code, f"seat-{i:05d}")
            sent = store.clock()
            jobs.submit(room.code, ticket.eid, ticket.k)
            while cx.tally(store, room.code, 1)["done"] < i + 1:
                time.sleep(0.01)
            with store.engine.connect() as conn:
                began = conn.exec_driver_sql(f"SELECT started_at FROM poll_runs WHERE k = {ticket.k}").scalar()
            waits.append(began - sent)
            time.sleep(0.3)
        return statistics.median(waits)
    finally:
        jobrunner.stop()
        jobs.close()
        store.close()


def overlay(folder: Path, runs: int, repeat: int) -> dict:
    """The presenter's refresh after a new run, with `runs` done (real curves of a few runs, copied)."""
    from services import classwork
    from services.poll import classview
    from services.poll import experiment as cx
    from services.poll.store import Store
    from ui.charts import class_charts

    store = Store(folder / "overlay.sqlite3")
    room = store.create_room()
    plan = cx.plan("induction", 480, 0.02, 2, 32, "lr", [0.02, 0.01])
    cx.start(store, room.code, room.key, plan)
    made = [classwork.result_of(classwork.trained(plan.settings(k), k)) for k in (1, 2, 3, 4)]
    for i in range(runs):
        ticket = cx.claim(store, room.code, f"seat-{i:05d}")
        cx.take(store, room.code, 1, ticket.k)
        cx.record(store, room.code, 1, ticket.k, made[i % len(made)])

    class Sink:
        def vega_lite_chart(self, spec, **kw):
            self.spec = spec

    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        shown = classview.overlay(classview.finished(store, room.code, room.key, 1))
        class_charts.curves(shown, "learning rate", box=Sink())
        class_charts.formed(shown, "learning rate", box=Sink())
        class_charts.accuracy(shown, "learning rate", box=Sink())
        times.append(time.perf_counter() - began)
    store.close()
    return {"runs_done": runs, "refresh_p50_s": round(statistics.median(times), 3), "max_s": round(max(times), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="induction")
    parser.add_argument("--steps", type=int, default=480, help="each queued run's steps (480: induction's default)")
    parser.add_argument("--runs", default="100", help="comma-separated hall sizes to submit")
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--overlay-runs", type=int, default=HALL)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    out: dict = {"cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        out["queue_delay_s"] = round(delay(folder / "delay"), 3)
        out["overlay"] = overlay(folder, args.overlay_runs, args.repeat)
        out["queue"] = []
        for runs in map(int, args.runs.split(",")):
            for workers in map(int, args.workers.split(",")):
                out["queue"].append(queue(folder / f"q{runs}-{workers}", args.task, args.steps, runs, workers))
                print(json.dumps(out["queue"][-1]), flush=True)
    fewest = min(out["queue"], key=lambda q: (q["workers"], -q["runs"]))
    out["core_s_per_run"] = round(fewest["workers"] * fewest["last_result_s"] / fewest["runs"], 3)
    budget = MINUTES * 60 - out["queue_delay_s"]
    out["workers_for_300_in_2_min"] = math.ceil(HALL * out["core_s_per_run"] / budget)
    print(json.dumps(out, indent=1))
    over = out["overlay"]["refresh_p50_s"] >= 0.5
    print("FAIL: the overlay's refresh at 300 runs is 0.5 s or more" if over else "OK")


if __name__ == "__main__":
    main()
