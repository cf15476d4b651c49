"""A student of the class-poll hall (benchmarks.poll, benchmarks.lesson): a simulated browser tab in a room
(benchmarks.ws_student's Student) that moves the slider and answers the poll box's questions in turns, its
page checking the room between actions as a browser's does.
"""

from __future__ import annotations

import asyncio
import time

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.ws_student import Result, Student, widget_state
from deploy import replicas

STUDENT_REFRESH_S = 1.25  # ui.poll.follow's WATCH_ALONE_S (a student's timer until the server sent its own)


class PollStudent(Student):
    """A student in the room: slider moves and answers in turns, the poll box refreshing between."""

    def __init__(self, *a, asked=(), poll=True, refresh=None, **kw):
        super().__init__(*a, **kw)
        self.asked, self.poll, self.given = list(asked), poll, refresh
        self.every: float | None = None  # the check's interval as the server sent it
        self.pushes = 0  # runs the server started without being asked
        self.fragment: str | None = None  # the room check's fragment id (its auto-rerun element)
        self.box: str | None = None  # the poll box's fragment id (its radios rerun it)
        self.radios: dict[str, object] = {}  # qid -> the radio element
        self.chosen: dict[str, str] = {}  # qid -> the option value last sent and run
        self.moves: list[float] = []
        self.answers: list[float] = []
        self.refreshes: list[float] = []
        self.reconnects = 0
        self.metric: str | None = None  # the presenter's "answered" as drawn

    @property
    def refresh(self) -> float:
        """The timer between room checks: the one given (a presenter's panel), else the app's own."""
        return self.given or self.every or STUDENT_REFRESH_S

    def _by_prompt(self, label: str):
        plain = label.replace("\\", "")
        return next((q for q in self.asked if q.prompt == plain), None)

    async def _run(self, ws, fragment: str | None = None, auto: bool = False) -> tuple[float, int]:
        """benchmarks.Student._run, plus: radios, the fragment's id, the URL the app writes,
        the presenter's metric; a fragment rerun when `fragment` is given."""
        while await self._pushed(ws, 0.001):  # a run the server started on its own, read first
            pass
        msg = BackMsg()
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
        except TimeoutError:
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
        await asyncio.sleep(0)  # let the other tabs run, whatever the wait
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
                state = widget_state(element)
                if state is not None and (state.id not in self.widgets or getattr(element, what).set_value):
                    self.widgets[state.id] = state
                    if what == "slider" and element.slider.label.startswith(self.slider):
                        self.slider_proto = element.slider
            elif kind == "delta" and fmsg.delta.WhichOneof("type") == "add_block":
                self.saw_block(fmsg.delta.add_block)
            elif kind == "ref_hash":
                self.saw_cached(fmsg.ref_hash)
            elif kind == "auto_rerun":  # a fragment that refreshes itself
                self.fragment = fmsg.auto_rerun.fragment_id
                self.every = fmsg.auto_rerun.interval or None  # the frontend's timer, as the app set it
                self.timer(fmsg.auto_rerun.fragment_id, fmsg.auto_rerun.interval)
            elif kind == "page_info_changed":
                self.query = fmsg.page_info_changed.query_string  # the seat the app gave, the slider's value
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

    def saw_block(self, block) -> None:
        """Every container drawn (the presenter reads its hall box's id)."""

    def timer(self, fragment: str, interval: float) -> None:
        """A fragment that reruns itself every `interval` s, as the server set it (every one, in order)."""

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
        for path in (
            f"/{self.page}" + (f"?{self.query}" if self.query else ""),
            "/_stcore/health",
            "/_stcore/host-config",
        ):
            await self._http(path)
        xsrf = self.cookies.get("_streamlit_xsrf")
        url = self.base.replace("http://", "ws://") + "/_stcore/stream"
        return await websockets.connect(
            url,
            subprotocols=["streamlit"] + ([xsrf] if xsrf else []),
            origin=self.base,
            additional_headers=self._cookie_header(),
            max_size=None,
            open_timeout=self.timeout,
            ping_interval=None,
        )

    async def _do(self, ws, action: str) -> None:
        if action == "move":
            self._move()
            seconds, _ = await self._run(ws)
            self.moves.append(seconds)
        elif action == "refresh":
            seconds, _ = await self._run(ws, self.fragment, auto=True)
            self.refreshes.append(seconds)
        else:  # answer a question
            choice, _ = self._answer_state(action)
            seconds, _ = await self._run(ws, self.box or self.fragment)
            self.answers.append(seconds)
            self.chosen[action] = choice

    async def lecture(self, plan: list[str], pause: float, until: asyncio.Event | None = None) -> Result:
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
                        if self.poll and (
                            self.fragment is None
                            or any(a not in ("move", "refresh") and a not in self.radios for a in todo)
                        ):
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
        except TimeoutError:
            self.result.errors.append(f"timeout ({self.timeout} s)")
            return self.result
        finally:
            if ws is not None:
                await ws.close()
            self.result.replica = self.cookies.get(replicas.COOKIE)
