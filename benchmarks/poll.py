"""A hall answers a class poll: N students join one room and answer 3 questions, over Streamlit's own
websocket protocol (benchmarks.poll_student's PollStudent, a benchmarks.ws_student.Student), against one
server or replicas behind HAProxy that share one SQLite file.

Each student GETs the join link (`/softmax?room=CODE`), opens the websocket, keeps the seat the app
writes into its URL, and then, with a pause of about 2 s before each, moves the sequence-length slider
or answers one of the room's questions (a radio in the poll box: a rerun of the box's fragment carrying
the radio's new value), three of each, in turns. Between actions its page checks the room every second
as a browser's does (the auto rerun of ui/poll/follow.py's one-row check, which draws nothing unless the
room changed). A presenter session on the same room refreshes its panel every second
(ui.poll.hallview.HALL_EVERY_S) and its "answered" count is read from what it draws. The benchmark (holding
the room's key) creates the room and asks the questions through the store, as the presenter's buttons do.

With --no-poll the same hall does the same slider moves without a room (no poll box, no answers,
no refreshes): the baseline for the students' rerun time. With --kill one replica is SIGKILLed in
the middle of the poll; its students reconnect through HAProxy (as the frontend does) with the URL
they had, so the same seat, and repeat an action the crash cut off.

    python -m benchmarks.poll --students 100                     # one server
    python -m benchmarks.poll --students 100 --no-poll           # the same hall without a poll
    python -m benchmarks.poll --students 100 --replicas 2        # 2 replicas behind HAProxy, one SQLite file
    python -m benchmarks.poll --students 100 --replicas 2 --kill # and one replica killed mid-poll

Checks (exit status 1 if one fails): every student's last answer to every question is in the store
(rows and per-choice counts), the presenter's last count equals the store's, 0 errors, and (compared
with a --no-poll run given by --baseline-p95) the slider reruns' p95 within 1.5×.
"""

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

from benchmarks import load_report
from benchmarks.poll_student import PollStudent
from benchmarks.rss import RssSampler
from deploy import replicas
from harness import browser as bs
from ui.poll.hallview import HALL_EVERY_S

PAGE = "softmax"
PRESENTER_REFRESH_S = HALL_EVERY_S  # ui.poll.panel's run_every (a student's: benchmarks.poll_student.STUDENT_REFRESH_S)
MAX_STUDENTS = 200


def start_hall(n_replicas: int | None, run_dir: Path, log_name: str):
    """(server, cluster, base URL): one app process, or n replicas behind HAProxy (their files in run_dir)."""
    if n_replicas:
        port, *ports = bs.free_ports(n_replicas + 1)
        cluster = replicas.Cluster(n_replicas, port=port, replica_ports=ports, run_dir=run_dir / "cluster").start()
        return None, cluster, cluster.url
    server = bs.Server(log_name=log_name).start()
    return server, None, server.url


def questions_for_room() -> list:
    """The three questions at the app's default settings (what a presenter on those pages asks)."""
    import engine
    from engine import analysis
    from ui.poll import questions

    cfg, words = engine.Config(), ("AI", "builds", "neural", "models")
    t = analysis.run(cfg, words).layers[0]
    return [
        questions.softmax_top_key(t, 0, t.T - 1),
        questions.scores_spread(t, cfg, 0),
        questions.exercise_prediction(analysis.extend(cfg, words, "AI"), 0),
    ]


