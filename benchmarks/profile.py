"""Where a server run's time goes: a real `streamlit run` of a checkout, one tab rerunning each page (full
reruns over the websocket protocol, like benchmarks.load), and the server's CPU put in categories (engine,
prose, chart specs, tables and Arrow, the frame, the page's own code, Streamlit's elements, its script-run
machinery on the script thread and on the event loop, serialisation, sending, other).

Every page is profiled at the defaults and at ?preset=trained-induction (layer=1 on the one-block pages):
the station's tab opens the page (not profiled), then --reruns full reruns, each a move of the sequence-
length slider by ±1–3 within 4 of where it started (the Learn page: a step of its replay slider, after
Train, sent as a full rerun).

How (benchmarks/server_probe.py, copied to a temp folder and started as the server; the checkout is not
touched): threads' own CPU clocks are read at Streamlit's boundaries, so Streamlit's runner, every st.*
call, the message hashes, JSON and Arrow encoding, the event loop's handling and serialisation of each
message are exact CPU, whatever else the machine runs; the app's own code between st.* calls is located
by stacks sampled every 2 ms (benchmarks.profile_categories puts each stack in a category by the
checkout's folders and the libraries' names). Sampling alone was tried first and is not used: py-spy's
samples of the interpreter lock's holder gave the event loop 45-58 % where its thread's CPU clock
(/proc/PID/task/PID/schedstat) said 21-25 %, and a sampler inside the server sees the other threads only
where they hand the lock over (65 % of its samples: a delta handed to the event loop, the event loop's
wait for the network).

    python -m benchmarks.profile                                  # this checkout, 150 reruns a station
    python -m benchmarks.profile --checkout /work/base            # another checkout (the code at filing)
    python -m benchmarks.profile --reruns 40 --pages scores,model --presets trained   # a quick look
    python -m benchmarks.profile --clicks cell --reruns 100        # in-page clicks, not full reruns (below)

With --clicks KIND (cell, beta, replay, knockout or exercise: benchmarks.mix's in-page interactions), each
station that has that kind of interaction does it --reruns times instead of moving the slider, sent as the
browser sends it (with the fragment id of the widget's `st.fragment`, so the server reruns only that part):
where a click's CPU goes. --clicks sidebar moves the hall's sidebar controls instead (benchmarks.mix.sidebar: at
the defaults d_model, d_ff and the seed as well as the sequence length, so most moves draw a model not drawn before,
as in the hall), where the plain full reruns walk the sequence length near its start and soon hit the caches.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks import hall, mix, server_probe, servers
from benchmarks import profile_categories as cats
from benchmarks import profile_report as report
from benchmarks.wsclient import Tab
from harness import browser as bs

WALK = 4  # the sequence length stays within this of where the station started


class Recording:
    """The in-server sampler's control folder: a window of samples per station."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.launcher = [sys.executable, str(folder / "server_probe.py"), str(folder)]
        shutil.copy(server_probe.__file__, folder / "server_probe.py")

    def _say(self, words: str) -> None:
        staged = self.folder / "control.new"
        staged.write_text(words)
        staged.replace(self.folder / "control")

    async def start(self, name: str) -> None:
        for stale in (self.folder / f"{name}.done", self.folder / f"{name}.json"):
            stale.unlink(missing_ok=True)
        self._say(f"start {name}")
        await asyncio.sleep(0.05)  # picked up within the probe's next 2 ms

    async def stop(self, name: str, timeout: float = 30.0) -> Path:
        self._say("stop")
        done = self.folder / f"{name}.done"
        deadline = time.monotonic() + timeout
        while not done.exists():
            if time.monotonic() > deadline:
                raise SystemExit(f"the server's probe wrote no {name}.json within {timeout} s")
            await asyncio.sleep(0.02)
        return self.folder / f"{name}.json"


def rerun_change(tab: Tab, station: mix.Station, rng: random.Random, start: dict) -> tuple[str, WidgetState]:
    """The next full rerun's change: the sequence length by ±1–3 (near where it started), or a replay step."""
    if not station.sidebar:
        return mix.replay(tab, station, rng)
    key = mix.SEQ_LEN
    now = int(tab.state(key).double_array_value.data[0])
    start.setdefault(key, now)
    low, high = max(int(tab.widget(key).proto.min), start[key] - WALK), start[key] + WALK
    step = rng.choice([-3, -2, -1, 1, 2, 3])
    new = now + step if low <= now + step <= high else now - step
    state = WidgetState()
    state.double_array_value.data.append(float(min(high, max(low, new))))
    return key, state


