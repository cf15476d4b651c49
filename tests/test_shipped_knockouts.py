"""A small shipped model's knock-outs ship beside its weights (python -m factory.ship writes them,
--measures writes them again from the weights as they are): every set of its heads knocked out, measured
on the sequences the pages measure. The pages read them instead of measuring (a fresh server's first
knock-out, and every replica's, was ~0.1 s of held GIL a set), and they are what measuring gives."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.evidence
import engine.histories
import engine.knockouts
import engine.measure
from factory import evidence_files, shipped_measures, shipped_runs, store
from services import evidence, weights
from ui import compute
from ui.shell import presets

SMALL = [t for t in presets.TRAINED_TASKS if engine.TASKS[t].held_out is None]


def shipped(task: str) -> weights.Model:
    t = engine.TASKS[task]
    model = weights.find(t.config, weights.Training(task, t.steps))
    assert model is not None and model.origin == "shipped"
    return model


def test_head_sets_number_every_set_by_its_mask():
    cfg = engine.TASKS["induction"].config  # 2 layers × 2 heads
    sets = engine.knockouts.head_sets(cfg)
    assert len(sets) == 16 and sets[0] == () and sets[-1] == ((0, 0), (0, 1), (1, 0), (1, 1))
    assert sets[0b0100] == ((1, 0),) and sets[0b1010] == ((0, 1), (1, 1))
    assert len(set(sets)) == 16
    from engine.knockouts import set_number

    assert [set_number(cfg, heads) for heads in sets] == list(range(16))  # a set's number is its place
    assert set_number(cfg, [(1, 0), (0, 1), (1, 0)]) == 0b0110 and set_number(cfg, [(0, 2)]) is None


def test_the_arrays_give_back_each_set_as_measured_and_nothing_else():
    """On a small untrained model (the article's block and a task's vocabulary): every set's metrics
    equal position_metrics' for that set; a set in another order is the same set; a head the model has
    not, other sequences or another shape give None."""
    task = engine.TASKS["induction"]
    cfg = task.config
    params = engine.init_params(cfg)
    arrays = engine.knockouts.knockout_arrays(task, cfg, params, n=40, seed=5)
    for heads in [(), ((1, 1),), ((0, 0), (1, 0)), ((0, 0), (0, 1), (1, 0), (1, 1))]:
        now = engine.evidence.position_metrics(task, cfg, params, 40, 5, ablate=heads)
        kept = engine.knockouts.knockout_from(arrays, cfg, heads, 40, 5)
        assert np.array_equal(kept.right, now.right) and np.array_equal(kept.count, now.count)
        np.testing.assert_allclose(kept.loss, now.loss, rtol=0, atol=1e-12)
        np.testing.assert_allclose(kept.next_loss, now.next_loss, rtol=0, atol=1e-12)
        assert kept.overall_accuracy == now.overall_accuracy and kept.sequences == 40
        assert not kept.loss.flags.writeable
    swapped = engine.knockouts.knockout_from(arrays, cfg, ((1, 0), (0, 0)), 40, 5)
    assert np.array_equal(swapped.right, engine.knockouts.knockout_from(arrays, cfg, ((0, 0), (1, 0)), 40, 5).right)
    assert engine.knockouts.knockout_from(arrays, cfg, ((2, 0),), 40, 5) is None
    assert engine.knockouts.knockout_from(arrays, cfg, (), 41, 5) is None
    assert engine.knockouts.knockout_from(arrays, cfg, (), 40, 6) is None
    import dataclasses

    assert engine.knockouts.knockout_from(arrays, dataclasses.replace(cfg, num_heads=4), (), 40, 5) is None
    first = engine.knockouts.knockout_arrays(task, cfg, params, n=40, seed=5, upto=1)  # nothing knocked out, only
    assert np.array_equal(engine.knockouts.knockout_from(first, cfg, (), 40, 5).right, arrays["right"][0])
    assert engine.knockouts.knockout_from(first, cfg, ((0, 0),), 40, 5) is None
    assert engine.knockouts.knockout_from({"n": np.array(40)}, cfg, (), 40, 5) is None  # a table of another kind


def test_a_model_of_more_than_four_heads_is_not_measured_set_by_set():
    cfg = engine.TASKS["text"].config  # 2 layers × 4 heads: 256 sets
    with pytest.raises(ValueError, match="256 sets"):
        engine.knockouts.knockout_arrays("induction", cfg, engine.init_params(cfg), n=2)


@pytest.mark.parametrize("task", SMALL)
def test_the_shipped_knockouts_are_what_measuring_gives(task):
    """Each shipped small model's knock-outs, read from its file, against measuring now on this CPU (another
    CPU's BLAS gives other last bits: the losses within 1e-9 nats, a count may move by one on a near tie)."""
    model = shipped(task)
    arrays = evidence.measures(model)
    assert arrays is not None, "run: python -m factory.ship --measures"
    sets = engine.knockouts.head_sets(model.config)
    assert arrays["loss"].shape[0] == len(sets)
    for heads in sets if len(sets) <= 4 else [sets[0], sets[5], sets[-1]]:
        kept = engine.knockouts.knockout_from(arrays, model.config, heads, compute.METRICS_N, compute.METRICS_SEED)
        now = engine.evidence.position_metrics(
            task, model.config, model.params, compute.METRICS_N, compute.METRICS_SEED, ablate=heads
        )
        assert np.abs(kept.right - now.right).max() <= 1, heads
        np.testing.assert_allclose(kept.loss, now.loss, rtol=0, atol=1e-9)


