"""Issue 52, the presenter's view of a class experiment (services/classview.py): the finished runs read back as the
engine's Runs, the overlay's figures from them (thinned curves, the median, the histogram, groups and comparisons,
the heads locked on), and the exports (summary CSV, curves CSV, npz) holding every run's own numbers."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from engine import class_runs as cr
from services import classwork
from services.poll import classview
from services.poll import experiment as cx
from services.poll.store import NotPresenter, Store


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    """Four runs of the previous-token task, trained in-process (the queue is tests/test_jobs.py's), the width
    varying 16 / 8, and a fifth seat whose run is not done."""
    store = Store(tmp_path_factory.mktemp("hall") / "poll.sqlite3")
    room = store.create_room()
    plan = cx.plan("previous", 60, 0.06, 1, 16, "width", [16, 8])
    eid = cx.start(store, room.code, room.key, plan)
    for i in range(1, 6):
        cx.claim(store, room.code, f"seat-0000{i}")
    for k in range(1, 5):
        assert classwork.work(store, room.code, eid, k) == "done"
    yield store, room, plan, classview.finished(store, room.code, room.key, eid)
    store.close()


def test_the_finished_runs_are_read_back_as_the_engines_runs(hall):
    store, room, plan, done = hall
    assert [f.k for f in done] == [1, 2, 3, 4] and [f.value for f in done] == ["16", "8", "16", "8"]
    for f in done:
        run = classwork.trained(plan.settings(f.k), f.k)
        again = classview.as_run(f)
        np.testing.assert_allclose(again.loss, run.losses, rtol=0, atol=1e-12)
        assert again.formed == f.formed and again.group == f.value
    with pytest.raises(NotPresenter):
        classview.finished(store, room.code, "x" * 22, 1)


def test_the_overlay_is_made_of_the_runs_numbers(hall):
    *_, done = hall
    shown = classview.overlay(done)
    assert classview.overlay([]) is None
    assert len(shown.curves) == 4 and all(len(steps) <= cr.POINTS for _, _, steps, _ in shown.curves)
    k, group, steps, loss = shown.curves[1]
    assert (k, group) == (2, "8") and steps[0] == 1 and steps[-1] == 60 and loss[-1] == done[1].final_loss
    assert [g for g, _, _ in shown.medians] == ["16", "8"], "a median curve per value of the varied setting"
    for group, steps, median in shown.medians:
        every = np.array([f.curves["loss"] for f in done if f.value == group])  # (2, 60): all the same length here
        np.testing.assert_allclose(median, np.median(every, axis=0)[steps - 1], rtol=0, atol=1e-12)
    assert [g.group for g in shown.groups] == ["16", "8"] and sum(g.runs for g in shown.groups) == 4
    by_group, edges = shown.histogram  # (2, bins): a row per value, on the hall's edges
    for group, row in zip(["16", "8"], by_group, strict=True):
        formed = [f.formed for f in done if f.formed is not None and f.value == group]
        assert row.sum() == len(formed) and (not formed or edges[0] <= min(formed) <= max(formed) <= edges[-1])
    locked = sum(len(f.roles) for f in done)
    assert sum(n for _, n in shown.roles) == locked


def test_the_exports_hold_every_runs_numbers(hall):
    *_, plan, done = hall
    rows = list(csv.reader(io.StringIO(classview.summary_csv(done, plan))))
    assert rows[0] == list(classview.SUMMARY) and len(rows) == 5
    assert rows[2][:4] == ["2", "2", "width", "8"] and float(rows[2][6]) == done[1].accuracy
    assert rows[2][4] == ("" if done[1].formed is None else str(done[1].formed))
    for row, f in zip(rows[1:], done, strict=True):  # every run's final loss and its heads, as the store keeps them
        assert float(row[5]) == f.final_loss and float(row[6]) == f.accuracy
        assert row[7] == "; ".join(
            f"layer {r['layer']} head {r['head']} {r['role']} ({r['share']:.2f})" for r in f.roles
        )
    locked = [row[7] for row in rows[1:] if row[7]]
    assert locked and all(h.startswith("layer 1 head ") for h in locked)  # a real run's roles are named
    curves = list(csv.reader(io.StringIO(classview.curves_csv(done))))
    assert len(curves) == 1 + 4 * 60 and curves[61][:3] == ["2", "8", "1"]
    assert float(curves[61][3]) == done[1].curves["loss"][0]
    arrays = np.load(io.BytesIO(classview.npz(done)))
    assert arrays["loss"].shape == (4, 60) and arrays["shares"].shape[2:] == (1, 1)
    np.testing.assert_array_equal(arrays["runs"], [1, 2, 3, 4])
    np.testing.assert_array_equal(arrays["formed"], [-1 if f.formed is None else f.formed for f in done])
    assert arrays["loss"][3, -1] == done[3].final_loss


def test_runs_of_different_depths_and_lengths_share_one_npz_padded_with_nan():
    def made(k, steps, layers, heads):
        shares = np.full((3, layers, heads), 0.5).tolist()
        curves = {"loss": [1.0] * steps, "batch_accuracy": [0.5] * steps, "steps": [0, 1, steps], "shares": shares}
        return classview.Finished(k, str(layers), 0.1, 0.9, None, (), curves)

    arrays = np.load(io.BytesIO(classview.npz([made(1, 40, 1, 2), made(2, 30, 2, 1)])))
    assert arrays["shares"].shape == (2, 3, 2, 2) and arrays["loss"].shape == (2, 40)
    assert np.isnan(arrays["loss"][1, 30:]).all() and not np.isnan(arrays["loss"][1, :30]).any()
    assert np.isnan(arrays["shares"][0, :, 1, :]).all() and np.isnan(arrays["shares"][1, :, :, 1]).all()
    assert (arrays["shares"][1, :, :, 0] == 0.5).all()
