"""One quantity, one number (issue 32, defects 1, 5, 6 and 7): a trained model's accuracy is one function
of one sample wherever it shows (the model view's metric, the warning above it), it names the length it
was measured at, a per-position statement needs enough cases, and the Learn replay's notice reads the
step it shows. Trained numbers are read from the model the app uses at that setting."""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine
import engine.evidence
import engine.histories
import engine.loss_curve
from conftest import assert_clean, handle_of, open_app
from ui import compute
from ui.prose import preset_notes
from ui.prose.sample import said as said_sample
from ui.sections.learn import words as learn_words
from ui.shell import site, state, url

MODEL = site.by_path("model").file


def _model(params: dict):
    controls, _ = url.from_params(params)
    return handle_of(state.to_config(controls), state.to_training(controls)).trained, state.to_tokens(controls).words


def _warning(at) -> str:
    return " ".join(w.value.replace("\\", "") for w in at.warning if "trained on" in w.value)


# --------------------------------------------------------------------------- defect 1
def test_defect01_the_replay_notice_names_the_head_most_on_the_keys_at_the_step_shown():
    """At step 303 the notice named layer 1 head 1 (33 %) while head 0 had 36.5 %: picked at the last step."""
    steps = np.array([0, 303, 480])
    shares = np.array([[[0.1, 0.1], [0.1, 0.1]], [[0.05, 0.04], [0.365, 0.333]], [[0.05, 0.04], [0.95, 0.99]]])
    previous = np.array([[[0.1, 0.1], [0.1, 0.1]], [[0.6, 0.2], [0.02, 0.01]], [[0.77, 0.2], [0.02, 0.01]]])
    samples = engine.sample.measured("induction", 1000, 1), engine.histories.history_sample("induction")
    losses = np.linspace(3, 1, 480)
    said = learn_words.depth_notice(
        losses, engine.loss_curve.steepest_fall(losses), steps, shares, previous, 1, 0.99, "induction", "", *samples
    )
    assert "At step 303 of the replay, the head now most on the task's keys (layer 1 head 0) puts 36%" in said
    said = learn_words.depth_notice(
        losses, engine.loss_curve.steepest_fall(losses), steps, shares, previous, 2, 0.99, "induction", "", *samples
    )
    assert "(layer 1 head 1) puts 99%" in said


# --------------------------------------------------------------------------- defects 5 and 6
@pytest.mark.parametrize(
    "preset, T",
    [("trained-previous", 64), ("trained-reverse", 64), ("trained-induction", 64), ("trained-induction", 16)],
)
def test_defect05_06_the_model_views_accuracy_is_the_one_the_warning_gives_at_the_length_shown(preset, T):
    params = {"preset": preset, "seq_len": str(T)}
    at = open_app(MODEL, params, timeout=300)
    assert_clean(at)
    model, _ = _model(params)
    task = model.task
    n = compute.sequences(task, T)  # 1,000 at the training length, else 200
    assert n == (1000 if T == task.seq_len else 200)
    here = engine.evidence.position_metrics(task, model.config, model.params, n, compute.METRICS_SEED, T=T)
    metric = next(m.value for m in at.metric if m.label == "accuracy")
    assert metric == f"{here.overall_accuracy:.1%}", "measured on sequences of the length shown"
    said = " ".join(c.value for c in at.caption)
    assert f"{n:,} fresh {T}-token sequences" in said
    if T == task.seq_len:
        assert not _warning(at) and "the model was trained on" not in said
        return
    assert f"(the model was trained on {task.seq_len} tokens)" in said
    roles = compute.followed(model)  # the roles' sample, at the training length
    assert f"{said_sample(roles)} of the task (the training length, not the {T} shown)" in said
    assert roles.T == task.seq_len
    warned = _warning(at)
    at_length = engine.evaluate(task, model.config, model.params)
    assert f"it predicts {metric} of the targets right (at {task.seq_len} tokens: {at_length:.1%})" in warned


# --------------------------------------------------------------------------- defect 7
def test_defect07_a_position_scored_in_too_few_sequences_is_no_finding():
    accuracy = np.array([0, 1.0, 1.0, 0.95, 0.5, 0.67, 0.0])
    count = np.array([0, 900, 800, 400, 12, 3, 0])  # positions 4 and 5: too few cases
    assert preset_notes.reach(accuracy, count) == (3, None)
    samples = engine.sample.measured("induction", 200, 1, 7), engine.sample.measured("induction", 1000, 1)
    said = preset_notes.outside_training("induction", 16, 7, [], 0.9, 0.99, None, accuracy, count, *samples)
    assert "does the task up to position" not in said and "2 positions of the 7 (positions 4–5)" in said
    assert "fewer than 30 of the sequences, too few to tell" in said
    count[4] = 30  # now position 4 has enough, and fails
    said = preset_notes.outside_training("induction", 16, 7, [], 0.9, 0.99, None, accuracy, count, *samples)
    assert "does the task up to position 3" in said and "not at position 4 (50% of 30)" in said


def test_defect07_the_induction_warning_at_64_tokens_counts_its_cases():
    params = {"preset": "trained-induction", "seq_len": "64"}
    at = open_app(MODEL, params, timeout=300)
    model, _ = _model(params)
    metrics = engine.evidence.position_metrics(
        model.task, model.config, model.params, compute.sequences(model.task, 64), compute.METRICS_SEED, T=64
    )
    warned = _warning(at)
    for position in re.findall(r"position (\d+)", warned.split("too few")[0]):
        assert metrics.count[int(position)] >= preset_notes.MIN_CASES, (position, warned)
    thin = int(np.count_nonzero((metrics.count > 0) & (metrics.count < preset_notes.MIN_CASES)))
    assert (thin > 0) == ("too few to tell" in warned)
