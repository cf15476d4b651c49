"""A student of the lesson hall (benchmarks.lesson): a poll student who follows the presenter's lesson, its
room check ticking and a slider moving now and then, noting when each step reached it; and the presenter's
Next.
"""

from __future__ import annotations

import asyncio
import re
import time

import websockets
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.poll_student import PollStudent
from deploy import replicas

STEP = re.compile(r"Step (\d+) of (\d+)")


class Follower(PollStudent):
    """A student who follows: its room check ticks, a slider moves now and then, every step it reached."""

    def __init__(self, *a, sliders: float = 0.0, **kw):
        super().__init__(*a, **kw)
        self.sliders, self.showing, self.arrived, self.came, self.checks = sliders, None, {}, {}, 0
        self.by_hash: dict[str, int] = {}
        self.next_id: str | None = None
        self.drawn: set[str] = set()
        self.history: list[tuple] = []  # (run began, ended, pushed, step shown after): a miss explained

    def saw(self, fmsg, element, what: str) -> None:
        drawn = getattr(getattr(element, what, None), "id", "")
        if drawn:
            self.drawn.add(drawn)
        if what == "markdown":
            found = STEP.search(element.markdown.body)
            if found:
                self.showing = int(found.group(1))
                if fmsg.hash:
                    self.by_hash[fmsg.hash] = self.showing
        elif what == "button" and element.button.label.startswith("Next"):
            self.next_id = element.button.id

    def saw_cached(self, ref: str) -> None:
        self.showing = self.by_hash.get(ref, self.showing)

    async def _read(self, ws, start, raw=None):
        sent, self.drawn = start, set()
        out = await super()._read(ws, start, raw)
        self.history.append((round(start, 3), round(time.perf_counter(), 3), raw is not None, self.showing))
        if getattr(self, "finished_how", None) == ForwardMsg.FINISHED_SUCCESSFULLY:
            # Like the frontend: after a whole run, only the widgets on the page send their state.
            self.widgets = {k: v for k, v in self.widgets.items() if k in self.drawn}
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
                    if time.monotonic() >= move and self.slider_proto is not None:
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
