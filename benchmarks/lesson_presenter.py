"""The presenter of the lesson hall (benchmarks.lesson, issue 51): a tab at ?present=1 with the room's key.

As a browser does, it reruns every fragment the server set a timer for, at that interval (the room check,
the panel's counts, the hall view while its box is open), reads the runs the server starts on its own,
presses Next, and opens or closes the hall box ("The hall: who is where, who answered"). Every hall the
server draws is noted as the presenter sees it: when its run finished, how many are in the room (the
sentence above the table), and each handle's lesson step and mode (the table's rows).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from dataclasses import dataclass

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.lesson_follower import Follower

HALL_BOX = "The hall: who is where"  # the box's label starts so (ui/poll/hallview.py)
ROW = re.compile(r"^\| student (\d+) \| (.*?) \| (follows|explores) \|")
IN_ROOM = re.compile(r"\*\*(\d+) in the room now")
AT_STEP = re.compile(r", step (\d+)$")
SETTLE_S = 0.03  # after a run finished: the server's last bookkeeping of it


@dataclass(frozen=True)
class Seen:
    """One hall as the presenter's screen showed it."""

    at: float  # perf_counter when the run that drew it finished
    count: int  # "N in the room now"
    seats: dict[int, tuple[int | None, bool]]  # handle -> (lesson step or None, follows)


def hall_count(body: str) -> int | None:
    """The number in the hall's sentence (None: not the hall's text)."""
    plain = body.replace("\\", "")
    if plain.startswith("**Nobody is in the room now"):
        return 0
    found = IN_ROOM.match(plain)
    return int(found.group(1)) if found else None


def hall_rows(body: str) -> dict[int, tuple[int | None, bool]]:
    """The hall's table under its sentence: handle -> (step, follows)."""
    rows = {}
    for line in body.replace("\\", "").splitlines():  # every cell is md_escape'd
        found = ROW.match(line)
        if found:
            step = AT_STEP.search(found.group(2))
            rows[int(found.group(1))] = (int(step.group(1)) if step else None, found.group(3) == "follows")
    return rows


class Presenter(Follower):
    """The presenter's tab: its timers run, its hall read."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.timers: dict[str, float] = {}  # fragment id -> interval, as the server set them
        self.due: dict[str, float] = {}  # fragment id -> when its timer fires next (perf_counter)
        self.fresh: set[str] = set()  # timers set by the run being read
        self.hall_box: str | None = None  # the box's widget id
        self.halls: list[Seen] = []
        self.texts: dict[str, str] = {}  # a hall message's hash -> its text (sent again by reference)
        self.runs: Counter = Counter()  # timer runs per fragment id
        self.meter = None  # a CPU clock: while set, each timer run's server CPU is noted in `metered`
        self.metered: list[tuple[str, bool, bool, float]] = []  # (fragment id, box open, drew the hall, CPU s)
        self.box_open = False  # the hall box, as the last show_hall left it
        self._count: int | None = None
        self._rows: dict | None = None
        self._hall_run = False

    def timer(self, fragment: str, interval: float) -> None:
        self.timers[fragment] = interval
        self.fresh.add(fragment)
        self.due.setdefault(fragment, time.perf_counter() + interval)

    def saw_block(self, block) -> None:
        if block.WhichOneof("type") == "expandable" and block.expandable.label.startswith(HALL_BOX):
            self.hall_box = block.expandable.id
            self.drawn.add(block.expandable.id)  # its open state is sent with every run, as the frontend does

    def saw(self, fmsg, element, what: str) -> None:
        super().saw(fmsg, element, what)
        if what == "markdown":
            self._hall_text(element.markdown.body, fmsg.hash)

    def saw_cached(self, ref: str) -> None:
        super().saw_cached(ref)
        if ref in self.texts:
            self._hall_text(self.texts[ref], None)

    def _hall_text(self, body: str, ref: str | None) -> None:
        count = hall_count(body)
        if count is None:
            return
        self._count, self._rows = count, hall_rows(body)
        if ref:
            self.texts[ref] = body

    async def _read(self, ws, start, raw=None):
        self._count, self._rows, self.fresh = None, None, set()
        out = await super()._read(ws, start, raw)
        if self._count is not None:
            self._hall_run = True
            self.halls.append(Seen(time.perf_counter(), self._count, self._rows or {}))
        if getattr(self, "finished_how", None) == ForwardMsg.FINISHED_SUCCESSFULLY:
            for gone in set(self.timers) - self.fresh:  # a whole run: the fragments it did not draw are gone
                del self.timers[gone]
                self.due.pop(gone, None)
        return out

    async def tick(self, ws, until: float) -> None:
        """Until perf_counter() reaches `until`: each timer's fragment rerun when due, pushed runs read."""
        while (now := time.perf_counter()) < until:
            fragment = min(self.due, key=self.due.get, default=None)
            at = self.due[fragment] if fragment else until
            if at > now:
                await self.pause_for(ws, min(at, until) - now)
                continue
            self._hall_run = False
            before = self.meter() if self.meter else 0.0
            await self._run(ws, fragment, auto=True)
            if self.meter:
                await asyncio.sleep(SETTLE_S)
                self.metered.append((fragment, self.box_open, self._hall_run, self.meter() - before))
            self.runs[fragment] += 1
            if fragment in self.timers:
                self.due[fragment] = max(at + self.timers[fragment], time.perf_counter())

    async def show_hall(self, ws, on: bool) -> None:
        """Open (or close) the hall box, as a click on it does: a whole run."""
        state = WidgetState(id=self.hall_box)
        state.bool_value = on
        self.widgets[self.hall_box] = state
        self.box_open = on
        await self._run(ws)

    async def open_and_shut(self, ws, clock, seconds: float, rounds: int = 2, before=None) -> tuple[float, float]:
        """The hall view open for `seconds`, then shut for as long, `rounds` times, every timer run's server CPU
        noted (clock: the presenter's server's CPU s; before: called before each window); the server CPU per s
        of the open windows and of the shut ones."""
        spent = {True: [0.0, 0.0], False: [0.0, 0.0]}  # open or not -> [CPU s, s]
        for on in (True, False) * rounds:
            if before:
                before()
            await self.show_hall(ws, on)
            await self.tick(ws, time.perf_counter() + 2.0)  # the click's run and its echoes done
            self.meter, began, cpu = clock, time.perf_counter(), clock()
            await self.tick(ws, began + seconds)
            spent[on][0] += clock() - cpu
            spent[on][1] += time.perf_counter() - began
            self.meter = None
        return spent[True][0] / spent[True][1], spent[False][0] / spent[False][1]