def test_a_page_reads_a_knockout_at_the_training_length_and_measures_one_elsewhere(monkeypatch):
    """compute.metrics at the shipped model's training length is a look-up (measuring would fail here); at
    another length it measures."""
    import streamlit as st

    st.cache_data.clear()
    model = shipped("induction")
    measured = []
    real = engine.evidence.position_metrics

    def counted(*args, **kwargs):
        measured.append(kwargs.get("T"))
        return real(*args, **kwargs)

    monkeypatch.setattr(engine.evidence, "position_metrics", counted)
    try:
        table = evidence.measures(model)
        for heads in [(), ((1, 0),), ((0, 1), (1, 1))]:
            got = compute.metrics(model, None, heads)
            kept = engine.knockouts.knockout_from(table, model.config, heads, compute.METRICS_N, compute.METRICS_SEED)
            assert np.array_equal(got.right, kept.right) and np.array_equal(got.loss, kept.loss)
        assert compute.metrics(model, model.task.seq_len, ((1, 0),)).sequences == compute.METRICS_N
        assert measured == [], "a shipped knock-out at the training length was measured again"
        away = compute.metrics(model, model.task.seq_len + 2, ((1, 0),))
        assert measured == [model.task.seq_len + 2] and away.sequences == compute.AWAY_N
    finally:
        st.cache_data.clear()


def test_one_quantity_asked_every_way_the_pages_ask_is_measured_once(monkeypatch):
    """The model view's header asks compute.metrics(model, T), its knock-out figures (model, T, ablate) with
    nothing knocked out, the Learn page (model): at a length away from training each spelling used to be
    a cache entry of its own, and a new length cost two measures. One measure per quantity now: T left out
    or written, no heads left out or (), a set of heads in any order."""
    import streamlit as st

    st.cache_data.clear()
    model = shipped("induction")
    measured = []
    real = evidence.metrics
    monkeypatch.setattr(
        evidence, "metrics", lambda m, T, ablate, n, seed: measured.append((T, ablate)) or real(m, T, ablate, n, seed)
    )
    try:
        T, away = model.task.seq_len, model.task.seq_len + 3
        at = [compute.metrics(model), compute.metrics(model, T), compute.metrics(model, T, ())]
        here = [compute.metrics(model, away), compute.metrics(model, away, ())]
        pair = [compute.metrics(model, away, ((1, 0), (0, 1))), compute.metrics(model, away, ((0, 1), (1, 0)))]
        assert measured == [(T, ()), (away, ()), (away, ((0, 1), (1, 0)))]
        for same in (at, here, pair):
            assert all(np.array_equal(m.right, same[0].right) and m.sequences == same[0].sequences for m in same)
        assert here[0].sequences == compute.AWAY_N and pair[0].overall_accuracy < here[0].overall_accuracy
    finally:
        st.cache_data.clear()


