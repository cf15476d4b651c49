"""A class experiment's storm (issue 52): while a hall presses Train my run at once, do the other students'
pages stay quick?

One server (its class poll on a SQLite file of its own, its queue beside it, its own queue workers: the app
starts them on the first Train, niced, one per core). A room with an experiment of induction at its defaults is
made in the store (the presenter's part: not what is measured). First the *others* alone: N students on the
default page moving the sequence-length slider (benchmarks.storm's) --moves times, ~2 s apart, for their idle rerun
p95 (as many reruns as through the storm: a p95 of 100 reruns, the 5th largest, moved from 0.019 to 0.143 s between
runs of the same code). Then K *trainers*
open the Learn page in the room (before the storm: the hall is on the page when the presenter says go), then
press Train my run within --spread s (each run goes to the queue) while N others move the slider --moves times,
~2 s apart, through the whole storm; each trainer's page then asks where its run is on the timer the app sets
(as a browser does), until the run is done. Reported: the
others' rerun p50 / p95 idle and during, their ratio (target ≤ 2×), the trainers' click → page and when the last
run was done, the largest queue position a trainer was shown, and errors.

    python -m benchmarks.classstorm                    # 100 trainers, 20 others
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import tempfile
import time
from pathlib import Path

from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.load_report import pct
from benchmarks.poll_student import PollStudent
from benchmarks.storm import TARGET, hall
from benchmarks.ws_student import Result, Student
from harness import browser as bs

TRAIN = "Train my run"


class Trainer(PollStudent):
    """A student on the Learn page in the room: Train my run, then its page's timers until the run is done."""

    def __init__(self, *a, **kw):
        super().__init__(*a, poll=False, **kw)
        self.button: str | None = None
        self.train_box: str | None = None  # the fragment Train my run is in (None: the press reruns the page)
        self.timers: dict[str, float] = {}
        self.text = ""
        self.done_at: float | None = None
        self.ahead = 0
        self.clicked: float | None = None
        self.ws = None

    def saw(self, fmsg, element, what: str) -> None:
        if what == "button" and element.button.label == TRAIN:
            self.button = element.button.id
            self.train_box = fmsg.delta.fragment_id or None  # in a fragment, a press reruns it (as a browser sends)
        elif what == "markdown":
            self.text += element.markdown.body + "\n"
            found = re.search(r"(\d+) runs? before it in the queue", element.markdown.body)
            self.ahead = max(self.ahead, int(found.group(1))) if found else self.ahead

    def timer(self, fragment: str, interval: float) -> None:
        self.timers[fragment] = interval

    async def arrive(self) -> None:
        """Open the Learn page in the room (before the storm: the hall is on the page when the presenter says go)."""
        try:
            self.ws = await self._connect()
            self.result.first, _ = await self._run(self.ws)
            if self.button is None:
                self.result.errors.append("no Train my run button")
        except (TimeoutError, OSError) as exc:
            self.result.errors.append(f"{type(exc).__name__}: {exc}"[:160])
            self.ws = None

    async def train(self) -> Result:
        """Press Train my run, then the page's timers until the run is done."""
        ws = self.ws
        if ws is None or self.button is None:
            return self.result
        try:
            self.widgets[self.button] = WidgetState(id=self.button, trigger_value=True)
            self.clicked = time.perf_counter()
            seconds, _ = await self._run(ws, self.train_box)
            self.widgets.pop(self.button, None)
            self.result.reruns.append(seconds)
            while not re.search(r"Your run (formed|did not form)", self.text):
                if not self.timers:
                    self.result.errors.append("no timer after Train my run: " + self.text[-200:])
                    break
                fragment, every = min(self.timers.items(), key=lambda t: t[1])
                await self.pause_for(ws, every)
                self.text = ""
                await self._run(ws, fragment, auto=True)
            self.done_at = time.perf_counter()
        except TimeoutError:
            self.result.errors.append(f"timeout ({self.timeout} s)")
        except OSError as exc:
            self.result.errors.append(f"{type(exc).__name__}: {exc}"[:160])
        finally:
            await ws.close()
        return self.result