async def hall(args) -> dict:
    run_dir = Path(tempfile.mkdtemp(prefix="attention-lab-poll-"))
    db = run_dir / "poll.sqlite3"
    os.environ["ATTENTION_LAB_POLL_DB"] = str(db)  # the servers inherit it: one file for all
    os.environ.pop("DATABASE_URL", None)
    from services.poll.store import Store

    store = Store(db)
    asked = questions_for_room()
    room = store.create_room()
    for q in asked:
        store.ask(room.code, room.key, q.qid, q.prompt, q.options, q.answers)
    server, cluster, base = start_hall(args.replicas, run_dir, "poll-bench.log")
    try:
        rng = random.Random(args.seed)
        kw = dict(changes=3, pause=args.pause, timeout=args.timeout)
        # Warm-up (one session per process), as benchmarks.load does: the app's modules loaded.
        for name in (r.name for r in cluster.replicas) if cluster else [None]:
            warm = PollStudent(
                base,
                PAGE,
                f"room={room.code}",
                "Sequence length",
                rng=random.Random(0),
                cookies={replicas.COOKIE: name} if name else None,
                asked=asked,
                **kw,
            )
            await warm.lecture([], 0)

        done = asyncio.Event()
        presenter = PollStudent(
            base,
            PAGE,
            f"present=1&room={room.code}&key={room.key}",
            "Sequence length",
            rng=random.Random(1),
            asked=asked,
            refresh=PRESENTER_REFRESH_S,
            **kw,
        )
        presenting = asyncio.create_task(presenter.lecture([], 0, until=done)) if not args.no_poll else None
        plans = []
        for _ in range(args.students):
            qs = [q.qid for q in asked]
            rng.shuffle(qs)
            plans.append(["move", qs[0], "move", qs[1], "move", qs[2]] if not args.no_poll else ["move"] * 3)
        query = "" if args.no_poll else f"room={room.code}"
        students = [
            PollStudent(
                base,
                PAGE,
                query,
                "Sequence length",
                rng=random.Random(rng.random()),
                asked=asked,
                poll=not args.no_poll,
                **kw,
            )
            for _ in plans
        ]
        offsets = sorted(rng.uniform(0, args.spread) for _ in students)

        async def arrive(student, plan, offset):
            await asyncio.sleep(offset)
            return await student.lecture(plan, args.pause)

        async def crash():
            await asyncio.sleep(args.spread + args.pause * 2.5)  # mid-poll: everyone in, answers flowing
            cluster.kill("r1")
            return time.perf_counter()

        pids = {r.name: r.pid for r in cluster.replicas} if cluster else {"server": server.pid}
        cpu_before = {name: RssSampler(pid).cpu_seconds() for name, pid in pids.items()}
        started = time.perf_counter()
        killer = asyncio.create_task(crash()) if args.kill and cluster else None
        await asyncio.wait_for(
            asyncio.gather(*(arrive(s, p, o) for s, p, o in zip(students, plans, offsets))), args.deadline
        )
        wall = time.perf_counter() - started
        cpu = {}
        for name, pid in pids.items():
            try:
                cpu[name] = round(RssSampler(pid).cpu_seconds() - cpu_before[name], 1)
            except OSError:
                cpu[name] = None  # the killed replica
        killed_at = round(await killer - started, 1) if killer else None
        if presenting:
            await asyncio.sleep(PRESENTER_REFRESH_S * 2 + 0.5)  # one refresh after the last answer
            done.set()
            await presenting

        report = {
            "students": args.students,
            "poll": not args.no_poll,
            "replicas": args.replicas or None,
            "killed_r1_at_s": killed_at,
            "wall_s": round(wall, 1),
            "room": room.code,
        }
        moves = [x for s in students for x in s.moves]
        answers = [x for s in students for x in s.answers]
        refreshes = [x for s in students for x in s.refreshes]
        firsts = [s.result.first for s in students if s.result.first is not None]
        for name, values in (
            ("join_s", firsts),
            ("slider_rerun_s", moves),
            ("answer_rerun_s", answers),
            ("refresh_s", refreshes),
        ):
            report[name] = {
                "p50": round(load_report.pct(values, 50), 3),
                "p95": round(load_report.pct(values, 95), 3),
                "max": round(max(values, default=0), 3),
                "count": len(values),
            }
        report["server_cpu_s"] = cpu  # while the students were on
        runs = len(firsts) + len(moves) + len(answers) + len(refreshes) + len(presenter.refreshes)
        if None not in cpu.values():
            report["server_cpu_ms_per_run"] = round(1000 * sum(cpu.values()) / max(runs, 1), 1)
        errors = [e for s in students for e in s.result.errors] + (presenter.result.errors if presenting else [])
        report["errors"] = len(errors)
        report["error_samples"] = sorted(set(errors))[:5]
        report["reconnects"] = sum(s.reconnects for s in students)
        served = [s.result.replica for s in students if s.result.replica]
        if served:
            report["students_per_replica_at_end"] = {n: served.count(n) for n in sorted(set(served))}
        if not args.no_poll:
            sent: dict[str, dict[str, int]] = {}
            for s in students:
                for qid, choice in s.chosen.items():
                    sent.setdefault(qid, {}).setdefault(choice, 0)
                    sent[qid][choice] += 1
            stored = store.counts(room.code)
            report["answers_sent"] = sum(len(s.chosen) for s in students)
            report["answers_stored"] = sum(sum(c.values()) for c in stored.values())
            report["store_matches_students"] = stored == sent
            report["presenter_shows"] = presenter.metric
            report["presenter_matches_store"] = presenter.metric == str(sum(stored.get(PAGE, {}).values()))
            report["presenter_refreshes"] = len(presenter.refreshes)
        return report
    finally:
        if server:
            server.stop()
        if cluster:
            cluster.stop()
            logs = bs.ARTIFACTS / "logs" / "poll-replicas"
            shutil.rmtree(logs, ignore_errors=True)
            logs.mkdir(parents=True)
            for log in (run_dir / "cluster").glob("*.log"):
                shutil.copy(log, logs / log.name)
        store.close()
        shutil.rmtree(run_dir, ignore_errors=True)


