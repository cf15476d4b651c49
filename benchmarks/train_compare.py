"""Each task's default training run here against another checkout of the repository, in the same
run: the two alternate (base, here, base, here, ...) so a busy machine slows both alike.

Each run is a fresh interpreter on one BLAS thread; it reports the run's wall time (TrainRun.seconds),
the CPU time of the training thread (less sensitive to other processes sharing the cores), the steps,
and the accuracy on 1,000 fresh sequences. Medians and here/base ratios are printed.

    git worktree add /tmp/attention-lab-base <commit>
    python -m benchmarks.train_compare /tmp/attention-lab-base            # 5 runs each
    python -m benchmarks.train_compare /tmp/attention-lab-base --runs 3 --tasks induction
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
TASKS = ("previous", "first", "reverse", "max", "induction")
FRESH = 12345  # benchmarks.train_bench's evaluation seed

PROBE = """
import json, time
from threadpoolctl import threadpool_limits
import engine
with threadpool_limits(1):
    start = time.thread_time()
    run = engine.train({task!r})
    cpu = time.thread_time() - start
    accuracy = engine.evaluate({task!r}, run.config, run.params, n=1000, seed={fresh})
print(json.dumps({{"wall": run.seconds, "cpu": cpu, "steps": run.steps, "accuracy": accuracy}}))
"""


def one(checkout: Path, task: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(task=task, fresh=FRESH)],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path, help="the other checkout (e.g. a git worktree of the old commit)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    args = parser.parse_args(argv)
    print(
        f"{'task':>9} {'':>5} {'steps':>6} {'wall s':>7} {'cpu s':>7} {'fresh':>6}   medians of {args.runs} "
        f"alternating runs; ratio = here / base"
    )
    for task in args.tasks:
        results = {"base": [], "here": []}
        for _ in range(args.runs):
            results["base"].append(one(args.base, task))
            results["here"].append(one(HERE, task))
        medians = {}
        for side, runs in results.items():
            medians[side] = {key: statistics.median(r[key] for r in runs) for key in ("wall", "cpu", "accuracy")}
            print(
                f"{task:>9} {side:>5} {runs[0]['steps']:>6} {medians[side]['wall']:>7.2f} "
                f"{medians[side]['cpu']:>7.2f} {min(r['accuracy'] for r in runs):>6.3f}",
                flush=True,
            )
        print(
            f"{task:>9} {'ratio':>5} {'':>6} {medians['here']['wall'] / medians['base']['wall']:>7.2f} "
            f"{medians['here']['cpu'] / medians['base']['cpu']:>7.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
