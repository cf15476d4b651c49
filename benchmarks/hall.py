"""A lecture hall's mix of interactions on one server, per interaction: its server CPU and its latency.

Students speak Streamlit's websocket protocol (benchmarks.wsclient.Tab: every widget's state, the fragment
ids the server drew, cached messages, the URL the app writes). Each is on one page at the defaults or at
?preset=trained-induction, and does half sidebar moves and half in-page interactions: a heatmap cell
clicked, β moved, a head knocked out, the exercise's choices, the Learn page's Train and replay steps
(benchmarks.mix). When a changed widget was drawn inside an `st.fragment`, the rerun carries that
fragment's id, as the browser sends it, so the same benchmark measures code with fragments and without.
Interactions are counted, not script runs.

Each round, for each checkout, two passes on a fresh server each (after a warm-up: every station opened
and each of its interactions done once, so imports, shipped weights and caches of the defaults are loaded):
- *one at a time*: the students' interactions run one after another, nothing else in flight, and each
  interaction's server CPU (all threads, the kernel's CPU clock of the process) is read around it (from
  the rerun sent to its run finished, plus 30 ms): CPU per kind, per page and preset;
- *the hall*: the same students arrive within --spread s and act every --pause s (default: 60 students
  within 10 s, a move every 2 s): total server CPU for the whole mix (joins included), latency from a
  move to its run finished (p50 / p95), errors.
With --against, the two checkouts alternate (A B A B ...) in one sitting and the ratios A / B are printed;
with --floor, the floor app (benchmarks.floor_app: one slider, one heatmap) takes its turn too (checkout F),
its students at its one page moving its slider, and the ratios A / F are printed.

    python -m benchmarks.hall                                       # this checkout, one round
    python -m benchmarks.hall --against /work/base --rounds 2       # this checkout against another, A B A B
    python -m benchmarks.hall --checkout /work/base --only hall     # only the 60-student hall, another checkout
    python -m benchmarks.hall --only hall --floor --rounds 3        # the hall against the floor app's hall
    python -m benchmarks.hall --students 12 --moves 4 --rounds 1    # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import time
from dataclasses import asdict, dataclass, field

import websockets

from benchmarks import floor_app, hall_report, mix, servers
from benchmarks.wsclient import Tab
from harness import browser as bs

FLOOR = "F"  # the floor app's name among the checkouts
SETTLE_S = 0.03  # after a run finished: the server's last bookkeeping of that run
MAX_STUDENTS = 200


@dataclass
class Done:
    """One interaction (or a join: kind "join") and what it cost."""

    kind: str
    station: str
    seconds: float = 0.0
    fragment: bool = False  # sent as a fragment rerun
    cpu: float | None = None  # server CPU s (one-at-a-time pass only)
    errors: list[str] = field(default_factory=list)


async def act(tab: Tab, station: mix.Station, kind: str, rng: random.Random, turn: int) -> tuple[str, object]:
    """Do one interaction of this kind; returns the kind done and its Run. Where the Learn page shows the
    finished run without a Train button (a run this server has trained already), a replay step is done."""
    change = mix.HANDS[kind](tab, station, rng, turn)
    if change is None and kind == "train":
        kind, change = "replay", mix.replay(tab, station, rng)
    if change is None:
        raise LookupError(f"{station.name}: nothing on the page for a {kind!r} interaction")
    if change == mix.BROWSER:  # the browser answers it: nothing is sent, no run
        return kind, None
    key, state = change
    fragment = tab.set(key, state)
    return kind, await tab.run(fragment)


async def student(
    base: str,
    station: mix.Station,
    plan: list[str],
    rng: random.Random,
    timeout: float,
    pause: float = 0.0,
    offset: float = 0.0,
    cpu: servers.Cpu | None = None,
) -> list[Done]:
    """One student: join, then the plan's interactions (with pauses in the hall; CPU read one at a time)."""
    await asyncio.sleep(offset)
    tab, done, turns = Tab(base, station.page, station.query, timeout), [], {}
    record = Done("join", station.name)
    try:
        before = cpu.seconds() if cpu else 0.0
        run = await tab.open()
        if cpu:
            await asyncio.sleep(SETTLE_S)
            record.cpu = cpu.seconds() - before
        record.seconds, record.errors = run.seconds, run.errors + tab.notices
        done.append(record)
        for kind in plan:
            if pause:
                await asyncio.sleep(pause * rng.uniform(0.75, 1.25))
            record = Done(kind, station.name)
            before = cpu.seconds() if cpu else 0.0
            record.kind, run = await act(tab, station, kind, rng, turns.get(kind, 0))
            if cpu:
                await asyncio.sleep(SETTLE_S)
                record.cpu = cpu.seconds() - before
            turns[kind] = turns.get(kind, 0) + 1
            if run is not None:  # None: answered in the browser, free
                record.seconds, record.fragment, record.errors = run.seconds, bool(run.fragment), run.errors
            done.append(record)
    except TimeoutError:
        record.errors.append(f"timeout ({timeout} s)")
        done.append(record)
    except (OSError, LookupError, websockets.exceptions.WebSocketException) as exc:
        record.errors.append(f"{type(exc).__name__}: {exc}"[:200])
        done.append(record)
    finally:
        await tab.close()
    return done


