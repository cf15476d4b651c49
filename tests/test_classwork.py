"""Issue 52, a worker's run of a class experiment (services/classwork.py): run k trains with k as its weight seed
and its batch seed, with the plan's settings (the varied one in turn), and its numbers land in the room's store
once: they are the engine's own for the same run; a second delivery of the job trains nothing."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import engine
from engine.evidence import position_metrics
from engine.histories import history_arrays, lock
from services import classwork
from services.poll import experiment as cx
from services.poll.store import Store


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "poll.sqlite3")
    yield s
    s.close()


def test_run_k_is_seeded_by_k_in_its_weights_and_its_batches():
    settings = cx.plan("previous", 30, 0.06, 1, 16).settings(1)
    assert classwork.config_of(settings, 7) == dataclasses.replace(engine.TASKS["previous"].config, seed=7)
    same, again, other = (classwork.trained(settings, k) for k in (7, 7, 8))
    np.testing.assert_allclose(same.losses, again.losses, rtol=0, atol=1e-12)
    assert not np.allclose(same.losses, other.losses)
    only_batches = engine.train("previous", classwork.config_of(settings, 8), 30, seed=7, lr=0.06)
    assert not np.allclose(same.losses, only_batches.losses)  # the weight seed alone changes the run too


def test_a_run_is_trained_once_and_its_numbers_are_the_engines(store):
    room = store.create_room()
    cx.start(store, room.code, room.key, cx.plan("previous", 80, 0.06, 1, 16, "width", [16, 8]))
    ticket = cx.claim(store, room.code, "seat-00001")
    cx.claim(store, room.code, "seat-00002")
    assert classwork.work(store, room.code, ticket.eid, 2) == "done"  # the second seat's run: width 8
    assert classwork.work(store, room.code, ticket.eid, 2) == "skipped"  # delivered again: nothing trained
    with store.engine.connect() as conn:
        row = conn.execute(cx.runs.select().where(cx.runs.c.k == 2)).mappings().one()
    run = engine.train("previous", classwork.config_of({**ticket.settings, "width": 8}, 2), 80, seed=2, lr=0.06)
    assert run.config.d_model == 8
    arrays = history_arrays(run)
    found = lock(arrays["history steps"], arrays["history task share"])
    assert row["state"] == "done" and row["tries"] == 1 and row["value"] == "8"
    assert row["formed"] == (None if found is None else found[2])
    assert row["final_loss"] == pytest.approx(run.losses[-1], abs=1e-12)
    assert row["accuracy"] == pytest.approx(position_metrics("previous", run.config, run.params).overall_accuracy)
    curves = json.loads(row["curves"])
    assert len(curves["loss"]) == 80 and curves["steps"] == arrays["history steps"].tolist()
    np.testing.assert_allclose(curves["shares"], arrays["history task share"], atol=1e-6)
    roles = json.loads(row["roles"])
    final = arrays["history task share"][-1]
    assert [(r["layer"], r["head"]) for r in roles] == [(1, 1)] * int(final[0, 0] >= 0.9)


def test_a_cancelled_run_or_a_closed_room_trains_nothing(store):
    room = store.create_room()
    cx.start(store, room.code, room.key, cx.plan("previous", 30, 0.06, 1, 16))
    ticket = cx.claim(store, room.code, "seat-00001")
    cx.cancel(store, room.code, room.key)
    assert classwork.work(store, room.code, ticket.eid, ticket.k) == "skipped"
    store.close_room(room.code, room.key)
    assert classwork.work(store, room.code, ticket.eid, ticket.k) == "skipped"


def _runs(store, code):
    with store.engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                cx.sa.text("SELECT k, state, tries FROM poll_runs WHERE code = :c ORDER BY k"), {"c": code}
            )
        ]


def test_a_job_that_crashes_is_a_failed_run_that_says_why_and_the_others_go_on(store, monkeypatch):
    room = store.create_room()
    cx.start(store, room.code, room.key, cx.plan("previous", 30, 0.06, 1, 16))
    first, second = (cx.claim(store, room.code, f"seat-0000{i}") for i in (1, 2))
    real = classwork.trained

    def crash(settings, k, on_progress=None):
        if k == first.k:
            raise MemoryError("out of memory in the worker")
        return real(settings, k, on_progress)

    monkeypatch.setattr(classwork, "trained", crash)
    assert classwork.work(store, room.code, first.eid, first.k) == "failed"
    assert classwork.work(store, room.code, second.eid, second.k) == "done"
    assert _runs(store, room.code) == [(1, "failed", 1), (2, "done", 1)], "never left running"
    with store.engine.connect() as conn:
        error = conn.execute(cx.sa.text("SELECT error FROM poll_runs WHERE k = 1")).scalar()
    assert error == "MemoryError: out of memory in the worker"
    assert classwork.work(store, room.code, first.eid, first.k) == "skipped", "a failed run is not tried again"


def test_a_result_for_another_room_or_a_forged_run_number_changes_nothing(store):
    ours, theirs = store.create_room(), store.create_room()
    for room in (ours, theirs):
        cx.start(store, room.code, room.key, cx.plan("previous", 30, 0.06, 1, 16))
    ticket = cx.claim(store, ours.code, "seat-00001")
    assert classwork.work(store, ours.code, ticket.eid, ticket.k) == "done"
    before = {room.code: _runs(store, room.code) for room in (ours, theirs)}
    result = classwork.result_of(classwork.trained(cx.current(store, ours.code).plan.settings(1), 1))
    assert cx.record(store, theirs.code, ticket.eid, ticket.k, result) is False, "no such run in the other room"
    assert classwork.work(store, theirs.code, ticket.eid, ticket.k) == "skipped"  # a job naming the other room
    for forged in (2, 99, -1):  # run numbers the room never gave (a job submitted by hand)
        assert classwork.work(store, ours.code, ticket.eid, forged) == "skipped"
        assert cx.record(store, ours.code, ticket.eid, forged, result) is False
    assert {room.code: _runs(store, room.code) for room in (ours, theirs)} == before
    assert cx.tally(store, ours.code, 1)["done"] == 1 and sum(cx.tally(store, theirs.code, 1).values()) == 0