def _cpu(pid: int) -> float:
    """User + system CPU seconds of a process so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def storm(args) -> dict:
    from services.poll import experiment as cx
    from services.poll.store import Store

    folder = Path(tempfile.mkdtemp(prefix="attention-lab-classstorm-"))
    os.environ["ATTENTION_LAB_POLL_DB"] = str(folder / "poll.sqlite3")
    os.environ.pop("DATABASE_URL", None)
    store = Store(folder / "poll.sqlite3")
    room = store.create_room()
    store.close()
    server = bs.Server(log_name="classstorm-server.log").start()
    try:
        store = Store(folder / "poll.sqlite3")
        cx.start(store, room.code, room.key, cx.plan("induction", 480, 0.02, 2, 32))
        rng = random.Random(args.seed)
        calm = [  # as many moves as through the storm: two p95s of as many reruns
            Student(server.url, "", "", "Sequence length", args.moves, 2.0, random.Random(rng.random()), args.timeout)
            for _ in range(args.others)
        ]
        idle, _ = await hall(calm, args.spread, rng)
        trainers = [
            Trainer(server.url, "learn", f"room={room.code}", "", 0, 0, random.Random(k), args.timeout)
            for k in range(args.trainers)
        ]
        for group in range(0, len(trainers), 10):  # the hall on the Learn page first, ten at a time
            await asyncio.gather(*(t.arrive() for t in trainers[group : group + 10]))
        started = time.perf_counter()
        cpu = (_cpu(server.pid), sum(os.times()[:2]))  # the server's and this benchmark's (its clients')
        crowd = [  # moving all through the storm, not only its first seconds
            Student(server.url, "", "", "Sequence length", args.moves, 2.0, random.Random(rng.random()), args.timeout)
            for _ in range(args.others)
        ]

        async def arrive(trainer):
            await asyncio.sleep(rng.uniform(0, args.spread))
            return await trainer.train()

        busy, _ = await asyncio.gather(hall(crowd, args.spread, rng), asyncio.gather(*(arrive(t) for t in trainers)))
        wall = time.perf_counter() - started
        cpu = (_cpu(server.pid) - cpu[0], sum(os.times()[:2]) - cpu[1])
        tally = cx.tally(store, room.code, 1)
        store.close()
    finally:
        server.stop()
    during = [x for r in busy[0] for x in r.reruns]
    pressing = started + args.spread + 1.0  # the presses' whole runs (a press's run ends within ~1 s of it)
    presses = [x for r in busy[0] for x, end in zip(r.reruns, r.ended) if end <= pressing]
    after = [x for r in busy[0] for x, end in zip(r.reruns, r.ended) if end > pressing]
    idle_reruns = [x for r in idle for x in r.reruns]
    done = [t.done_at - started for t in trainers if t.done_at is not None]
    return {
        "idle": idle_reruns,
        "during": during,
        "presses": presses,
        "after": after,
        "clicks": [t.result.reruns[0] for t in trainers if t.result.reruns],
        "last_done_s": max(done, default=None),
        "trained": len(done),
        "largest_queue_position": max((t.ahead for t in trainers), default=0),
        "tally": tally,
        "cores": (cpu[0] / wall, cpu[1] / wall),  # cores the server and the clients used through the storm
        "errors": sorted({e for r in idle + busy[0] + [t.result for t in trainers] for e in r.errors}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trainers", type=int, default=100)
    parser.add_argument("--others", type=int, default=20)
    parser.add_argument("--spread", type=float, default=5.0, help="arrivals spread over this many s")
    parser.add_argument("--moves", type=int, default=30, help="slider moves of each other student during the storm")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    report = asyncio.run(storm(args))
    idle, during = report["idle"], report["during"]
    ratio = pct(during, 95) / max(pct(idle, 95), 1e-9)
    print(f"class storm: {args.trainers} students press Train my run, {args.others} others move a slider")
    print(f"  others idle    rerun p50 {pct(idle, 50):.3f} s  p95 {pct(idle, 95):.3f} s  ({len(idle)} reruns)")
    print(
        f"  others storm   rerun p50 {pct(during, 50):.3f} s  p95 {pct(during, 95):.3f} s  ({len(during)} reruns)"
        f"  = {ratio:.2f}× idle p95 (target ≤ {TARGET}×)"
    )
    for name, part in (("while pressed", report["presses"]), ("after", report["after"])):
        print(f"    {name:<13}rerun p50 {pct(part, 50):.3f} s  p95 {pct(part, 95):.3f} s  ({len(part)} reruns)")
    clicks = report["clicks"]
    print(f"  Train my run   click → page p50 {pct(clicks, 50):.3f} s  p95 {pct(clicks, 95):.3f} s")
    print(
        f"  runs           {report['trained']} of {args.trainers} done, the last {report['last_done_s']:.1f} s after "
        f"the storm began; largest queue position shown {report['largest_queue_position']}; store {report['tally']}"
    )
    server_cores, client_cores = report["cores"]
    print(
        f"  cores used     server {server_cores:.2f}, this benchmark's clients {client_cores:.2f} (through the storm)"
    )
    print(f"  errors         {report['errors'] or 'none'}")
    print("OK" if ratio <= TARGET and not report["errors"] else "FAIL")


if __name__ == "__main__":
    main()
