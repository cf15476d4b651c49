"""The class experiment as the presenter sees it (issue 52): the finished runs read from the rooms' store, turned
into engine.class_runs' Runs, and everything the overlay and the exports show, from one read (Overlay): each run's
curve thinned to class_runs.POINTS points, the median curve, the formation steps' histogram, the final accuracies,
the heads locked on, the groups of the varied setting and their comparisons. The read is keyed by how many runs are
done, so a refresh with no new run costs one count (the presenter's ui/poll/experiment.py caches on it).
Exports: a summary CSV (a row per run), the curves as CSV (a row per run and step) and as one npz."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import dataclass

import numpy as np
import sqlalchemy as sa

from engine import class_runs as cr
from services.poll.experiment import Plan
from services.poll.schema import runs
from services.poll.store import Store


@dataclass(frozen=True)
class Finished:
    """A run that is done, as the store keeps it."""

    k: int
    value: str  # the varied setting's value ('' when none varies)
    final_loss: float
    accuracy: float
    formed: int | None
    roles: tuple[dict, ...]
    curves: dict  # loss, batch_accuracy, steps, shares


_DONE = (
    sa.select(runs.c.k, runs.c.value, runs.c.final_loss, runs.c.accuracy, runs.c.formed, runs.c.roles, runs.c.curves)
    .where((runs.c.code == sa.bindparam("code")) & (runs.c.eid == sa.bindparam("eid")) & (runs.c.state == "done"))
    .order_by(runs.c.k)
)


def finished(store: Store, code: str, key: str, eid: int) -> list[Finished]:
    """The experiment's finished runs, by k (the presenter's: NotPresenter without the room's key)."""
    with store._tx(write=False) as conn:
        store._room(conn, code, key)
        rows = conn.execute(_DONE, {"code": code, "eid": eid}).all()
    return [
        Finished(int(k), value, float(loss), float(acc), formed, tuple(json.loads(roles)), json.loads(curves))
        for k, value, loss, acc, formed, roles, curves in rows
    ]


def as_run(f: Finished) -> cr.Run:
    c = f.curves
    return cr.Run(f.k, f.value, np.array(c["loss"]), np.array(c["steps"]), np.array(c["shares"]), f.accuracy)


@dataclass(frozen=True)
class Overlay:
    runs: tuple[cr.Run, ...]
    curves: tuple[tuple[int, str, np.ndarray, np.ndarray], ...]  # (k, group, steps, loss), thinned
    medians: tuple[tuple[str, np.ndarray, np.ndarray], ...]  # (group, steps, median loss) per group, thinned
    groups: tuple[cr.Group, ...]
    comparisons: tuple[cr.Comparison, ...]
    histogram: tuple[np.ndarray, np.ndarray]  # (counts (G, bins), edges) of the formation steps, by group
    roles: tuple[tuple[str, int], ...]  # (a head's role at the end, in how many runs), most first


def overlay(done: list[Finished]) -> Overlay | None:
    """Everything the presenter's overlay shows, from the finished runs (None before the first)."""
    if not done:
        return None
    found = tuple(as_run(f) for f in done)
    found_groups = cr.groups(found)
    roles = Counter(f"layer {r['layer']} head {r['head']}: {r['role']}" for f in done for r in f.roles)
    return Overlay(
        found,
        tuple((r.k, r.group, *cr.thinned(r.loss)) for r in found),
        tuple((g.group, *cr.thinned(cr.median_curve([r for r in found if r.group == g.group]))) for g in found_groups),
        tuple(found_groups),
        tuple(cr.compare(found_groups)),
        cr.histograms(found, found_groups),
        tuple(roles.most_common()),
    )


SUMMARY = ("run", "seed", "varied", "value", "formed at step", "final loss", "final accuracy", "heads locked on")


