"""A hall follows a lesson (issue 35): N students in a class-poll room speak Streamlit's own websocket
protocol (benchmarks.poll's students), and a presenter, a session of its own, presses Next every --gap s.

The room follows a lesson of --steps steps (the shipped lessons' first steps, in order: the Day 33 lesson,
then the multi-head one; their questions open as the presenter reaches them). Each student GETs the join
link, opens the websocket and runs the page as a browser does: its one-row room check is an auto fragment
rerun on the timer the server sets (ui/poll/follow.py), and a run the server starts by itself is read as it
comes: when the room moved, the server runs the student's page (ui/poll/push.py), which moves it to the
step's page and settings. A student has reached step k when a run of its page finishes with the
lesson bar showing "Step k of M"; the latency is from the presenter's Next (the click's message sent) to
that run's end.

Before the first Next, every student sits on step 1 for --idle s while nobody moves: the server CPU over
that window is what following costs (the checks alone). With --sliders each student also moves the
sequence-length slider every ~--pause s throughout; --no-lesson runs the same hall and slider moves without
a room (the baseline of the slider reruns). With --replicas N the hall is spread over N replicas behind
HAProxy sharing one SQLite file (the presenter on r2), and --kill SIGKILLs r1 after the middle step: its
students reconnect through HAProxy with the URL they had (room and seat) onto the current step.

The presenter (issue 51, benchmarks.lesson_presenter) joins after the idle window, runs its page's timers as a
browser does and keeps the hall view open; every hall drawn on its screen is read back. *Hall right*: from each
Next to the first hall saying every student is in the room, follows and is on the new step (p50 / p95 / max
over steps; per student too); around the kill, its lowest count and when right again. Each student answers
every question the lesson opens (steps 4, 5, 7, 8) once, within 1.5 gaps of seeing it, again if the kill cut
its run; every answer whose run finished must be in the store as sent. Then the students leave (their rows kept:
the benchmark beats for them) and the hall view is open 2 × --quiet s, shut as long, in six turns (a drift of the
machine's speed falls on both): its cost is each timer fragment's run with the box open less shut (medians)
times its runs a second, summed (also the server CPU open less shut), against one student's (idle cores / N).

    python -m benchmarks.lesson --students 100                      # one process
    python -m benchmarks.lesson --students 100 --replicas 2         # 2 replicas behind HAProxy
    python -m benchmarks.lesson --students 100 --replicas 2 --kill  # and r1 killed mid-lesson
    python -m benchmarks.lesson --students 100 --sliders            # students move a slider throughout
    python -m benchmarks.lesson --students 100 --sliders --no-lesson   # the same without a lesson

Checks (exit 1 if one fails): every student reached every step; step p95 ≤ 3 s with 2 replicas or more, ≤ 5 s
on one process; idle checks under half a core; 0 errors; the hall right after every step, p95 ≤ 3 s; no answer
lost; with 50 students or more, the open hall view costs no more than one student."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks import lesson_report as lr
from benchmarks import poll, servers
from benchmarks.lesson_follower import Follower, press_next
from benchmarks.lesson_presenter import Presenter
from benchmarks.rss import RssSampler
from deploy import replicas

pct, verdict = lr.pct, lr.verdict


def bench_lesson(steps: int):
    from ui.lessons import shipped
    from ui.lessons.lesson import Lesson

    pool = [s for name in ("self-attention", "multi-head") for s in shipped.load(name).steps]
    return Lesson("bench", "The hall benchmark", "The shipped lessons' first steps.", tuple(pool[:steps]))


def cpu(pids: dict[str, int]) -> dict[str, float | None]:
    out = {}
    for name, pid in pids.items():
        try:
            out[name] = RssSampler(pid).cpu_seconds()
        except OSError:
            out[name] = None  # a killed replica
    return out


async def hall(args) -> dict:
    from services.poll import live
    from services.poll.store import Store
    from ui.lessons.lesson import dump
    from ui.poll.room import here

    run_dir = Path(tempfile.mkdtemp(prefix="attention-lab-lesson-"))
    db = run_dir / "poll.sqlite3"
    os.environ["ATTENTION_LAB_POLL_DB"] = str(db)
    os.environ.pop("DATABASE_URL", None)
    store = Store(db)
    lesson, room = bench_lesson(args.steps), store.create_room()
    first = lesson.at(1)
    if not args.no_lesson:
        live.update(
            store, room.code, room.key, lesson=dump(lesson), step=1, view=here(first.page, first.controls(), "Step 1")
        )
    server, cluster, base = poll.start_hall(args.replicas, run_dir, "lesson-bench.log")
    kw = dict(changes=0, pause=0, timeout=args.timeout)
    join = "" if args.no_lesson else f"room={room.code}"
    warm_join = "" if args.no_lesson else f"room={store.create_room().code}"  # not in the hall the view counts
    try:
        for name in (r.name for r in cluster.replicas) if cluster else [None]:  # warm-up: modules loaded
            warm = Follower(
                base,
                "",
                warm_join,
                "Sequence length",
                rng=random.Random(0),
                poll=False,
                cookies={replicas.COOKIE: name} if name else None,
                **kw,
            )
            await warm.lecture([], 0)
        rng = random.Random(args.seed)
        done = asyncio.Event()
        students = [
            Follower(
                base,
                "",
                join,
                "Sequence length",
                rng=random.Random(rng.random()),
                poll=False,
                sliders=args.pause if args.sliders else 0.0,
                answer_within=0.0 if args.no_lesson else 1.5 * args.gap,
                **kw,
            )
            for _ in range(args.students)
        ]

        async def arrive(student, offset):
            await asyncio.sleep(offset)
            await student.follow(done)

        tasks = [asyncio.create_task(arrive(s, rng.uniform(0, args.spread))) for s in students]
        pids = {r.name: r.pid for r in cluster.replicas} if cluster else {"server": server.pid}
        report = {
            "students": args.students,
            "lesson": not args.no_lesson,
            "replicas": args.replicas or None,
            "steps": args.steps,
            "gap_s": args.gap,
            "sliders": args.sliders,
        }
        deadline = time.monotonic() + args.spread + 60
        while time.monotonic() < deadline and not all(s.result.first is not None or s.result.errors for s in students):
            await asyncio.sleep(0.5)
        await asyncio.sleep(3.0)  # the last joiners' first checks
        before, checks, mine = cpu(pids), sum(s.checks for s in students), time.process_time()
        await asyncio.sleep(args.idle)  # nobody moves (sliders aside, with --sliders)
        after, checks = cpu(pids), sum(s.checks for s in students) - checks
        used = sum(after[n] - before[n] for n in pids)
        report["idle"] = {
            "seconds": args.idle,
            "server_cpu_s": round(used, 2),
            "cores": round(used / args.idle, 3),
            "benchmark_cpu_s": round(time.process_time() - mine, 2),
            "checks": checks,
            "cpu_ms_per_check": round(1000 * used / max(checks, 1), 2),
        }
        clicks: dict[int, float] = {}
        killed_at, killed_t, presenter = None, None, None
        moving = (time.perf_counter(), cpu(pids), time.process_time())
        if not args.no_lesson:
            presenter = Presenter(
                base,
                "",
                f"present=1&room={room.code}&key={room.key}",
                "Sequence length",
                rng=random.Random(1),
                poll=False,
                cookies={replicas.COOKIE: "r2"} if cluster else None,
                **kw,
            )
            pws = await presenter._connect()
            await presenter._run(pws)
            await presenter.show_hall(pws, True)  # the hall view open throughout, as the lecturer's phone has it
            await presenter.tick(pws, time.perf_counter() + args.gap)
            for number in range(2, args.steps + 1):
                clicks[number] = await press_next(presenter, pws)
                if args.kill and cluster and number == args.steps // 2 + 1:
                    await presenter.tick(pws, clicks[number] + args.gap / 3)
                    cluster.kill("r1")
                    killed_at, killed_t = number, time.perf_counter()
                await presenter.tick(pws, clicks[number] + args.gap)
        else:
            await asyncio.sleep(args.gap * (args.steps - 1))
        spent, client_s = cpu(pids), time.process_time() - moving[2]  # the hall's 100 clients run in this process
        moved_s = time.perf_counter() - moving[0]
        done.set()
        await asyncio.gather(*tasks)
        if presenter is not None:  # the students gone (their rows kept): the hall view open, then shut
            clock, seats = (
                servers.Cpu(pids["r2"] if cluster else server.pid).seconds,
                [lr.seat_of(s.query) for s in students],
            )
            windows = await presenter.open_and_shut(
                pws, clock, args.quiet / 3, rounds=6, before=lambda: lr.still_here(store, room.code, seats)
            )
            await pws.close()
        late = [s.arrived[n] - t for s in students for n, t in clicks.items() if n in s.arrived]
        missed = [
            (i, n)
            for i, s in enumerate(students)
            for n in range(1, args.steps + 1)
            if not args.no_lesson and n not in s.arrived
        ]
        report["step_s"] = {
            "p50": pct(late, 50),
            "p95": pct(late, 95),
            "max": round(max(late, default=0), 3),
            "count": len(late),
        }
        waits = [s.came[n] - t for s in students for n, t in clicks.items() if n in s.came and s.came[n] >= t]
        runs = [s.arrived[n] - s.came[n] for s in students for n in clicks if n in s.came]
        report["of_which"] = {
            "until_the_check_p50": pct(waits, 50),
            "until_the_check_p95": pct(waits, 95),
            "check_to_drawn_p50": pct(runs, 50),
            "check_to_drawn_p95": pct(runs, 95),
        }
        used = sum(spent[n] - moving[1][n] for n in pids if spent[n] is not None)
        checks_cost = report["idle"]["cores"] * moved_s  # the checks alone, at the idle rate
        report["moving"] = {
            "seconds": round(moved_s, 1),
            "server_cpu_s": round(used, 2),
            "benchmark_cpu_s": round(client_s, 2),
            "cpu_ms_per_arrival": round(1000 * max(used - checks_cost, 0) / max(len(late), 1), 1),
        }
        report["missed_steps"] = len(missed)
        report["missed_samples"] = missed[:5]
        if missed:  # the first missed student's runs around its miss
            who, step = missed[0]
            t0 = clicks.get(step, 0.0)
            report["missed_history"] = [
                (round(a - t0, 2), round(b - t0, 2), pushed, shown)
                for a, b, pushed, shown in students[who].history
                if -12 < a - t0 < 24
            ]
        report["killed_r1_after_step"] = killed_at
        if presenter is not None:
            one = report["idle"]["cores"] / args.students  # one student's checks, while nobody moves
            report["hall"] = lr.hall_figures(presenter, students, clicks, store, room.code, windows, one)
            if killed_at is not None:
                until = clicks.get(killed_at + 1, float("inf"))
                report["hall"]["after_kill"] = lr.after_kill(
                    presenter.halls, killed_t, killed_at, report["hall"]["expected"], until
                )
            report["answers"] = lr.answers_of(store, room.code, students)
        moves = [x for s in students for x in s.moves]
        report["slider_rerun_s"] = {"p50": pct(moves, 50), "p95": pct(moves, 95), "count": len(moves)}
        checks_s = [x for s in students for x in s.refreshes]
        report["check_s"] = {"p50": pct(checks_s, 50), "p95": pct(checks_s, 95), "count": len(checks_s)}
        errors = [e for s in students for e in s.result.errors]
        report["errors"], report["error_samples"] = len(errors), sorted(set(errors))[:5]
        report["reconnects"] = sum(s.reconnects for s in students)
        report["pushed_runs"] = sum(s.pushes for s in students)  # runs the server started on a room's change
        report["check_every_s"] = max((s.refresh for s in students), default=None)  # the timer the server set
        served = [s.result.replica for s in students if s.result.replica]
        if served:
            report["students_per_replica_at_end"] = {n: served.count(n) for n in sorted(set(served))}
        return report
    finally:
        if server:
            server.stop()
        if cluster:
            cluster.stop()
        store.close()
        shutil.rmtree(run_dir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--gap", type=float, default=10.0, help="s between the presenter's Nexts")
    parser.add_argument("--idle", type=float, default=20.0, help="s on step 1 with nobody moving (CPU measured)")
    parser.add_argument("--spread", type=float, default=10.0, help="students join within this many s")
    parser.add_argument("--replicas", type=int, default=0, metavar="N", help="N replicas behind HAProxy")
    parser.add_argument("--kill", action="store_true", help="SIGKILL replica r1 after the middle step")
    parser.add_argument("--sliders", action="store_true", help="every student moves a slider every ~--pause s")
    parser.add_argument("--pause", type=float, default=5.0)
    parser.add_argument("--no-lesson", action="store_true", help="the same hall without a room: the baseline")
    parser.add_argument("--quiet", type=float, default=30.0, help="s with the hall view open, shut (twice, 6 turns)")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.students <= poll.MAX_STUDENTS or not 2 <= args.steps <= 18:
        parser.error(f"--students must be 1..{poll.MAX_STUDENTS}, --steps 2..18")
    if args.kill and args.replicas < 2:
        parser.error("--kill needs --replicas 2 or more")
    report = asyncio.run(hall(args))
    problems = verdict(report)
    print(json.dumps(report, indent=1))
    print("OK" if not problems else "FAILED: " + "; ".join(problems))
    raise SystemExit(1 if problems else 0)


if __name__ == "__main__":
    main()
