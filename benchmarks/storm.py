"""A training storm: while some students each start their own induction training, do the others'
pages stay quick?

One server (on an empty weights cache, so every training is real). First the *others* alone: N
students on the default page move the sequence-length slider (load.py's students: 5 changes, a
pause of ~2 s), which gives their idle rerun p95. Then the same N again while K *trainers* arrive
within the same seconds, each at `?preset=trained-induction&seed=S` with a seed of their own (a
distinct model: the page trains it before it draws), then moving the d_model slider (another
distinct model each time). Reported: the others' rerun p50 / p95 idle and during the storm and
their ratio, the trainers' page times (first page and each rerun, each one a training), the time
from the storm's start until the last trainer's page is drawn, and errors.

    python -m benchmarks.storm                         # 10 trainers, 30 others
    python -m benchmarks.storm --checkout /tmp/base    # the same against another checkout of the app
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks.load_report import pct
from benchmarks.ws_student import Student
from harness import browser as bs

TARGET = 2.0  # the others' rerun p95 during the storm, at most this times their idle p95


async def hall(students: list[Student], spread: float, rng: random.Random) -> tuple[list, list[float]]:
    """Every student's session, arrivals spread over `spread` s: their results, and when each ended (s)."""
    started = time.perf_counter()

    async def arrive(student, offset):
        await asyncio.sleep(offset)
        result = await student.session()
        return result, time.perf_counter() - started

    done = await asyncio.gather(*(arrive(s, rng.uniform(0, spread)) for s in students))
    return [r for r, _ in done], [t for _, t in done]


def others(base: str, n: int, rng: random.Random, timeout: float) -> list[Student]:
    return [Student(base, "", "", "Sequence length", 5, 2.0, random.Random(rng.random()), timeout) for _ in range(n)]


async def storm(args) -> dict:
    cache = Path(tempfile.mkdtemp(prefix="attention-lab-storm-"))
    os.environ["ATTENTION_LAB_CACHE"] = str(cache)  # every training real, none from before
    server = bs.Server(cwd=Path(args.checkout).resolve(), log_name="storm-server.log").start()
    try:
        rng = random.Random(args.seed)
        warm = await Student(server.url, "", "", "Sequence length", 1, 0, random.Random(0), args.timeout).session()
        if warm.errors:
            raise SystemExit(f"warm-up session failed: {warm.errors}")
        idle, _ = await hall(others(server.url, args.others, rng, args.timeout), args.spread, rng)
        trainers = [
            Student(
                server.url,
                "",
                f"preset=trained-induction&seed={1000 + k}",
                "d_model",
                args.trainer_changes,
                0.5,
                random.Random(rng.random()),
                args.timeout,
            )
            for k in range(args.trainers)
        ]
        students = trainers + others(server.url, args.others, rng, args.timeout)
        during, ended = await hall(students, args.spread, rng)
    finally:
        server.stop()
        shutil.rmtree(cache, ignore_errors=True)
    trained, busy = during[: args.trainers], during[args.trainers :]
    waits = [t for r in trained for t in ([r.first] if r.first is not None else []) + r.reruns]
    idle_reruns = [x for r in idle for x in r.reruns]
    busy_reruns = [x for r in busy for x in r.reruns]
    return {
        "idle": idle_reruns,
        "during": busy_reruns,
        "trainer_waits": waits,
        "trainers_done_s": max(ended[: args.trainers]),
        "errors": sorted({e for r in idle + during for e in r.errors}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trainers", type=int, default=10)
    parser.add_argument("--others", type=int, default=30)
    parser.add_argument("--trainer-changes", type=int, default=1, help="d_model moves per trainer (each trains)")
    parser.add_argument("--spread", type=float, default=5.0, help="arrivals spread over this many s")
    parser.add_argument("--checkout", default=str(bs.ROOT), help="the app's folder (another checkout to compare)")
    parser.add_argument("--timeout", type=float, default=120.0, help="per message / request (s)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not (1 <= args.trainers <= 50 and 1 <= args.others <= 150 and 0 <= args.trainer_changes <= 5):
        parser.error("--trainers 1..50, --others 1..150, --trainer-changes 0..5")
    report = asyncio.run(storm(args))
    idle, during = report["idle"], report["during"]
    ratio = pct(during, 95) / max(pct(idle, 95), 1e-9)
    print(
        f"storm: {args.trainers} trainers (trained-induction, own seed, {args.trainer_changes} d_model move(s)), "
        f"{args.others} others on the default page; app in {args.checkout}"
    )
    print(f"  others idle    rerun p50 {pct(idle, 50):.3f} s  p95 {pct(idle, 95):.3f} s  ({len(idle)} reruns)")
    print(
        f"  others storm   rerun p50 {pct(during, 50):.3f} s  p95 {pct(during, 95):.3f} s  ({len(during)} reruns)"
        f"  = {ratio:.2f}× idle p95 (target ≤ {TARGET}×)"
    )
    waits = report["trainer_waits"]
    print(
        f"  trainers       page p50 {pct(waits, 50):.1f} s  p95 {pct(waits, 95):.1f} s  "
        f"max {max(waits, default=0):.1f} s"
        f" ({len(waits)} pages, each a training); the last trainer done {report['trainers_done_s']:.1f} s after the "
        f"storm began"
    )
    print(f"  errors         {len(report['errors'])} {report['errors'][:3] or ''}")


if __name__ == "__main__":
    main()
