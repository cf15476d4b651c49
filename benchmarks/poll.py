"""A hall answers a class poll: N students join one room and answer 3 questions, over Streamlit's own
websocket protocol (benchmarks.load's Student), against one server or replicas behind HAProxy that
share one SQLite file.

Each student GETs the join link (`/softmax?room=CODE`), opens the websocket, keeps the seat the app
writes into its URL, and then, with a pause of about 2 s before each, moves the sequence-length slider
or answers one of the room's questions (a radio in the poll box: a rerun of the box's fragment carrying
the radio's new value), three of each, in turns. Between actions its page checks the room every second
as a browser's does (the auto rerun of ui/poll/follow.py's one-row check, which draws nothing unless the
room changed). A presenter session on the same room refreshes its panel
every 1.5 s and its "answered" count is read from what it draws. The benchmark (holding the room's
key) creates the room and asks the questions through the store, as the presenter's buttons do.

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

import websockets
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from harness import browser as bs
from benchmarks import load
from deploy import replicas

PAGE = "softmax"
STUDENT_REFRESH_S, PRESENTER_REFRESH_S = 1.25, 1.5    # ui.poll.follow's WATCH_ALONE_S (a student's timer until
                                                       # the server sent its own) and ui.poll.view's run_every
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
    return [questions.softmax_top_key(t, 0, t.T - 1), questions.scores_spread(t, cfg, 0),
            questions.exercise_prediction(analysis.extend(cfg, words, "AI"), 0)]


class PollStudent(load.Student):
    """A student in the room: slider moves and answers in turns, the poll box refreshing between."""

    def __init__(self, *a, asked=(), poll=True, refresh=None, **kw):
        super().__init__(*a, **kw)
        self.asked, self.poll, self.given = list(asked), poll, refresh
        self.every: float | None = None                # the check's interval as the server sent it
        self.pushes = 0                                # runs the server started without being asked
        self.fragment: str | None = None               # the room check's fragment id (its auto-rerun element)
        self.box: str | None = None                    # the poll box's fragment id (its radios rerun it)
        self.radios: dict[str, object] = {}            # qid -> the radio element
        self.chosen: dict[str, str] = {}               # qid -> the option value last sent and run
        self.moves: list[float] = []
        self.answers: list[float] = []
        self.refreshes: list[float] = []
        self.reconnects = 0
        self.metric: str | None = None                 # the presenter's "answered" as drawn

    @property
    def refresh(self) -> float:
        """The timer between room checks: the one given (a presenter's panel), else the app's own."""
        return self.given or self.every or STUDENT_REFRESH_S

    def _by_prompt(self, label: str):
        plain = label.replace("\\", "")
        return next((q for q in self.asked if q.prompt == plain), None)

    async def _run(self, ws, fragment: str | None = None, auto: bool = False) -> tuple[float, int]:
        """benchmarks.load.Student._run, plus: radios, the fragment's id, the URL the app writes,
        the presenter's metric; a fragment rerun when `fragment` is given."""
        while await self._pushed(ws, 0.001):          # a run the server started on its own, read first
            pass
        msg = load.BackMsg()
        msg.ParseFromString(self._rerun_msg())
        if fragment:
            msg.rerun_script.fragment_id = fragment
            msg.rerun_script.is_auto_rerun = auto
        start = time.perf_counter()
        await ws.send(msg.SerializeToString())
        return await self._read(ws, start)

    async def _pushed(self, ws, wait: float) -> bool:
        """Wait up to `wait` s for a run the server starts without being asked (a room's change pushed to
        this session, ui/poll/push.py) and read it as a browser does; False when none began."""
        try:
            raw = await asyncio.wait_for(ws.recv(), max(wait, 0.001))
        except asyncio.TimeoutError:
            return False
        first = ForwardMsg()
        first.ParseFromString(raw)
        if first.WhichOneof("type") != "new_session":  # a status message between runs: nothing to read
            return True
        self.pushes += 1
        await self._read(ws, time.perf_counter(), raw)
        return True

    async def pause_for(self, ws, seconds: float) -> None:
        """Sleep as a browser tab does: a run the server pushes meanwhile is read when it comes."""
        end = time.monotonic() + seconds
        await asyncio.sleep(0)                         # let the other tabs run, whatever the wait
        while time.monotonic() < end:
            await self._pushed(ws, end - time.monotonic())

    async def _read(self, ws, start: float, raw: bytes | None = None) -> tuple[float, int]:
        """Read one run's messages until it finished (`raw`: its first, already received)."""
        received = 0
        while True:
            if raw is None:
                raw = await asyncio.wait_for(ws.recv(), self.timeout)
            received += len(raw)
            fmsg = ForwardMsg()
            fmsg.ParseFromString(raw)
            raw = None
            kind = fmsg.WhichOneof("type")
            if fmsg.metadata.cacheable and fmsg.hash:
                self.cached.add(fmsg.hash)
            if kind == "delta" and fmsg.delta.WhichOneof("type") == "new_element":
                element = fmsg.delta.new_element
                what = element.WhichOneof("type")
                if what == "exception":
                    self.result.errors.append("exception element: " + element.exception.message[:120])
                elif what == "radio":
                    q = self._by_prompt(element.radio.label)
                    if q is not None:
                        self.radios[q.qid] = element.radio
                        self.box = fmsg.delta.fragment_id or self.box
                elif what == "metric" and element.metric.label == "answered":
                    self.metric = element.metric.body
                self.saw(fmsg, element, what)
                state = load.widget_state(element)
                if state is not None and (state.id not in self.widgets or getattr(element, what).set_value):
                    self.widgets[state.id] = state
                    if what == "slider" and element.slider.label.startswith(self.slider):
                        self.slider_proto = element.slider
            elif kind == "ref_hash":
                self.saw_cached(fmsg.ref_hash)
            elif kind == "auto_rerun":                                 # a fragment that refreshes itself
                self.fragment = fmsg.auto_rerun.fragment_id
                self.every = fmsg.auto_rerun.interval or None          # the frontend's timer, as the app set it
            elif kind == "page_info_changed":
                self.query = fmsg.page_info_changed.query_string      # the seat the app gave, the slider's value
            elif kind == "navigation":
                self.page_hash = fmsg.navigation.page_script_hash
            elif kind == "script_finished":
                if fmsg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                self.finished_how = fmsg.script_finished
                return time.perf_counter() - start, received

    def saw(self, fmsg, element, what: str) -> None:
        """Every element drawn (a subclass reads what it needs)."""

    def saw_cached(self, ref: str) -> None:
        """A message the client already holds, sent again by its hash."""

    def _answer_state(self, qid: str) -> tuple[str, str]:
        """Pick an option of the question (sometimes the student changes an earlier answer)."""
        q = next(q for q in self.asked if q.qid == qid)
        radio = self.radios[qid]
        index = self.rng.randrange(len(q.options))
        state = WidgetState(id=radio.id)
        state.string_value = radio.options[index]
        self.widgets[radio.id] = state
        return q.options[index][0], radio.id

    async def _connect(self):
        for path in (f"/{self.page}" + (f"?{self.query}" if self.query else ""), "/_stcore/health",
                     "/_stcore/host-config"):
            await self._http(path)
        xsrf = self.cookies.get("_streamlit_xsrf")
        url = self.base.replace("http://", "ws://") + "/_stcore/stream"
        return await websockets.connect(url, subprotocols=["streamlit"] + ([xsrf] if xsrf else []),
                                        origin=self.base, additional_headers=self._cookie_header(),
                                        max_size=None, open_timeout=self.timeout, ping_interval=None)

    async def _do(self, ws, action: str) -> None:
        if action == "move":
            self._move()
            seconds, _ = await self._run(ws)
            self.moves.append(seconds)
        elif action == "refresh":
            seconds, _ = await self._run(ws, self.fragment, auto=True)
            self.refreshes.append(seconds)
        else:                                          # answer a question
            choice, _ = self._answer_state(action)
            seconds, _ = await self._run(ws, self.box or self.fragment)
            self.answers.append(seconds)
            self.chosen[action] = choice

    async def lecture(self, plan: list[str], pause: float, until: asyncio.Event | None = None) -> load.Result:
        """Join, then the plan's actions with pauses (refreshing between); reconnect after a crash."""
        ws = None
        todo = list(plan)
        try:
            while True:
                try:
                    if ws is None:
                        ws = await self._connect()
                        seconds, received = await self._run(ws)
                        if self.result.first is None:
                            self.result.first, self.result.first_bytes = seconds, received
                        if self.poll and (self.fragment is None or
                                          any(a not in ("move", "refresh") and a not in self.radios for a in todo)):
                            self.result.errors.append("no poll box or question on the page")
                            return self.result
                    next_refresh = time.monotonic() + self.refresh
                    while todo or (until is not None and not until.is_set()):
                        target = time.monotonic() + (pause * self.rng.uniform(0.75, 1.25) if todo else self.refresh)
                        while self.poll and next_refresh < target:
                            await self.pause_for(ws, next_refresh - time.monotonic())
                            await self._do(ws, "refresh")
                            next_refresh = max(next_refresh + self.refresh, time.monotonic())
                        await self.pause_for(ws, target - time.monotonic())
                        if todo:
                            await self._do(ws, todo[0])
                            todo.pop(0)
                    return self.result
                except (OSError, websockets.exceptions.WebSocketException) as exc:
                    # The replica died: the frontend reconnects through HAProxy and the student goes on.
                    self.reconnects += 1
                    if self.reconnects > 3:
                        self.result.errors.append(f"{type(exc).__name__}: {exc}"[:160])
                        return self.result
                    ws = None
                    self.fragment = None
                    await asyncio.sleep(1.0)
        except asyncio.TimeoutError:
            self.result.errors.append(f"timeout ({self.timeout} s)")
            return self.result
        finally:
            if ws is not None:
                await ws.close()
            self.result.replica = self.cookies.get(replicas.COOKIE)


async def hall(args) -> dict:
    run_dir = Path(tempfile.mkdtemp(prefix="attention-lab-poll-"))
    db = run_dir / "poll.sqlite3"
    os.environ["ATTENTION_LAB_POLL_DB"] = str(db)            # the servers inherit it: one file for all
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
            warm = PollStudent(base, PAGE, f"room={room.code}", "Sequence length", rng=random.Random(0),
                               cookies={replicas.COOKIE: name} if name else None, asked=asked, **kw)
            await warm.lecture([], 0)

        done = asyncio.Event()
        presenter = PollStudent(base, PAGE, f"present=1&room={room.code}&key={room.key}", "Sequence length",
                                rng=random.Random(1), asked=asked, refresh=PRESENTER_REFRESH_S, **kw)
        presenting = asyncio.create_task(presenter.lecture([], 0, until=done)) if not args.no_poll else None
        plans = []
        for _ in range(args.students):
            qs = [q.qid for q in asked]
            rng.shuffle(qs)
            plans.append(["move", qs[0], "move", qs[1], "move", qs[2]] if not args.no_poll else ["move"] * 3)
        query = "" if args.no_poll else f"room={room.code}"
        students = [PollStudent(base, PAGE, query, "Sequence length", rng=random.Random(rng.random()), asked=asked,
                                poll=not args.no_poll, **kw) for _ in plans]
        offsets = sorted(rng.uniform(0, args.spread) for _ in students)

        async def arrive(student, plan, offset):
            await asyncio.sleep(offset)
            return await student.lecture(plan, args.pause)

        async def crash():
            await asyncio.sleep(args.spread + args.pause * 2.5)         # mid-poll: everyone in, answers flowing
            cluster.kill("r1")
            return time.perf_counter()

        pids = {r.name: r.pid for r in cluster.replicas} if cluster else {"server": server.pid}
        cpu_before = {name: load.RssSampler(pid).cpu_seconds() for name, pid in pids.items()}
        started = time.perf_counter()
        killer = asyncio.create_task(crash()) if args.kill and cluster else None
        await asyncio.wait_for(asyncio.gather(*(arrive(s, p, o) for s, p, o in zip(students, plans, offsets))),
                               args.deadline)
        wall = time.perf_counter() - started
        cpu = {}
        for name, pid in pids.items():
            try:
                cpu[name] = round(load.RssSampler(pid).cpu_seconds() - cpu_before[name], 1)
            except OSError:
                cpu[name] = None                                   # the killed replica
        killed_at = round(await killer - started, 1) if killer else None
        if presenting:
            await asyncio.sleep(PRESENTER_REFRESH_S * 2 + 0.5)            # one refresh after the last answer
            done.set()
            await presenting

        report = {"students": args.students, "poll": not args.no_poll, "replicas": args.replicas or None,
                  "killed_r1_at_s": killed_at, "wall_s": round(wall, 1), "room": room.code}
        moves = [x for s in students for x in s.moves]
        answers = [x for s in students for x in s.answers]
        refreshes = [x for s in students for x in s.refreshes]
        firsts = [s.result.first for s in students if s.result.first is not None]
        for name, values in (("join_s", firsts), ("slider_rerun_s", moves), ("answer_rerun_s", answers),
                             ("refresh_s", refreshes)):
            report[name] = {"p50": round(load.pct(values, 50), 3), "p95": round(load.pct(values, 95), 3),
                            "max": round(max(values, default=0), 3), "count": len(values)}
        report["server_cpu_s"] = cpu                                   # while the students were on
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
