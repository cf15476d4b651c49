"""Issue 52's numbers, engine half: a class experiment's runs read together (engine/class_runs.py), against plain
loops; a run's head forms where the Learn page says it locks on; a bootstrap calls a difference an effect only
when its interval excludes zero."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import engine
from engine import class_runs as cr
from engine.histories import LOCKED, history_arrays


def _run(k: int, group: str = "", formed_at: int | None = 200, accuracy: float = 1.0, steps: int = 400) -> cr.Run:
    """A made-up run: its best head's share crosses LOCKED at formed_at (None: never)."""
    saved = np.arange(0, steps + 1, 20)  # (S,)
    share = np.where(saved >= (formed_at if formed_at is not None else steps + 1), 0.95, 0.3)
    shares = np.zeros((len(saved), 2, 2))
    shares[:, 1, 0] = share  # layer 1 head 0 is the task's head
    loss = np.linspace(3.0, 0.1 if formed_at else 2.0, steps)
    return cr.Run(k, group, loss, saved, shares, accuracy)


def test_a_run_forms_its_head_at_the_first_saved_step_a_head_reaches_the_learn_pages_share():
    assert _run(1, formed_at=200).formed == 200 and _run(2, formed_at=None).formed is None
    steps = np.array([0, 10, 20, 30])
    shares = np.array([[[0.1, 0.2]], [[0.5, LOCKED - 1e-9]], [[0.2, LOCKED]], [[0.99, 0.99]]])  # (S, 1, 2)
    first = next(int(s) for s, sh in zip(steps, shares) if sh.max() >= LOCKED)  # plain loop
    assert cr.Run(0, "", np.ones(30), steps, shares, 1.0).formed == first == 20


def test_a_real_run_of_the_previous_token_task_forms_its_head():
    """Run k of the task: k draws the initial weights and the batches (the issue's one seed for both)."""
    task = engine.TASKS["previous"]
    k = 3
    run = engine.train("previous", replace(task.config, seed=k), seed=k)
    arrays = history_arrays(run)
    r = cr.Run(k, "", run.losses, arrays["history steps"], arrays["history task share"], float(run.accuracies[-1]))
    assert r.formed is not None and 0 < r.formed <= run.steps
    assert arrays["history task share"][list(arrays["history steps"]).index(r.formed)].max() >= LOCKED


@given(n=hs.integers(1, 900), points=hs.integers(2, 100))
@settings(max_examples=60, deadline=None)
def test_a_thinned_curve_keeps_its_ends_and_at_most_its_points(n, points):
    values = np.sin(np.arange(n) / 7.0)
    steps, kept = cr.thinned(values, points)
    assert len(steps) <= points and steps[0] == 1 and steps[-1] == n and np.all(np.diff(steps) > 0)
    assert np.array_equal(kept, values[steps - 1])  # the values at those steps, not averages
    if n <= points:
        assert len(steps) == n


def test_the_median_curve_is_the_median_of_the_runs_that_reached_each_step():
    runs = [replace(_run(k), loss=np.arange(n, dtype=float) * (k + 1)) for k, n in enumerate((5, 3, 4))]
    curve = cr.median_curve(runs)
    for step in range(5):  # plain loops
        reached = sorted(r.loss[step] for r in runs if len(r.loss) > step)
        mid = len(reached) // 2
        expect = reached[mid] if len(reached) % 2 else (reached[mid - 1] + reached[mid]) / 2
        assert curve[step] == pytest.approx(expect, abs=1e-12)


def test_a_difference_is_an_effect_only_when_its_interval_excludes_zero():
    rng = np.random.RandomState(5)
    same_a, same_b = rng.normal(240, 40, 40), rng.normal(240, 40, 40)
    d, low, high = cr.bootstrap_difference(same_a, same_b, seed=1)
    assert d == pytest.approx(np.median(same_a) - np.median(same_b)) and low <= d <= high
    assert not cr.Comparison("a", "b", d, low, high).effect and low < 0 < high
    early, late = rng.normal(150, 20, 30), rng.normal(320, 20, 30)
    c = cr.Comparison("fast", "slow", *cr.bootstrap_difference(early, late, seed=1))
    assert c.effect and c.high < 0 and c.difference == pytest.approx(np.median(early) - np.median(late))
    assert cr.bootstrap_difference(early, late, seed=1) == cr.bootstrap_difference(early, late, seed=1)
    with pytest.raises(ValueError, match="at least two runs"):
        cr.bootstrap_difference([1.0], [2.0, 3.0])


def test_the_hall_reads_by_group_who_formed_when_and_what_the_others_reached():
    runs = [_run(k, "lr 0.01", formed_at=100 + 20 * (k % 3)) for k in range(6)]
    runs += [_run(6 + k, "lr 0.001", formed_at=300 + 20 * (k % 2)) for k in range(5)]
    runs += [_run(11, "lr 0.001", formed_at=None, accuracy=0.31), _run(12, "lr 0.001", formed_at=None, accuracy=0.4)]
    fast, slow = cr.groups(runs)
    assert (fast.group, fast.runs, fast.missed_accuracy) == ("lr 0.01", 6, None)
    assert slow.runs == 7 and len(slow.formed) == 5 and slow.missed_accuracy == pytest.approx(0.355)
    assert fast.formed == tuple(sorted(r.formed for r in runs[:6])) and slow.median_formed == 300.0
    (c,) = cr.compare([fast, slow], seed=0)
    assert (c.a, c.b) == ("lr 0.01", "lr 0.001") and c.effect and c.difference == pytest.approx(120.0 - 300.0)
    counts, edges = cr.histogram([r.formed for r in runs if r.formed is not None], bins=4)
    assert counts.sum() == 11 and edges[0] == 100 and edges[-1] == 320
    assert cr.compare([fast]) == [] and cr.histogram([])[0].size == 0