def test_a_corrupt_or_foreign_knockouts_file_is_not_read(tmp_path, monkeypatch):
    model = shipped("induction")
    monkeypatch.setattr(store, "SHIPPED", tmp_path)
    assert evidence.measures(model) is None
    path = evidence_files.evidence_path(tmp_path, model.digest, evidence_files.MEASURES)
    path.write_bytes(b"not a zip file")
    assert evidence.measures(model) is None
    arrays = engine.knockouts.knockout_arrays("induction", model.config, model.params, n=4)
    evidence_files.save_evidence(arrays, "0" * 16, path)  # measured on other weights
    assert evidence.measures(model) is None
    evidence_files.save_evidence(arrays, model.digest, path)
    assert evidence.measures(model) is not None


def test_the_check_finds_missing_or_wrong_knockouts(tmp_path, monkeypatch):
    """ship --check's knock-out part fails on a missing file and on one whose numbers are not the weights'."""
    task = "induction"
    one = shipped_runs.runs(task)[0]
    model = shipped(task)
    monkeypatch.setattr(store, "SHIPPED", tmp_path)
    assert not shipped_measures.hold(task, one, model.run)
    arrays = engine.knockouts.knockout_arrays(task, model.config, model.params, compute.METRICS_N, compute.METRICS_SEED)
    arrays |= engine.histories.history_arrays(model.run)
    arrays["right"] = arrays["right"].copy()
    arrays["right"][4, 9] -= 3  # head (1, 0) knocked out: 3 fewer right at 9
    evidence_files.save_evidence(
        arrays, model.digest, evidence_files.evidence_path(tmp_path, model.digest, evidence_files.MEASURES)
    )
    assert not shipped_measures.hold(task, one, model.run)
    arrays["right"][4, 9] += 3
    evidence_files.save_evidence(
        arrays, model.digest, evidence_files.evidence_path(tmp_path, model.digest, evidence_files.MEASURES)
    )
    assert shipped_measures.hold(task, one, model.run)
    arrays["history previous share"] = arrays["history previous share"].copy()
    arrays["history previous share"][-1, 1, 0] += 1e-3  # head (1, 0) at the last saved step
    evidence_files.save_evidence(
        arrays, model.digest, evidence_files.evidence_path(tmp_path, model.digest, evidence_files.MEASURES)
    )
    assert not shipped_measures.hold(task, one, model.run)


def test_a_text_models_table_gives_back_each_set_as_measured():
    """On a small untrained model of the English vocabulary (1 layer × 2 heads: 4 sets), on 4 windows."""
    import dataclasses

    from engine import language

    cfg = dataclasses.replace(engine.TASKS["text"].config, n_layers=1, num_heads=2, d_model=16, d_ff=16)
    params = engine.init_params(cfg)
    table = evidence_files.knockout_table(cfg, params, n=4)
    assert table["losses"].shape == (4, 2)
    for heads in engine.knockouts.head_sets(cfg):
        kept, now = evidence_files.knockout_in(table, cfg, heads, 4), language.knockouts(cfg, params, [heads], n=4)[0]
        assert kept.ablate == now.ablate
        assert abs(kept.overall - now.overall) <= 1e-12 and abs(kept.second_copy - now.second_copy) <= 1e-12
    assert evidence_files.knockout_in(table, cfg, ((0, 2),), 4) is None
    assert evidence_files.knockout_in(table, cfg, (), 5) is None


def test_the_shipped_text_knockouts_agree_with_its_evidence_and_with_measuring():
    """Every set the evidence measured (nothing, each head, each layer) is the same number in the table (one
    quantity, one number: the same function on the same windows); a pair of heads is what measuring gives."""
    from engine import language

    model = shipped("text")
    table = evidence.measures(model)
    assert table is not None, "run: python -m factory.ship --measures text"
    assert table["losses"].shape == (256, 2)
    found = compute.text_evidence(model)
    for k in (found.base, *found.heads, *found.layers):
        kept = evidence_files.knockout_in(table, model.config, k.ablate, compute.TEXT_N)
        assert abs(kept.overall - k.overall) <= 1e-9 and abs(kept.second_copy - k.second_copy) <= 1e-9, k.ablate
    pair = ((0, 1), (1, 2))
    now = language.knockouts(model.config, model.params, [pair], n=compute.TEXT_N)[0]
    kept = evidence_files.knockout_in(table, model.config, pair, compute.TEXT_N)
    assert abs(kept.overall - now.overall) <= 1e-9 and abs(kept.second_copy - now.second_copy) <= 1e-9


