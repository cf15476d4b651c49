"""How much do busy class-experiment workers delay a page's run? (issue 52: "workers are niced and bounded")

A stand-in for a page's run (PROBE_MS of pure-Python work after a short sleep, as a request arrives) is timed on
this process, first alone, then beside --workers busy NumPy processes (OPENBLAS_NUM_THREADS=1, as the app starts
its workers) at the two priorities a worker may have: nice 10 (services/jobrunner.NICE) and nice 10 in Linux's idle
scheduling class (services/jobwork.idle_class, what the app's class-run workers use). The modes alternate, --rounds
times each. Reported: the probe's p50 / p95 / p99 in ms per mode, and each mode's p95 over the probe alone.

    python -m benchmarks.worker_priority                  # 2 workers, 2 rounds of 8 s each
    python -m benchmarks.worker_priority --workers 3
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from benchmarks.load_report import pct

PROBE_MS = 5.0  # the work of one probe
GAP_S = 0.03  # the pause before each probe
_BUSY = """
import os, sys
os.nice(10)
if sys.argv[1] == "idle":
    from services.jobwork import idle_class
    assert idle_class(), "no idle scheduling class here"
import numpy as np
a = np.random.RandomState(0).rand(200, 200)
while True:
    a = a @ a
    a /= a.max()
"""


def probe(seconds: float) -> list[float]:
    """The probe's times (s) over `seconds`."""
    times: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        time.sleep(GAP_S)
        start = time.perf_counter()
        spin = 0
        while time.perf_counter() - start < PROBE_MS / 1000:
            spin += 1
        times.append(time.perf_counter() - start)
    return times


def beside(mode: str, workers: int, seconds: float) -> list[float]:
    """The probe's times beside `workers` busy processes at `mode` ("nice" or "idle")."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", _BUSY, mode], env=env) for _ in range(workers)]
    try:
        time.sleep(1.0)  # they are busy
        return probe(seconds)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args()
    if not hasattr(os, "SCHED_IDLE"):
        sys.exit("Linux's idle scheduling class is not available here.")
    times = {"alone": probe(args.seconds / 2), "nice 10": [], "nice 10, idle class": []}
    for _ in range(args.rounds):
        times["nice 10"] += beside("nice", args.workers, args.seconds)
        times["nice 10, idle class"] += beside("idle", args.workers, args.seconds)
    alone = pct(times["alone"], 95)
    print(f"a {PROBE_MS:g} ms probe beside {args.workers} busy workers ({os.cpu_count()} cores)")
    for mode, found in times.items():
        ms = [1000 * pct(found, q) for q in (50, 95, 99)]
        print(
            f"  {mode:<20} p50 {ms[0]:.2f}  p95 {ms[1]:.2f}  p99 {ms[2]:.2f} ms  ({pct(found, 95) / alone:.2f}× alone)"
        )


if __name__ == "__main__":
    main()