def test_the_hall_in_words_says_its_numbers_and_calls_an_effect_only_outside_zero():
    from ui.prose import class_runs as words

    runs = [_run(k, formed_at=180 + 10 * k) for k in range(5)] + [_run(9, formed_at=None, accuracy=0.31)]
    (hall,) = cr.groups(runs)
    assert words.formed(hall, "an induction head") == (
        "5 of 6 runs formed an induction head, between steps 180 and 220 (median 200); the 1 that did not ended at "
        "31% accuracy."
    )
    (none,) = cr.groups([_run(1, formed_at=None, accuracy=0.3), _run(2, formed_at=None, accuracy=0.4)])
    assert words.formed(none, "a head") == "None of the 2 runs formed a head; they ended at 35% accuracy (median)."
    assert words.formed(cr.groups([_run(1)])[0], "a head") == "The one run formed a head, at step 200."
    effect = words.compared(cr.Comparison("0.01", "0.001", -180.0, -200.0, -160.0), "learning rate")
    assert effect.startswith("With learning rate 0.01 the head formed 180 steps earlier than with 0.001")
    assert "excludes 0): an effect." in effect
    none_shown = words.compared(cr.Comparison("1 layer", "2 layers", 12.0, -30.0, 50.0), "layers")
    assert "no difference the runs can tell" in none_shown and "includes 0" in none_shown and "effect" not in none_shown


def _hall(outcome: str) -> list[cr.Run]:
    """A hall's runs for each outcome of the grid the overlay's sentence must say right."""
    if outcome == "all formed":
        return [_run(k, formed_at=180 + 20 * k) for k in range(8)]  # 180 … 320, at saved steps (every 20)
    if outcome == "none formed":
        return [_run(k, formed_at=None, accuracy=a) for k, a in enumerate((0.30, 0.31, 0.36))]
    if outcome == "an effect":  # 100-140 against 300-340: apart far beyond each group's spread
        return [_run(k, "0.01", formed_at=100 + 20 * (k % 3)) for k in range(6)] + [
            _run(6 + k, "0.001", formed_at=300 + 20 * (k % 3)) for k in range(6)
        ]
    # no effect: the two groups' steps interleave, medians 20 apart within a spread of 200
    return [_run(k, "0.01", formed_at=100 + 40 * k) for k in range(6)] + [
        _run(6 + k, "0.001", formed_at=120 + 40 * k) for k in range(6)
    ]


@pytest.mark.parametrize("outcome", ["all formed", "none formed", "an effect", "no effect"])
def test_the_overlays_sentence_over_the_grid_of_outcomes(outcome):
    """From runs to the presenter's sentence (ui/poll/experiment_overlay.py writes words.formed for each group,
    then words.compared for each pair): every outcome of the grid, every number from the runs."""
    from ui.prose import class_runs as words

    found = cr.groups(_hall(outcome))
    said = [words.formed(g, "an induction head") for g in found]
    said += [words.compared(c, "learning rate") for c in cr.compare(found, seed=0)]
    if outcome == "all formed":
        assert said == ["All 8 runs formed an induction head, between steps 180 and 320 (median 250)."]
    elif outcome == "none formed":
        assert said == ["None of the 3 runs formed an induction head; they ended at 31% accuracy (median)."]
    elif outcome == "an effect":
        fast, slow, versus = said
        assert fast == "All 6 runs formed an induction head, between steps 100 and 140 (median 120)."
        assert slow == "All 6 runs formed an induction head, between steps 300 and 340 (median 320)."
        assert versus.startswith("With learning rate 0.01 the head formed 200 steps earlier than with 0.001")
        assert versus.endswith("which excludes 0): an effect.")
    else:
        _, _, versus = said
        assert versus.startswith("learning rate 0.01 and 0.001: no difference the runs can tell (medians 20 steps")
        assert versus.endswith("which includes 0).") and "effect" not in versus


def test_the_histogram_by_group_counts_each_groups_runs_on_the_halls_edges():
    runs = _hall("an effect") + [_run(20, "0.001", formed_at=None, accuracy=0.3)]
    found = cr.groups(runs)
    by_group, edges = cr.histograms(runs, found, bins=4)
    counts, hall_edges = cr.histogram([r.formed for r in runs if r.formed is not None], bins=4)
    np.testing.assert_allclose(edges, hall_edges, rtol=1e-12, atol=0)  # one NumPy call each on the same integers
    np.testing.assert_array_equal(by_group.sum(axis=0), counts)
    for g, row in zip(found, by_group, strict=True):
        expected = [0] * 4
        for r in runs:  # plain loops: the bin of each of the group's formed runs (the last bin holds its right edge)
            if r.group == g.group and r.formed is not None:
                expected[min(3, int((r.formed - edges[0]) // ((edges[-1] - edges[0]) / 4)))] += 1
        assert row.tolist() == expected
    none_formed = cr.groups(_hall("none formed"))
    assert cr.histograms(_hall("none formed"), none_formed)[0].shape == (1, 0)
