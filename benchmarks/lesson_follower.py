"""A student of the lesson hall (benchmarks.lesson): a poll student who follows the presenter's lesson, its
room check ticking and a slider moving now and then, noting when each step reached it, and answering each
question the room opens once, a while after it appears (again after a reconnect if its run was cut); and the
presenter's Next.
"""

from __future__ import annotations

import asyncio
import re
import time

import websockets
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.poll_student import PollStudent
from benchmarks.wsclient import key_of
from deploy import replicas

STEP = re.compile(r"Step (\d+) of (\d+)")
ANSWER = "poll_answer_"  # a student's radio for one question: ui.poll.participant.answer_key + "_" + asked ms


class Follower(PollStudent):
    """A student who follows: its room check ticks, a slider moves now and then, every step it reached."""

    def __init__(self, *a, sliders: float = 0.0, answer_within: float = 0.0, **kw):
        super().__init__(*a, **kw)
        self.answer_within = answer_within  # answer each question within this many s of seeing it (0: never)
        self.open_q: dict[str, tuple] = {}  # qid -> (its radio, the fragment it is drawn in)
        self.pending: dict[str, float] = {}  # qid -> when to answer it (monotonic)
        self.confirmed: dict[str, int] = {}  # qid -> the option index sent, its run finished
        self.cut = 0  # answers whose run a dead replica cut (sent again)
        self.seats: set[str] = set()  # every URL query this tab had (its seat in it)
        self.sliders, self.showing, self.arrived, self.came, self.checks = sliders, None, {}, {}, 0
        self.by_hash: dict[str, int] = {}
        self.next_id: str | None = None
        self.drawn: set[str] = set()
        self.ids_by_hash: dict[str, str] = {}  # a cached message's hash -> the widget id it draws
        self.history: list[tuple] = []  # (run began, ended, pushed, step shown after): a miss explained

    def saw(self, fmsg, element, what: str) -> None:
        drawn = getattr(getattr(element, what, None), "id", "")
        if drawn:
            self.drawn.add(drawn)
            if fmsg.hash:
                self.ids_by_hash[fmsg.hash] = drawn
        if what == "markdown":
            found = STEP.search(element.markdown.body)
            if found:
                self.showing = int(found.group(1))
                if fmsg.hash:
                    self.by_hash[fmsg.hash] = self.showing
        elif what == "button" and element.button.label.startswith("Next"):
            self.next_id = element.button.id
        elif what == "radio" and self.answer_within and (key_of(element.radio.id) or "").startswith(ANSWER):
            qid = key_of(element.radio.id)[len(ANSWER) :].rsplit("_", 1)[0]
            self.open_q[qid] = (element.radio, fmsg.delta.fragment_id)
            if qid not in self.confirmed and qid not in self.pending:
                self.pending[qid] = time.monotonic() + self.rng.uniform(0.5, self.answer_within)

    def _next_answer(self) -> float:
        return min(self.pending.values(), default=float("inf"))

    async def pause_for(self, ws, seconds: float) -> None:
        """PollStudent.pause_for, cut short when a question to answer appeared meanwhile."""
        end = time.monotonic() + seconds
        await asyncio.sleep(0)
        while time.monotonic() < min(end, self._next_answer()):
            await self._pushed(ws, min(end, self._next_answer()) - time.monotonic())

    async def _answer(self, ws, qid: str) -> None:
        """Pick an option of the question's radio and send it (its fragment reruns); confirmed once run."""
        radio, fragment = self.open_q[qid]
        index = self.rng.randrange(len(radio.options))
        state = WidgetState(id=radio.id)
        state.string_value = radio.options[index]
        self.widgets[radio.id] = state
        self.cut += 1  # until its run finished
        self.answers.append((await self._run(ws, fragment or None))[0])
        self.cut -= 1
        self.confirmed[qid] = index
        self.pending.pop(qid, None)

    def saw_cached(self, ref: str) -> None:
        self.showing = self.by_hash.get(ref, self.showing)
        if ref in self.ids_by_hash:  # a widget sent again by reference is on the page: it keeps its state
            self.drawn.add(self.ids_by_hash[ref])

    async def _read(self, ws, start, raw=None):
        sent, self.drawn = start, set()
        out = await super()._read(ws, start, raw)
        self.seats.add(self.query)
        self.history.append((round(start, 3), round(time.perf_counter(), 3), raw is not None, self.showing))
        if getattr(self, "finished_how", None) == ForwardMsg.FINISHED_SUCCESSFULLY:
            # Like the frontend: after a whole run, only the widgets on the page send their state.
            # The room's question radios stay on the page (every question asked is listed), whatever came.
            kept = self.drawn | {radio.id for radio, _ in self.open_q.values()}
            self.widgets = {k: v for k, v in self.widgets.items() if k in kept}
        if self.showing is not None and self.showing not in self.arrived:
            self.arrived[self.showing] = time.perf_counter()
            self.came[self.showing] = sent  # the check (or run) that brought the step
        return out

    async def follow(self, until: asyncio.Event) -> None:
        """Join, then the room check every second (and a slider move every ~sliders s) until the end;
        reconnect with the same URL when the replica dies."""
        ws = None
        try:
            while not until.is_set():
                try:
                    if ws is None:
                        ws = await self._connect()
                        seconds, received = await self._run(ws)
                        if self.result.first is None:
                            self.result.first, self.result.first_bytes = seconds, received
                        tick = time.monotonic() + self.refresh
                        move = time.monotonic() + (self.sliders * self.rng.uniform(0.5, 1.5) if self.sliders else 1e9)
                    await self.pause_for(ws, min(tick, move) - time.monotonic())
                    if until.is_set():
                        break
                    if time.monotonic() >= self._next_answer():
                        await self._answer(ws, min(self.pending, key=self.pending.get))
                    elif time.monotonic() >= move and self.slider_proto is not None:
                        self._move()
                        self.moves.append((await self._run(ws))[0])
                        move = time.monotonic() + self.sliders * self.rng.uniform(0.75, 1.25)
                    elif time.monotonic() >= tick:
                        if self.fragment:  # no room (--no-lesson): no check
                            self.refreshes.append((await self._run(ws, self.fragment, auto=True))[0])
                            self.checks += 1
                        tick = max(tick + self.refresh, time.monotonic())
                except (OSError, websockets.exceptions.WebSocketException) as exc:
                    self.reconnects += 1
                    if self.reconnects > 3:
                        self.result.errors.append(f"{type(exc).__name__}: {exc}"[:160])
                        return
                    ws, self.fragment = None, None
                    await asyncio.sleep(1.0)
        except TimeoutError:
            self.result.errors.append(f"timeout ({self.timeout} s)")
        finally:
            if ws is not None:
                await ws.close()
            self.result.replica = self.cookies.get(replicas.COOKIE)


async def press_next(presenter: Follower, ws) -> float:
    """The presenter's Next: the button's trigger with the page's widget states; returns the send time."""
    presenter.widgets[presenter.next_id] = WidgetState(id=presenter.next_id, trigger_value=True)
    clicked = time.perf_counter()
    await presenter._run(ws)
    presenter.widgets.pop(presenter.next_id, None)
    return clicked