def test_a_text_knockout_of_any_heads_is_read_not_measured(monkeypatch):
    import streamlit as st

    from engine import language

    st.cache_data.clear()
    model = shipped("text")

    def refuse(*args, **kwargs):
        raise AssertionError("a shipped text model's knock-out measured again")

    monkeypatch.setattr(language, "knockouts", refuse)
    try:
        got = compute.text_knockout(model, ((0, 3), (1, 0), (1, 1)))
        assert (
            got.ablate == frozenset({(0, 3), (1, 0), (1, 1)}) and got.overall > compute.text_knockout(model, ()).overall
        )
    finally:
        st.cache_data.clear()


def test_the_text_models_figures_at_its_training_length_are_read_and_are_what_measuring_gives(monkeypatch):
    """The Learn page's accuracy and by-position curves of the shipped text model (compute.metrics at its
    training length, nothing knocked out; ~1 s to measure): read from its file, and what measuring gives."""
    import streamlit as st

    model = shipped("text")
    now = engine.evidence.position_metrics(model.task, model.config, model.params, compute.TEXT_N, compute.METRICS_SEED)
    st.cache_data.clear()

    def refuse(*args, **kwargs):
        raise AssertionError("the shipped text model's figures measured again")

    monkeypatch.setattr(engine.evidence, "position_metrics", refuse)
    try:
        kept = compute.metrics(model)
    finally:
        st.cache_data.clear()
    assert np.abs(kept.right - now.right).max() <= 1 and kept.sequences == now.sequences == compute.TEXT_N
    np.testing.assert_allclose(kept.loss, now.loss, rtol=0, atol=1e-9)
    np.testing.assert_allclose(kept.next_loss, now.next_loss, rtol=0, atol=1e-9)


@pytest.mark.parametrize("task", ["induction", "previous", "text"])
def test_the_shipped_runs_heads_step_by_step_are_what_measuring_gives(task, tmp_path, monkeypatch):
    """The Learn page's histories of a shipped run (each head's weight on the task's keys and on the previous
    token at every saved step), read from its file, against measuring them now; the same measured for a run
    that ships none (the store's folder empty)."""
    model = shipped(task)
    steps, shares, previous = evidence.histories(model, compute.SHARE_SEQUENCES, compute.SHARE_SEED)
    now = engine.histories.history_arrays(model.run, compute.SHARE_SEQUENCES, compute.SHARE_SEED)
    assert list(steps) == [s for s, _ in model.run.checkpoints] == list(now["history steps"])
    np.testing.assert_allclose(shares, now["history task share"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(previous, now["history previous share"], rtol=0, atol=1e-9)
    assert not shares.flags.writeable
    monkeypatch.setattr(store, "SHIPPED", tmp_path)
    again = evidence.histories(model, compute.SHARE_SEQUENCES, compute.SHARE_SEED)
    np.testing.assert_allclose(again[1], shares, rtol=0, atol=1e-9)
    np.testing.assert_allclose(again[2], previous, rtol=0, atol=1e-9)


def test_the_learn_pages_histories_of_a_shipped_run_are_read_not_measured(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a shipped run's heads measured again, step by step")

    monkeypatch.setattr(engine.measure, "share_history", refuse)
    monkeypatch.setattr(engine.evidence, "previous_share", refuse)
    for name in ("history_arrays", "expected_share", "previous_share"):  # and what history_arrays measures with
        monkeypatch.setattr(engine.histories, name, refuse)
    compute.histories.clear()
    try:
        for task in ("induction", "text"):
            model = shipped(task)
            steps, shares = compute.share_history(model)
            previous, fall = compute.circuit(model)
            drop = fall.step
            assert shares.shape == previous.shape == (len(steps), model.config.n_layers, model.config.num_heads)
            assert drop in steps or 0 < drop <= model.run.steps
    finally:
        compute.histories.clear()
