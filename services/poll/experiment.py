"""A room's class experiment (issue 52), in the store: the presenter sets a task and its settings (one of them may
vary across the hall), each student's seat is given run k (k from 1, in the order seats ask; a late seat gets the
next), run k trains with k as its weight seed and its batch seed, and its numbers land in the room's database,
where every replica and the presenter read them. Deleted with the room (services/poll/store.py).

A run's life: 'queued' when its seat asks, 'running' when a worker takes it (each take counts a try), 'done' with
its numbers, 'failed' with the reason once it ran out of tries, 'cancelled' when the presenter cancels the
experiment first. A run that is done stays done: a worker that ran it a second time (at-least-once delivery) finds
it recorded and writes nothing. Functions of a Store, as live.py's. No NumPy, no engine: the web server imports it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import sqlalchemy as sa

from services.poll import seats
from services.poll.codes import PollError
from services.poll.schema import experiments, runs
from services.poll.store import Store

TASKS = {"induction": "induction", "previous": "previous token"}  # the Learn page's letter tasks (never the text)
# The settings a presenter sets, each with its bounds (the Learn page's), and the ones that may vary.
BOUNDS = {"steps": (20, 2000), "lr": (1e-4, 0.5), "layers": (1, 2), "width": (8, 64)}
WORDS = {"steps": "steps", "lr": "learning rate", "layers": "layers", "width": "width (d_model)"}
MAX_VALUES = 4  # a varied setting takes 2 to this many values
MAX_RUNS = 1000  # runs an experiment gives out
MAX_TRIES = 3  # a run whose worker died this many times is failed
STATES = ("queued", "running", "done", "failed", "cancelled")


@dataclass(frozen=True)
class Plan:
    """What the presenter set: the task, the settings every run shares, and the one that varies (None: none) with
    its values; run k takes values[(k - 1) % len(values)], so the groups fill evenly as students arrive."""

    task: str
    steps: int
    lr: float
    layers: int
    width: int
    varies: str | None = None
    values: tuple = ()

    def value(self, k: int):
        """Run k's value of the varied setting (None when nothing varies)."""
        return None if self.varies is None else self.values[(k - 1) % len(self.values)]

    def settings(self, k: int) -> dict:
        """Run k's settings: the shared ones, with its value of the varied one."""
        out = {"task": self.task, "steps": self.steps, "lr": self.lr, "layers": self.layers, "width": self.width}
        if self.varies is not None:
            out[self.varies] = self.value(k)
        return out

    def as_json(self) -> str:
        return json.dumps({**self.settings(1), "varies": self.varies, "values": list(self.values)}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Plan:
        d = json.loads(text)
        return cls(d["task"], d["steps"], d["lr"], d["layers"], d["width"], d["varies"], tuple(d["values"]))


def _number(name: str, value, whole: bool):
    low, high = BOUNDS[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PollError(f"The {WORDS[name]} is a number from {low:g} to {high:g}.")
    if whole and value != int(value):
        raise PollError(f"The {WORDS[name]} is a whole number from {low:g} to {high:g}.")
    if not low <= value <= high:
        raise PollError(f"The {WORDS[name]} is a number from {low:g} to {high:g}; {value:g} is outside.")
    return int(value) if whole else float(value)


def plan(task, steps, lr, layers, width, varies=None, values=()) -> Plan:
    """A checked Plan; PollError, in words, for anything the Learn page would not train."""
    if task not in TASKS:
        raise PollError(f"A class experiment trains one of: {', '.join(TASKS.values())}.")
    shared = {
        "steps": _number("steps", steps, True),
        "lr": _number("lr", lr, False),
        "layers": _number("layers", layers, True),
        "width": _number("width", width, True),
    }
    if shared["width"] % 2:
        raise PollError("The width is even: the model's two heads share it.")
    if varies is None:
        return Plan(task, **shared)
    if varies not in BOUNDS:
        raise PollError(f"The setting that varies is one of: {', '.join(WORDS.values())}.")
    if not isinstance(values, (list, tuple)) or not 2 <= len(values) <= MAX_VALUES:
        raise PollError(f"A setting that varies takes 2 to {MAX_VALUES} values.")
    checked = tuple(_number(varies, v, varies != "lr") for v in values)
    if varies == "width" and any(v % 2 for v in checked):
        raise PollError("The width is even: the model's two heads share it.")
    if len(set(checked)) != len(checked):
        raise PollError("The values of the setting that varies are different from each other.")
    return Plan(task, **shared, varies=varies, values=checked)


@dataclass(frozen=True)
class Experiment:
    eid: int
    plan: Plan
    started_at: float
    cancelled: bool


@dataclass(frozen=True)
class Ticket:
    """A seat's run: its number k (the weight seed and the batch seed), its settings, where it is now."""

    eid: int
    k: int
    settings: dict
    state: str

    @property
    def job(self) -> str:
        """The run's name on the task queue: the same run is one job however often its seat asks."""
        return f"run-{self.eid}-{self.k}"


_CURRENT = (
    sa.select(experiments.c.eid, experiments.c.plan, experiments.c.started_at, experiments.c.cancelled)
    .where(experiments.c.code == sa.bindparam("code"))
    .order_by(experiments.c.eid.desc())
    .limit(1)
)


def _current(conn, code: str) -> Experiment | None:
    row = conn.execute(_CURRENT, {"code": code}).first()
    return (
        None if row is None else Experiment(int(row.eid), Plan.from_json(row.plan), row.started_at, bool(row.cancelled))
    )


def start(store: Store, code: str, key: str, chosen: Plan) -> int:
    """A new experiment in the room (the presenter's; the one before, if any, ends: its queued runs are
    cancelled); its number. The room's counter moves, so students' pages learn of it."""
    if not isinstance(chosen, Plan):
        raise PollError("An experiment needs its settings.")
    with store._tx() as conn:
        store._room(conn, code, key)
        _stop_queued(conn, code)
        eid = conn.execute(
            sa.select(sa.func.coalesce(sa.func.max(experiments.c.eid), 0) + 1).where(experiments.c.code == code)
        ).scalar_one()
        conn.execute(experiments.insert().values(code=code, eid=eid, plan=chosen.as_json(), started_at=store.clock()))
        store._bump(conn, code)
    return int(eid)


def _stop_queued(conn, code: str) -> None:
    conn.execute(experiments.update().where(experiments.c.code == code).values(cancelled=1))
    conn.execute(runs.update().where((runs.c.code == code) & (runs.c.state == "queued")).values(state="cancelled"))


def cancel(store: Store, code: str, key: str) -> None:
    """The presenter cancels the experiment: no run is given out any more, queued ones are cancelled (a worker
    that takes one finds it so and skips it); runs already running finish and are kept."""
    with store._tx() as conn:
        store._room(conn, code, key)
        _stop_queued(conn, code)
        store._bump(conn, code)


def current(store: Store, code: str) -> Experiment | None:
    """The room's latest experiment (cancelled or not), None before the first; NoRoom if the room is gone."""
    with store._tx(write=False) as conn:
        store._room(conn, code)
        return _current(conn, code)


def claim(store: Store, code: str, seat: str) -> Ticket:
    """The seat's run in the room's current experiment: the one it was given, else the next number. PollError
    when there is none, it was cancelled, or every run is given out."""
    seat = seats.checked(seat)
    with store._tx() as conn:
        store._room(conn, code)
        found = _current(conn, code)
        if found is None:
            raise PollError("The presenter has not started a class experiment in this room.")
        r = runs.c
        row = conn.execute(
            sa.select(r.k, r.state).where((r.code == code) & (r.eid == found.eid) & (r.seat == seat))
        ).first()
        if row is not None:
            return Ticket(found.eid, int(row.k), found.plan.settings(int(row.k)), row.state)
        if found.cancelled:
            raise PollError("The presenter cancelled the class experiment.")
        e = experiments.c
        k = conn.execute(  # the next number, taken in the same statement (one seat at a time gets it)
            experiments.update()
            .where((e.code == code) & (e.eid == found.eid) & (e.next_k <= MAX_RUNS))
            .values(next_k=e.next_k + 1)
            .returning(e.next_k - 1)
        ).scalar()
        if k is None:
            raise PollError(f"Every one of the experiment's {MAX_RUNS} runs is given out.")
        value = found.plan.value(int(k))
        conn.execute(
            runs.insert().values(
                code=code,
                eid=found.eid,
                k=k,
                seat=seat,
                value="" if value is None else f"{value:g}",
                queued_at=store.clock(),
            )
        )
        return Ticket(found.eid, int(k), found.plan.settings(int(k)), "queued")


def take(store: Store, code: str, eid: int, k: int) -> Plan | None:
    """A worker takes run k: the plan to train it with (it is now 'running', one more try); None when there is
    nothing to train (done, cancelled, failed, or its room gone). A run taken MAX_TRIES times fails."""
    r = runs.c
    this = (r.code == code) & (r.eid == eid) & (r.k == k)
    with store._tx() as conn:
        row = conn.execute(
            sa.select(r.state, r.tries, experiments.c.plan)
            .join(experiments, (experiments.c.code == r.code) & (experiments.c.eid == r.eid))
            .where(this)
        ).first()
        if row is None or row.state in ("done", "failed", "cancelled"):
            return None
        if row.tries >= MAX_TRIES:
            conn.execute(runs.update().where(this).values(state="failed", error="its worker stopped every try"))
            return None
        conn.execute(runs.update().where(this).values(state="running", tries=r.tries + 1, started_at=store.clock()))
    return Plan.from_json(row.plan)


def record(store: Store, code: str, eid: int, k: int, result: dict) -> bool:
    """Run k's numbers (services/classwork.py makes them); False when it was recorded already (a second delivery
    of the same job) or is gone with its room."""
    r = runs.c
    fields = {name: result[name] for name in ("final_loss", "accuracy", "formed")}
    with store._tx() as conn:
        done = conn.execute(
            runs.update()
            .where((r.code == code) & (r.eid == eid) & (r.k == k) & (r.state != "done"))
            .values(
                state="done",
                finished_at=store.clock(),
                roles=json.dumps(result["roles"]),
                curves=json.dumps(result["curves"]),
                error=None,
                **fields,
            )
            .returning(r.k)
        ).first()
    return done is not None


def fail(store: Store, code: str, eid: int, k: int, error: str) -> None:
    """Run k failed for a reason that another try would not change (it is not retried)."""
    r = runs.c
    with store._tx() as conn:
        conn.execute(
            runs.update()
            .where((r.code == code) & (r.eid == eid) & (r.k == k) & (r.state != "done"))
            .values(state="failed", finished_at=store.clock(), error=str(error)[:500])
        )


def tally(store: Store, code: str, eid: int) -> dict[str, int]:
    """How many of the experiment's runs are in each state (every state named, 0 where none)."""
    with store._tx(write=False) as conn:
        rows = conn.execute(
            sa.select(runs.c.state, sa.func.count())
            .where((runs.c.code == code) & (runs.c.eid == eid))
            .group_by(runs.c.state)
        ).all()
    found = dict(rows)
    return {state: int(found.get(state, 0)) for state in STATES}
