"""Trained weights in the app: every page under each trained preset, the Learn page's run and replay,
and one training per server however many sessions ask for it at once."""
from __future__ import annotations

import threading

import numpy as np
import pyarrow as pa
import pytest

import engine
from conftest import PAGES, assert_clean, open_app
from ui import compute
from ui.shell import presets, site, state

TRAINED = [presets.TRAINED_PREFIX + t for t in presets.TRAINED_TASKS]
ONE_BLOCK = [t for t in presets.TRAINED_TASKS if engine.TASKS[t].config.n_layers == 1]
LEARN = site.by_path("learn").file


@pytest.mark.parametrize("preset", TRAINED)
@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_under_each_trained_preset(page, preset):
    at = open_app(page, {"preset": preset}, timeout=60)
    assert_clean(at)
    assert at.title, "the page drew nothing"


@pytest.mark.parametrize("preset", [presets.TRAINED_PREFIX + t for t in ONE_BLOCK])
def test_trained_preset_shows_the_trained_pattern_on_the_softmax_page(preset):
    """The softmax page's weights are the trained block's on the task's own sequence, and the head
    puts most of each scored query's weight where the task says it should."""
    at = open_app(site.by_path("softmax").file, {"preset": preset}, timeout=60)
    controls, _ = state.from_params({"preset": preset})
    task, training = presets.task_of(preset), presets.training(preset)
    cfg, words = state.to_config(controls), state.to_tokens(controls).words
    run = compute.train(cfg, training)
    trace = engine.run(cfg, words, run.params).layers[0]
    chart = at.get("vega_lite_chart")[0]
    cells = pa.ipc.open_stream(next(d for d in chart.proto.datasets if d.name == "cells").data.data).read_all()
    shown = cells.column("value").to_numpy(zero_copy_only=False).reshape(trace.T, trace.T)
    visible = trace.visible
    np.testing.assert_allclose(shown[visible], trace.weights[0][visible], rtol=1e-6, atol=1e-7)
    ids = np.array([[task.vocab.index(w) for w in words]])
    keys = task.expected_keys(ids)[0]
    rows = keys.any(axis=-1) & (np.arange(trace.T) > 0 if task.name in ("previous", "first") else True)
    on_keys = (trace.weights[0] * keys).sum(axis=-1)[rows]
    assert on_keys.mean() >= 0.9, on_keys


def test_a_trained_preset_reads_only_its_vocabulary():
    c = state.preset_controls("trained-previous")
    words = state.to_tokens(state.Controls(**{**c.__dict__, "text": "A B zebra <b> C", "seq_len": 5}))
    assert words.words[:3] == ("A", "B", "C") and len(words.words) == 5
    assert "left out: 'zebra', '<b>'" in words.note
    assert state.from_params({"preset": "trained-max"})[0].text == " ".join(presets.default_words("trained-max"))


def test_one_training_however_many_sessions_ask_at_once(monkeypatch):
    calls = []
    real = engine.train

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "train", counted)
    task = engine.TASKS["first"]
    cfg = engine.Config(**{**task.config.__dict__, "seed": 12345})       # a model nobody trained yet
    training = presets.Training(task="first", steps=30)
    runs = []
    threads = [threading.Thread(target=lambda: runs.append(compute.train(cfg, training))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(runs) == 8 and all(r is runs[0] for r in runs)


def _map_values(at) -> np.ndarray:
    """The first heatmap on the page: its values and its expected-key flags, row-major."""
    chart = next(c for c in at.get("vega_lite_chart") if any(d.name == "cells" for d in c.proto.datasets))
    cells = pa.ipc.open_stream(next(d for d in chart.proto.datasets if d.name == "cells").data.data).read_all()
    T = int(np.sqrt(cells.num_rows))
    values = cells.column("value").to_numpy(zero_copy_only=False).reshape(T, T)
    expected = cells.column("expected").to_numpy(zero_copy_only=False).reshape(T, T)
    return np.nan_to_num(values), expected


@pytest.mark.parametrize("task", ONE_BLOCK)
def test_learn_page_trains_then_replays_from_even_to_sharp(task):
    at = open_app(LEARN, timeout=60)
    at.segmented_control(key="learn_task").set_value(task).run(timeout=60)
    assert_clean(at)
    if any(b.key == "learn_train" for b in at.button):
        at.button(key="learn_train").click().run(timeout=60)
    assert_clean(at)
    steps = list(at.select_slider(key="learn_step").options)
    at.select_slider(key="learn_step").set_value(steps[0]).run()
    start, expected = _map_values(at)
    at.select_slider(key="learn_step").set_value(steps[-1]).run()
    end, _ = _map_values(at)
    rows = expected.any(axis=-1)
    if task in ("previous", "first"):
        rows[0] = False                                                # position 0 is not scored
    visible = np.tril(np.ones_like(expected)) if engine.TASKS[task].config.causal else np.ones_like(expected)
    even = (expected.sum(axis=-1) / visible.sum(axis=-1))[rows]       # the share an even spread would give
    at_start = (start * expected).sum(axis=-1)[rows]
    assert abs(at_start.mean() - even.mean()) < 0.25, (at_start, even)   # random weights: about even
    assert (end * expected).sum(axis=-1)[rows].min() >= 0.9, "the trained head misses the pattern"
    notice = next(s.value for s in at.success if "What to notice" in s.value)
    assert f"at step {steps[-1].replace(',', '')}" in notice.replace(",", "") and "locked on" in notice


def test_learn_page_does_not_report_the_sidebars_padding():
    """The Learn page trains on its task's own sequence: a note about padding the sidebar's sentence
    would be false there; the concept pages keep it."""
    def said(path: str) -> bool:
        notes = open_app(site.by_path(path).file, {"seq_len": "16"}).info
        return any("Padded with 12 filler words to reach sequence length 16." in n.value.replace("\\", "")
                   for n in notes)
    assert not said("learn")
    assert said("softmax")
