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

    python benchmarks/load.py                                 # 60 sessions within 10 s, a change every 2 s
    python benchmarks/load.py --spread 0 --pause 0            # stress: 60 at once, no pauses
    python benchmarks/load.py --watcher auto                  # the same with Streamlit's file watcher on
    python benchmarks/load.py --url http://127.0.0.1:8501     # against a server you started (no RSS)
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import websockets  # noqa: E402  (a dependency of streamlit itself)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

import browser_support as bs  # noqa: E402

MAX_SESSIONS = 200
TARGETS = {"first_p95": 2.0, "rerun_p95": 1.0, "peak_mib": 600, "settle_ratio": 1.10}


# ------------------------------------------------------------------------------ widget states
def widget_state(element) -> WidgetState | None:
    """The WidgetState the frontend sends for a sidebar widget, from the element the server drew."""
    kind = element.WhichOneof("type")
    proto = getattr(element, kind) if kind else None
    if proto is None or not getattr(proto, "id", ""):
        return None
    state = WidgetState(id=proto.id)
    if kind == "slider":
        if proto.type == proto.SELECT_SLIDER:
            state.string_array_value.data.extend(
                list(proto.raw_value) or [proto.options[int(i)] for i in proto.default])
        else:
            state.double_array_value.data.extend(list(proto.value) if proto.set_value else list(proto.default))
    elif kind == "selectbox":
        state.string_value = proto.raw_value if proto.HasField("raw_value") else proto.options[proto.default]
    elif kind == "text_input":
        state.string_value = proto.value if proto.HasField("value") else proto.default
    elif kind == "number_input":
        state.int_value = int(proto.value if proto.HasField("value") else proto.default)
    elif kind == "checkbox":
        state.bool_value = proto.value
    else:
        return None                  # buttons, charts, page widgets: the frontend sends nothing unless used
    return state


@dataclass
class Result:
    first: float | None = None
    reruns: list[float] = field(default_factory=list)
    first_bytes: int = 0
    rerun_bytes: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


class Student:
    """One browser tab: one websocket session."""

    def __init__(self, base: str, page: str, query: str, slider: str, changes: int, pause: float,
                 rng: random.Random, timeout: float):
        self.base, self.page, self.query, self.slider = base, page, query, slider
        self.changes, self.pause, self.rng, self.timeout = changes, pause, rng, timeout
        self.widgets: dict[str, WidgetState] = {}
        self.slider_proto = None
        self.cached: set[str] = set()
        self.page_hash = ""
        self.result = Result()

    async def _http(self, path: str) -> None:
        def get():
            with urllib.request.urlopen(self.base + path, timeout=self.timeout) as response:
                response.read()
        await asyncio.to_thread(get)

    def _rerun_msg(self) -> bytes:
        msg = BackMsg()
        rerun = msg.rerun_script
        rerun.query_string = self.query
        rerun.page_name = self.page
        rerun.page_script_hash = self.page_hash
        rerun.widget_states.widgets.extend(self.widgets.values())
        rerun.cached_message_hashes.extend(sorted(self.cached))
        info = rerun.context_info
        info.timezone, info.locale, info.color_scheme = "UTC", "en-US", "light"
        info.url = f"{self.base}/{self.page}" + (f"?{self.query}" if self.query else "")
        return msg.SerializeToString()

    async def _run(self, ws) -> tuple[float, int]:
        """Send a rerun and read until its script_finished; returns (seconds, bytes received)."""
        start = time.perf_counter()
        await ws.send(self._rerun_msg())
        received = 0
        while True:
            raw = await asyncio.wait_for(ws.recv(), self.timeout)
            received += len(raw)
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if msg.metadata.cacheable and msg.hash:
                self.cached.add(msg.hash)
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                if element.WhichOneof("type") == "exception":
                    self.result.errors.append("exception element: " + element.exception.message[:120])
                state = widget_state(element)
                if state is not None:
                    kind = element.WhichOneof("type")
                    # Like the frontend: a widget keeps its own value unless the server sets one.
                    if state.id not in self.widgets or getattr(element, kind).set_value:
                        self.widgets[state.id] = state
                    if element.WhichOneof("type") == "slider" and element.slider.label.startswith(self.slider):
                        self.slider_proto = element.slider
            elif kind == "navigation":
                self.page_hash = msg.navigation.page_script_hash
            elif kind == "page_not_found":
                self.result.notices.append("page_not_found")
            elif kind == "session_event" and msg.session_event.HasField("script_compilation_exception"):
                self.result.errors.append("compile error")
            elif kind == "script_finished":
                if msg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                if msg.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    self.result.errors.append("finished with compile error")
                return time.perf_counter() - start, received

    def _move(self) -> None:
        proto = self.slider_proto
        state = self.widgets[proto.id]
        low, high = int(proto.min), int(proto.max)
        now = int(state.double_array_value.data[0])
        step = self.rng.choice([-3, -2, -1, 1, 2, 3])
        new = now + step if low <= now + step <= high else now - step
        state.double_array_value.data[:] = [float(new)]

    async def session(self) -> Result:
        start = time.perf_counter()
        try:
            for path in (f"/{self.page}" + (f"?{self.query}" if self.query else ""),
                         "/_stcore/health", "/_stcore/host-config"):
                await self._http(path)
            url = self.base.replace("http://", "ws://") + "/_stcore/stream"
            async with websockets.connect(url, subprotocols=["streamlit"], origin=self.base,
                                          max_size=None, open_timeout=self.timeout,
                                          ping_interval=None) as ws:
                _, received = await self._run(ws)
                self.result.first = time.perf_counter() - start        # includes the HTTP and the handshake
                self.result.first_bytes = received
                if self.slider_proto is None:
                    self.result.errors.append(f"no slider labelled {self.slider!r}")
                    return self.result
                for _ in range(self.changes):
                    if self.pause:
                        await asyncio.sleep(self.pause * self.rng.uniform(0.75, 1.25))
                    self._move()
                    seconds, received = await self._run(ws)
                    self.result.reruns.append(seconds)
                    self.result.rerun_bytes.append(received)
        except asyncio.TimeoutError:
            self.result.errors.append(f"timeout ({self.timeout} s)")
        except (OSError, websockets.exceptions.WebSocketException) as exc:
            self.result.errors.append(f"{type(exc).__name__}: {exc}"[:160])
        return self.result