async def warm_up(base: str, timeout: float) -> list[str]:
    """Every station opened and each of its interactions done once (a Learn station: Train first)."""
    errors = []
    for i, station in enumerate(mix.stations()):
        kinds = (
            (["train"] if not station.sidebar else [])
            + list(station.in_page)
            + (["sidebar"] if station.sidebar else [])
        )
        for record in await student(base, station, kinds, random.Random(i), timeout):
            errors += [f"{station.name} {record.kind}: {e}" for e in record.errors]
    return errors


async def one_pass(folder, mode: str, args, label: str) -> dict:
    """A fresh server of this checkout, warmed up; then the students one at a time, or as a hall. The floor
    (label F): the floor app's server, every student at its one station moving its slider."""
    floor = label == FLOOR
    stations = [mix.FLOOR] * args.students if floor else mix.assign(args.students)
    plans = [["sidebar"] * args.moves if floor else mix.plan(s, args.moves, i) for i, s in enumerate(stations)]
    app = "floor_app.py" if floor else "streamlit_app.py"
    with servers.server(folder, log_name=f"hall-{label}-{mode}.log", app=app) as server:
        cpu = servers.Cpu(server.pid)
        if floor:
            warm = [
                e
                for d in await student(server.url, mix.FLOOR, ["sidebar"], random.Random(0), args.timeout)
                for e in d.errors
            ]
        else:
            warm = await warm_up(server.url, args.timeout)
        await asyncio.sleep(1.0)
        idle_from, idle_cpu = time.perf_counter(), cpu.seconds()
        await asyncio.sleep(1.0)
        idle = (cpu.seconds() - idle_cpu) / (time.perf_counter() - idle_from)
        rng = random.Random(args.seed)
        seeds = [rng.random() for _ in stations]
        started, before = time.perf_counter(), cpu.seconds()
        if mode == "one":
            done = []
            for station, plan, seed in zip(stations, plans, seeds):
                done += await student(server.url, station, plan, random.Random(seed), args.timeout, cpu=cpu)
        else:
            offsets = sorted(rng.uniform(0, args.spread) for _ in stations)
            results = await asyncio.wait_for(
                asyncio.gather(
                    *(
                        student(server.url, station, plan, random.Random(seed), args.timeout, args.pause, offset)
                        for station, plan, seed, offset in zip(stations, plans, seeds, offsets)
                    )
                ),
                args.deadline,
            )
            done = [d for result in results for d in result]
        return {
            "mode": mode,
            "cpu_s": cpu.seconds() - before,
            "wall_s": time.perf_counter() - started,
            "idle_cpu_per_s": idle,
            "warm_up_errors": warm,
            "done": [asdict(d) for d in done],
        }


async def sitting(args) -> dict:
    """Rounds of both passes for each checkout, the checkouts alternating within each round."""
    folders = {"A": servers.checkout(args.checkout)}
    if args.against:
        folders["B"] = servers.checkout(args.against)
    if args.floor:
        folders[FLOOR] = floor_app.write_floor()
    modes = {"both": ("one", "hall"), "one": ("one",), "hall": ("hall",)}[args.only]
    rounds: list[dict] = []
    try:
        for r in range(args.rounds):
            for name, folder in folders.items():
                for mode in modes:
                    print(
                        f"round {r + 1}, {name} {folder}, {'one at a time' if mode == 'one' else 'the hall'} …",
                        flush=True,
                    )
                    result = await one_pass(folder, mode, args, name)
                    result.update(round=r + 1, checkout=name)
                    rounds.append(result)
                    print("  " + hall_report.one_line(result), flush=True)
    finally:
        if args.floor:
            shutil.rmtree(folders[FLOOR], ignore_errors=True)
    return {
        "checkouts": {name: servers.label(folder) for name, folder in folders.items()},
        "students": args.students,
        "moves": args.moves,
        "spread_s": args.spread,
        "pause_s": args.pause,
        "passes": rounds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", default=str(bs.ROOT), help="the checkout to measure (default: this one)")
    parser.add_argument("--against", default=None, metavar="DIR", help="another checkout, alternating with it")
    parser.add_argument("--rounds", type=int, default=1, help="rounds (each: every checkout, every pass)")
    parser.add_argument(
        "--only",
        choices=["both", "one", "hall"],
        default="both",
        help="one: only the one-at-a-time pass (CPU per kind); hall: only the hall",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also the floor app (benchmarks.floor_app) under the same students, moving its slider (checkout F)",
    )
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--moves", type=int, default=6, help="interactions per student (even: half in-page)")
    parser.add_argument("--spread", type=float, default=10.0, help="the hall's students arrive within this (s)")
    parser.add_argument("--pause", type=float, default=2.0, help="the hall's mean pause before each move (s)")
    parser.add_argument("--timeout", type=float, default=60.0, help="per message / request (s)")
    parser.add_argument("--deadline", type=float, default=600.0, help="a hall pass, whole (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="write every interaction's figures to FILE")
    args = parser.parse_args()
    if not 1 <= args.students <= MAX_STUDENTS:
        parser.error(f"--students must be 1..{MAX_STUDENTS}")
    if args.moves < 1 or args.rounds < 1:
        parser.error("--moves and --rounds must be at least 1")
    report = asyncio.run(sitting(args))
    print()
    for line in hall_report.lines(report):
        print(line)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)


if __name__ == "__main__":
    main()