async def station_profile(url: str, pid: int, station: mix.Station, args, recording: Recording, categoriser) -> dict:
    cpu = servers.Cpu(pid)
    rng, start, errors = random.Random(args.seed), {}, []
    tab = Tab(url, station.page, station.query, args.timeout)
    run = await tab.open()
    errors += run.errors + tab.notices
    if not station.sidebar and tab.widget(mix.LEARN_TRAIN) is not None:
        tab.set(*mix.train(tab, station, rng))  # Train once: the run is shown after it
        errors += (await tab.run()).errors
    name = f"{station.name.split()[0].strip('/')}-{station.preset}"
    fragments = 0
    before = cpu.seconds()
    await recording.start(name)
    started, messages = time.perf_counter(), 0
    try:
        for turn in range(args.reruns):
            if args.clicks:  # as the browser sends it: with its fragment id
                change = mix.HANDS[args.clicks](tab, station, rng, turn)
                if change is None:
                    raise LookupError(f"{station.name}: nothing on the page for a {args.clicks!r} interaction")
                run = await tab.run(tab.set(*change))
                fragments += bool(run.fragment)
            else:
                tab.set(*rerun_change(tab, station, rng, start))
                run = await tab.run()  # a full rerun (no fragment id)
            errors += run.errors
            messages += run.messages
        await asyncio.sleep(hall.SETTLE_S)
        wall = time.perf_counter() - started
    finally:
        raw = await recording.stop(name)
        await tab.close()
    used = cpu.seconds() - before
    by_category, by_caller, functions, calls, totals = cats.tally(json.loads(raw.read_text()), categoriser, used)
    return {
        "station": station.name,
        "reruns": args.reruns,
        "fragment_reruns": fragments,
        "cpu_s": used,
        "wall_s": wall,
        **totals,
        "messages": messages / args.reruns,
        "categories": dict(by_category),
        "elements_by_caller": dict(by_caller),
        "functions": dict(functions.most_common(300)),
        "calls": dict(calls),
        "errors": errors,
    }


async def profile(args) -> dict:
    folder = servers.checkout(args.checkout)
    categoriser = cats.Categoriser(folder)
    chosen = [
        s
        for s in mix.stations()
        if s.preset in args.presets
        and (not args.pages or s.name.split()[0].lstrip("/") in args.pages)
        and (not args.clicks or args.clicks in s.in_page or (args.clicks == "sidebar" and s.sidebar))
    ]
    samples = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="attention-lab-profile-"))
    samples.mkdir(parents=True, exist_ok=True)
    recording = Recording(samples)
    results = []
    try:
        with servers.server(folder, log_name="profile-server.log", launcher=recording.launcher) as server:
            warm = await hall.warm_up(server.url, args.timeout)
            for station in chosen:
                result = await station_profile(server.url, server.pid, station, args, recording, categoriser)
                results.append(result)
                print("  " + report.station_line(result), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(samples, ignore_errors=True)
    return {
        "checkout": servers.label(folder),
        "reruns": args.reruns,
        "clicks": args.clicks,
        "warm_up_errors": warm,
        "stations": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", default=str(bs.ROOT), help="the checkout to profile (default: this one)")
    parser.add_argument("--reruns", type=int, default=150, help="full reruns (or clicks) per page and preset")
    parser.add_argument(
        "--clicks",
        choices=[k for k in mix.KINDS if k != "train"],
        default=None,
        help="profile this in-page interaction (sent with its fragment id) instead of full reruns; sidebar: the "
        "hall's sidebar moves (full reruns, most of them of a new model: d_model, d_ff, the seed)",
    )
    parser.add_argument("--pages", default="", help="comma-separated URL paths (default: every page)")
    parser.add_argument(
        "--presets", default="defaults,trained", help="defaults, trained, or both (also written defaults,trained)"
    )
    parser.add_argument("--top", type=int, default=15, help="list this many of the checkout's hottest functions")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="write the figures (and per-function samples) to FILE")
    parser.add_argument("--keep", metavar="DIR", help="keep the probe's regions there (one JSON per station)")
    args = parser.parse_args()
    args.pages = [p.strip().strip("/") for p in args.pages.split(",") if p.strip()]
    args.presets = [p.strip() for p in args.presets.replace("both", "defaults,trained").split(",") if p.strip()]
    if not set(args.presets) <= {"defaults", "trained"} or not args.presets:
        parser.error("--presets: defaults, trained or both")
    if args.reruns < 1:
        parser.error("--reruns must be at least 1")
    what = f"{args.clicks} interactions" if args.clicks else "full reruns"
    print(f"profiling {args.checkout}: {args.reruns} {what} per page and preset", flush=True)
    result = asyncio.run(profile(args))
    print()
    for line in report.lines(result, args.top):
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