# ------------------------------------------------------------------------------------ memory
class RssSampler:
    """Samples /proc/<pid>/status every 50 ms; VmHWM is the kernel's own peak."""

    def __init__(self, pid: int):
        self.pid, self.peak, self._task = pid, 0, None

    def read(self) -> tuple[int, int]:
        text = Path(f"/proc/{self.pid}/status").read_text()
        values = {k: int(v.split()[0]) for k, v in re.findall(r"^(VmRSS|VmHWM):\s+(.+)$", text, re.M)}
        return values["VmRSS"] * 1024, values["VmHWM"] * 1024

    def cpu_seconds(self) -> float:
        """User + system CPU time the server has used so far (all its threads)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def _loop(self):
        while True:
            rss, _ = self.read()
            self.peak = max(self.peak, rss)
            await asyncio.sleep(0.05)

    def start(self):
        self._task = asyncio.create_task(self._loop())

    async def stop(self):
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


MiB = 1024 * 1024


async def main_async(args) -> dict:
    server = None
    if args.url:
        base = args.url.rstrip("/")
    else:
        extra = ["--server.fileWatcherType", args.watcher] if args.watcher else []
        for option in args.option:
            name, _, value = option.partition("=")
            extra += [f"--{name}", value]
        server = bs.Server(extra=extra, log_name="load-server.log").start()
        base = server.url
    sampler = RssSampler(server.pid) if server else None
    try:
        # Warm-up: one session, so the baseline has the app's modules loaded (as after any first visit).
        warm = await Student(base, args.page, args.query, args.slider, 1, 0, random.Random(0),
                             args.timeout).session()
        if warm.errors:
            raise SystemExit(f"warm-up session failed: {warm.errors}")
        await asyncio.sleep(1.0)
        baseline = sampler.read()[0] if sampler else 0
        if sampler:
            sampler.start()
            cpu_before = sampler.cpu_seconds()

        rng = random.Random(args.seed)
        students = [Student(base, args.page, args.query, args.slider, args.changes, args.pause,
                            random.Random(rng.random()), args.timeout) for _ in range(args.sessions)]
        offsets = sorted(rng.uniform(0, args.spread) for _ in students)

        async def arrive(student, offset):
            await asyncio.sleep(offset)
            return await student.session()

        started = time.perf_counter()
        results = await asyncio.wait_for(
            asyncio.gather(*(arrive(s, o) for s, o in zip(students, offsets))), args.deadline)
        wall = time.perf_counter() - started

        report = {"sessions": args.sessions, "spread_s": args.spread, "pause_s": args.pause,
                  "changes": args.changes, "page": "/" + args.page, "query": args.query,
                  "watcher": args.watcher or "(config.toml)", "wall_s": round(wall, 2)}
        firsts = [r.first for r in results if r.first is not None]
        reruns = [x for r in results for x in r.reruns]
        report["first_page_s"] = {"p50": pct(firsts, 50), "p95": pct(firsts, 95), "max": max(firsts, default=0)}
        report["rerun_s"] = {"p50": pct(reruns, 50), "p95": pct(reruns, 95), "max": max(reruns, default=0),
                             "count": len(reruns)}
        errors = [e for r in results for e in r.errors]
        report["errors"] = len(errors)
        report["error_samples"] = sorted(set(errors))[:5]
        report["notices"] = sorted({n for r in results for n in r.notices})
        report["bytes"] = {"first_page_median": statistics.median([r.first_bytes for r in results] or [0]),
                           "rerun_median": statistics.median([b for r in results for b in r.rerun_bytes] or [0])}
        if sampler:
            runs = len(firsts) + len(reruns)
            report["server_cpu_ms_per_run"] = round(1000 * (sampler.cpu_seconds() - cpu_before) / max(runs, 1), 1)
            await sampler.stop()
            _, hwm = sampler.read()
            peak = max(sampler.peak, hwm)
            # After the sessions close: let the server drop them, then read RSS for up to settle_s.
            settled, waited = sampler.read()[0], 0.0
            while waited < args.settle and settled > baseline * TARGETS["settle_ratio"]:
                await asyncio.sleep(0.5)
                waited += 0.5
                settled = sampler.read()[0]
            report["rss_mib"] = {"baseline": round(baseline / MiB, 1), "peak": round(peak / MiB, 1),
                                 "after_close": round(settled / MiB, 1), "after_close_wait_s": waited,
                                 "after_close_ratio": round(settled / baseline, 3)}
        return report
    finally:
        if server:
            server.stop()


def verdict(report: dict) -> list[str]:
    lines = []
    first, rerun = report["first_page_s"], report["rerun_s"]
    lines.append(f"first page  p50 {first['p50']:.3f} s  p95 {first['p95']:.3f} s  max {first['max']:.3f} s"
                 f"   (target p95 ≤ {TARGETS['first_p95']} s)")
    lines.append(f"reruns      p50 {rerun['p50']:.3f} s  p95 {rerun['p95']:.3f} s  max {rerun['max']:.3f} s"
                 f"   ({rerun['count']} reruns; target p95 ≤ {TARGETS['rerun_p95']} s)")
    lines.append(f"errors      {report['errors']}  {report['error_samples'] or ''}")
    if report["notices"]:
        lines.append(f"notices     {report['notices']}")
    lines.append(f"bytes       first page {report['bytes']['first_page_median']:.0f} B, "
                 f"rerun {report['bytes']['rerun_median']:.0f} B (medians)")
    if "server_cpu_ms_per_run" in report:
        lines.append(f"server CPU  {report['server_cpu_ms_per_run']} ms per script run (all threads, "
                     f"HTTP and websocket included)")
    if "rss_mib" in report:
        rss = report["rss_mib"]
        lines.append(f"server RSS  baseline {rss['baseline']} MiB, peak {rss['peak']} MiB (target ≤ "
                     f"{TARGETS['peak_mib']}), after close {rss['after_close']} MiB = "
                     f"{rss['after_close_ratio']:.2f}× baseline after {rss['after_close_wait_s']} s "
                     f"(target ≤ {TARGETS['settle_ratio']}×)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--spread", type=float, default=10.0, help="arrivals spread uniformly over this many s")
    parser.add_argument("--pause", type=float, default=2.0, help="mean pause between slider changes (s)")
    parser.add_argument("--changes", type=int, default=5)
    parser.add_argument("--page", default="", help="url path of the page, '' = the default page")
    parser.add_argument("--query", default="", help="query string, e.g. seq_len=16")
    parser.add_argument("--slider", default="Sequence length", help="label prefix of the slider to move")
    parser.add_argument("--watcher", choices=["auto", "poll", "watchdog", "none"], default=None,
                        help="override server.fileWatcherType (default: .streamlit/config.toml)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="extra `streamlit run` option, e.g. runner.postScriptGC=true (repeatable)")
    parser.add_argument("--url", default=None, help="an already running server (loopback only; no RSS)")
    parser.add_argument("--timeout", type=float, default=30.0, help="per message / request (s)")
    parser.add_argument("--deadline", type=float, default=300.0, help="whole run (s)")
    parser.add_argument("--settle", type=float, default=20.0, help="wait up to this for RSS after close (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the report as JSON too")
    args = parser.parse_args()
    if not 1 <= args.sessions <= MAX_SESSIONS:
        parser.error(f"--sessions must be 1..{MAX_SESSIONS}")
    if args.url and not re.match(r"^http://(127\.0\.0\.1|localhost)(:\d+)?/?$", args.url):
        parser.error("--url must be a loopback address")
    report = asyncio.run(main_async(args))
    print(f"load: {args.sessions} sessions over {args.spread} s, {args.changes} changes each, pause "
          f"{args.pause} s, page /{args.page}{'?' + args.query if args.query else ''}, watcher "
          f"{report['watcher']}, wall {report['wall_s']} s")
    for line in verdict(report):
        print("  " + line)
    if args.json:
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