def summary_csv(done: list[Finished], plan: Plan) -> str:
    """A row per finished run: its number and seed (the same), the varied setting and its value, the step its head
    formed (empty: never), the final loss and accuracy, the heads locked on at the end."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(SUMMARY)
    for f in done:
        heads = "; ".join(f"layer {r['layer']} head {r['head']} {r['role']} ({r['share']:.2f})" for r in f.roles)
        w.writerow(
            [f.k, f.k, plan.varies or "", f.value, "" if f.formed is None else f.formed]
            + [
                repr(f.final_loss),
                repr(f.accuracy),
                heads,
            ]
        )
    return out.getvalue()


def curves_csv(done: list[Finished]) -> str:
    """A row per finished run and training step: run, value, step, loss, the batch's accuracy."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(("run", "value", "step", "loss", "batch accuracy"))
    for f in done:
        for step, (loss, acc) in enumerate(zip(f.curves["loss"], f.curves["batch_accuracy"], strict=True), start=1):
            w.writerow((f.k, f.value, step, repr(loss), repr(acc)))
    return out.getvalue()


def npz(done: list[Finished]) -> bytes:
    """Every finished run in one npz: runs (R,), values (R,), formed (R,; -1: never), final loss and accuracy (R,),
    loss and batch accuracy (R, S; NaN past a shorter run's end), saved steps (R, K) and shares (R, K, L, H)
    (NaN-padded alike)."""
    n = len(done)
    longest = max((len(f.curves["loss"]) for f in done), default=0)
    saved = max((len(f.curves["steps"]) for f in done), default=0)
    shape = tuple(np.max([np.shape(f.curves["shares"])[1:] for f in done], axis=0)) if done else (0, 0)  # (L, H)
    loss, acc = np.full((n, longest), np.nan), np.full((n, longest), np.nan)  # (R, S)
    steps, shares = np.full((n, saved), np.nan), np.full((n, saved, *shape), np.nan)  # (R, K), (R, K, L, H)
    for i, f in enumerate(done):
        c = f.curves
        loss[i, : len(c["loss"])], acc[i, : len(c["loss"])] = c["loss"], c["batch_accuracy"]
        s = np.asarray(c["shares"])
        steps[i, : len(c["steps"])] = c["steps"]
        shares[i, : s.shape[0], : s.shape[1], : s.shape[2]] = s
    buffer = io.BytesIO()
    np.savez(
        buffer,
        runs=np.array([f.k for f in done]),
        values=np.array([f.value for f in done]),
        formed=np.array([-1 if f.formed is None else f.formed for f in done]),
        final_loss=np.array([f.final_loss for f in done]),
        final_accuracy=np.array([f.accuracy for f in done]),
        loss=loss,
        batch_accuracy=acc,
        saved_steps=steps,
        shares=shares,
    )
    return buffer.getvalue()


@dataclass(frozen=True)
class Mine:
    """A student's own run as their Learn page shows it."""

    k: int
    state: str
    formed: int | None
    accuracy: float | None
    ahead: int  # queued runs before it (0 unless queued)
    curves: dict | None = None  # once done: its loss, batch_accuracy, steps and shares, as recorded


def mine(store: Store, code: str, eid: int, seat: str) -> Mine | None:
    """The seat's run in experiment eid (None: it has none)."""
    r = runs.c
    with store._tx(write=False) as conn:
        row = conn.execute(
            sa.select(r.k, r.state, r.formed, r.accuracy, r.queued_at, r.curves).where(
                (r.code == code) & (r.eid == eid) & (r.seat == seat)
            )
        ).first()
        if row is None:
            return None
        ahead = 0
        if row.state == "queued":
            ahead = conn.execute(
                sa.select(sa.func.count()).where((r.state == "queued") & (r.queued_at < row.queued_at))
            ).scalar_one()
    curves = json.loads(row.curves) if row.state == "done" and row.curves else None
    return Mine(int(row.k), row.state, row.formed, row.accuracy, int(ahead), curves)


def hall_formed(store: Store, code: str, eid: int) -> tuple[int, list[int]]:
    """How many of the experiment's runs are done, and the steps at which those that formed their head formed it."""
    r = runs.c
    with store._tx(write=False) as conn:
        rows = (
            conn.execute(sa.select(r.formed).where((r.code == code) & (r.eid == eid) & (r.state == "done")))
            .scalars()
            .all()
        )
    return len(rows), sorted(int(f) for f in rows if f is not None)
