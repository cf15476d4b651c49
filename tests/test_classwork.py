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
