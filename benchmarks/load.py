"""A lecture hall on one server: N sessions speak Streamlit's own websocket protocol at once.

Each simulated student does what a browser does: GET the page, /_stcore/health and
/_stcore/host-config, open ws://127.0.0.1:PORT/_stcore/stream, send a BackMsg rerun_script for the
page (with the URL's query string), read ForwardMsgs until script_finished, then move a sidebar
slider 5 times (a rerun_script carrying every widget's state, exactly like the frontend, plus the
hashes of the cacheable messages it already holds), waiting for each rerun to finish.

It reports first page and rerun latency (p50 / p95 / max), errors (exception elements, page-not-
found, compile errors, disconnects, timeouts), bytes received, and the server's RSS: baseline
(after one warm-up session, so the app's modules are loaded), peak (VmHWM) and after the sessions
closed. Loopback only; bounded in sessions (≤ 200) and in time (--deadline).

Behind a load balancer each student keeps the cookies the server set, as a browser does: HAProxy's
affinity cookie (SRV) from the first GET goes with every later request and with the websocket
handshake, so a student stays on one replica; Streamlit's XSRF cookie and token go along too.
`--replicas N` starts N replicas behind HAProxy (deploy/replicas.py) and reports how many students
each replica got, and CPU per script run summed over the replicas.

    python -m benchmarks.load                                 # 60 sessions within 10 s, a change every 2 s
    python -m benchmarks.load --spread 0 --pause 0            # stress: 60 at once, no pauses
    python -m benchmarks.load --watcher auto                  # the same with Streamlit's file watcher on
    python -m benchmarks.load --url http://127.0.0.1:8501     # against a server you started (no RSS)
    python -m benchmarks.load --sessions 200 --replicas 2     # 200 students, 2 replicas behind HAProxy
    python -m benchmarks.load --floor                         # the same hall on a one-chart floor app
    python -m benchmarks.load --sessions 200 --replicas 2 --floor   # ... and on 2 replicas of it
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.load_report import TARGETS, pct, verdict
from benchmarks.rss import RssSampler
from benchmarks.ws_student import Student
from deploy import replicas
from harness import browser as bs

MAX_SESSIONS = 200


MiB = 1024 * 1024


async def main_async(args) -> dict:
    server = cluster = run_dir = None
    extra = ["--server.fileWatcherType", args.watcher] if args.watcher else []
    for option in args.option:
        name, _, value = option.partition("=")
        extra += [f"--{name}", value]
    if args.floor and not args.url:  # the floor app, in a folder of its own
        from benchmarks.floor_app import write_floor

        floor = Path(write_floor())
    if args.url:
        base = args.url.rstrip("/")
        processes: dict[str, int] = {}
    elif args.replicas:
        run_dir = Path(tempfile.mkdtemp(prefix="attention-lab-load-"))
        port, *ports = bs.free_ports(args.replicas + 1)
        app = str(floor / "floor_app.py") if args.floor else "streamlit_app.py"  # the floor app: replicated too
        cluster = replicas.Cluster(
            args.replicas, port=port, replica_ports=ports, run_dir=run_dir, app=app, extra=extra
        ).start()
        base = cluster.url
        processes = {r.name: r.pid for r in cluster.replicas}
    elif args.floor:
        server = bs.Server(app="floor_app.py", cwd=floor, extra=extra, log_name="load-floor.log").start()
        base = server.url
        processes = {"server": server.pid}
    else:
        server = bs.Server(extra=extra, log_name="load-server.log").start()
        base = server.url
        processes = {"server": server.pid}
    samplers = {name: RssSampler(pid) for name, pid in processes.items()}
    proxy = RssSampler(cluster.haproxy.pid) if cluster else None
    try:
        # Warm-up: one session per server process (pinned by its affinity cookie behind HAProxy), so the
        # baseline has the app's modules loaded (as after any first visit).
        for name in processes if cluster else [None]:
            warm = await Student(
                base,
                args.page,
                args.query,
                args.slider,
                1,
                0,
                random.Random(0),
                args.timeout,
                cookies={replicas.COOKIE: name} if name else None,
            ).session()
            if warm.errors:
                raise SystemExit(f"warm-up session failed: {warm.errors}")
            if name and warm.replica != name:
                raise SystemExit(f"warm-up session for {name} was served by {warm.replica}")
        await asyncio.sleep(1.0)
        baselines = {name: sampler.read()[0] for name, sampler in samplers.items()}
        for sampler in samplers.values():
            sampler.start()
        cpu_before = {name: sampler.cpu_seconds() for name, sampler in samplers.items()}
        proxy_before = proxy.cpu_seconds() if proxy else 0.0
        self_before = resource.getrusage(resource.RUSAGE_SELF)

        rng = random.Random(args.seed)
        students = [
            Student(
                base,
                args.page,
                args.query,
                args.slider,
                args.changes,
                args.pause,
                random.Random(rng.random()),
                args.timeout,
            )
            for _ in range(args.sessions)
        ]
        offsets = sorted(rng.uniform(0, args.spread) for _ in students)

        async def arrive(student, offset):
            await asyncio.sleep(offset)
            return await student.session()

        started = time.perf_counter()
        results = await asyncio.wait_for(
            asyncio.gather(*(arrive(s, o) for s, o in zip(students, offsets))), args.deadline
        )
        wall = time.perf_counter() - started

        report = {
            "sessions": args.sessions,
            "spread_s": args.spread,
            "pause_s": args.pause,
            "changes": args.changes,
            "page": "/" + args.page,
            "query": args.query,
            "watcher": args.watcher or "(config.toml)",
            "replicas": args.replicas or None,
            "wall_s": round(wall, 2),
        }
        firsts = [r.first for r in results if r.first is not None]
        reruns = [x for r in results for x in r.reruns]
        report["first_page_s"] = {"p50": pct(firsts, 50), "p95": pct(firsts, 95), "max": max(firsts, default=0)}
        report["rerun_s"] = {
            "p50": pct(reruns, 50),
            "p95": pct(reruns, 95),
            "max": max(reruns, default=0),
            "count": len(reruns),
        }
        errors = [e for r in results for e in r.errors]
        report["errors"] = len(errors)
        report["error_samples"] = sorted(set(errors))[:5]
        report["notices"] = sorted({n for r in results for n in r.notices})
        report["bytes"] = {
            "first_page_median": statistics.median([r.first_bytes for r in results] or [0]),
            "rerun_median": statistics.median([b for r in results for b in r.rerun_bytes] or [0]),
        }
        served = [r.replica for r in results if r.replica]
        if served:
            # Sessions per replica, as the students' affinity cookies say (a student moved by a failover
            # counts where it ended).
            report["sessions_per_replica"] = {name: served.count(name) for name in sorted(set(served))}
        used = resource.getrusage(resource.RUSAGE_SELF)
        report["load_generator_cpu_s"] = round(
            used.ru_utime + used.ru_stime - self_before.ru_utime - self_before.ru_stime, 1
        )
        if samplers:
            runs = len(firsts) + len(reruns)
            cpu = {name: sampler.cpu_seconds() - cpu_before[name] for name, sampler in samplers.items()}
            report["server_cpu_ms_per_run"] = round(1000 * sum(cpu.values()) / max(runs, 1), 1)
            report["server_cpu_s"] = {name: round(seconds, 1) for name, seconds in cpu.items()}
            if proxy:
                report["haproxy_cpu_s"] = round(proxy.cpu_seconds() - proxy_before, 1)
            peaks = {}
            for name, sampler in samplers.items():
                await sampler.stop()
                peaks[name] = max(sampler.peak, sampler.read()[1])
            # After the sessions close: let the servers drop them, then read RSS for up to settle_s.
            baseline = sum(baselines.values())
            settled, waited = sum(s.read()[0] for s in samplers.values()), 0.0
            while waited < args.settle and settled > baseline * TARGETS["settle_ratio"]:
                await asyncio.sleep(0.5)
                waited += 0.5
                settled = sum(s.read()[0] for s in samplers.values())
            # Summed over the server processes (each one's own peak: an upper bound of the joint peak).
            report["rss_mib"] = {
                "baseline": round(baseline / MiB, 1),
                "peak": round(sum(peaks.values()) / MiB, 1),
                "after_close": round(settled / MiB, 1),
                "after_close_wait_s": waited,
                "after_close_ratio": round(settled / baseline, 3),
            }
            if cluster:
                report["rss_mib"]["peak_per_replica"] = {name: round(v / MiB, 1) for name, v in peaks.items()}
        return report
    finally:
        if server:
            server.stop()
        if cluster:
            cluster.stop()
            logs = bs.ARTIFACTS / "logs" / "load-replicas"  # HAProxy's and each replica's log
            shutil.rmtree(logs, ignore_errors=True)
            logs.mkdir(parents=True)
            for log in run_dir.glob("*.log"):
                shutil.copy(log, logs / log.name)
            shutil.rmtree(run_dir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--spread", type=float, default=10.0, help="arrivals spread uniformly over this many s")
    parser.add_argument("--pause", type=float, default=2.0, help="mean pause between slider changes (s)")
    parser.add_argument("--changes", type=int, default=5)
    parser.add_argument("--page", default="", help="url path of the page, '' = the default page")
    parser.add_argument("--query", default="", help="query string, e.g. seq_len=16")
    parser.add_argument("--slider", default="Sequence length", help="label prefix of the slider to move")
    parser.add_argument(
        "--watcher",
        choices=["auto", "poll", "watchdog", "none"],
        default=None,
        help="override server.fileWatcherType (default: .streamlit/config.toml)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra `streamlit run` option, e.g. runner.postScriptGC=true (repeatable)",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="the same hall against the latency benchmark's floor app (one slider, one Altair "
        "heatmap): CPU per run of Streamlit itself, to compare the app with (with --replicas: "
        "the floor app replicated)",
    )
    parser.add_argument("--url", default=None, help="an already running server (loopback only; no RSS)")
    parser.add_argument(
        "--replicas",
        type=int,
        default=0,
        metavar="N",
        help="start N replicas behind HAProxy (deploy/replicas.py) instead of one server",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="per message / request (s)")
    parser.add_argument("--deadline", type=float, default=300.0, help="whole run (s)")
    parser.add_argument("--settle", type=float, default=20.0, help="wait up to this for RSS after close (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the report as JSON too")
    args = parser.parse_args()
    if not 1 <= args.sessions <= MAX_SESSIONS:
        parser.error(f"--sessions must be 1..{MAX_SESSIONS}")
    if args.url and args.replicas:
        parser.error("--url and --replicas exclude each other")
    if not 0 <= args.replicas <= replicas.MAX_REPLICAS:
        parser.error(f"--replicas must be 1..{replicas.MAX_REPLICAS}")
    if args.url and not re.match(r"^http://(127\.0\.0\.1|localhost)(:\d+)?/?$", args.url):
        parser.error("--url must be a loopback address")
    report = asyncio.run(main_async(args))
    print(
        f"load: {args.sessions} sessions over {args.spread} s, {args.changes} changes each, pause "
        f"{args.pause} s, page /{args.page}{'?' + args.query if args.query else ''}, watcher "
        f"{report['watcher']}, {str(args.replicas) + ' replicas behind HAProxy' if args.replicas else 'one server'}"
        f", wall {report['wall_s']} s"
    )
    for line in verdict(report):
        print("  " + line)
    if args.json:
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