def verdict(report: dict, baseline_p95: float | None) -> list[str]:
    problems = []
    if report["errors"]:
        problems.append(f"{report['errors']} errors: {report['error_samples']}")
    if report["poll"]:
        if report["answers_stored"] != report["answers_sent"] or not report["store_matches_students"]:
            problems.append(f"store holds {report['answers_stored']} of {report['answers_sent']} answers")
        if not report["presenter_matches_store"]:
            problems.append(f"presenter shows {report['presenter_shows']}, the store another count")
        if report["answers_sent"] != 3 * report["students"]:
            problems.append(f"only {report['answers_sent']} of {3 * report['students']} answers were given")
    if baseline_p95:
        ratio = report["slider_rerun_s"]["p95"] / baseline_p95
        report["slider_p95_vs_baseline"] = round(ratio, 2)
        if ratio > 1.5:
            problems.append(f"slider rerun p95 is {ratio:.2f}× the hall without a poll (limit 1.5×)")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--spread", type=float, default=10.0, help="students join within this many s")
    parser.add_argument("--pause", type=float, default=2.0, help="mean pause before each action (s)")
    parser.add_argument("--replicas", type=int, default=0, metavar="N", help="N replicas behind HAProxy")
    parser.add_argument("--kill", action="store_true", help="SIGKILL replica r1 mid-poll (needs --replicas)")
    parser.add_argument("--no-poll", action="store_true", help="the same hall without a room: the baseline")
    parser.add_argument("--baseline-p95", type=float, default=None, help="a --no-poll run's slider p95 (s)")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--deadline", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.students <= MAX_STUDENTS:
        parser.error(f"--students must be 1..{MAX_STUDENTS}")
    if args.kill and args.replicas < 2:
        parser.error("--kill needs --replicas 2 or more")
    report = asyncio.run(hall(args))
    problems = verdict(report, args.baseline_p95)
    print(json.dumps(report, indent=1))
    print("OK" if not problems else "FAILED: " + "; ".join(problems))
    raise SystemExit(1 if problems else 0)


if __name__ == "__main__":
    main()
