"""Each one-block task, trained at its defaults, is solved, and solved by the pattern its name promises.

The bar for "a head puts >= 90 % of each scored query's weight on the expected keys": in the
best head, at least 97 % of the scored queries of 300 fresh sequences individually put >= 0.9 of
their weight there, and the mean over all of them is >= 0.95. (Measured at the defaults, since
issue 25's shorter runs: 97.1 % of queries for previous, the tightest, 97-100 % for the others, and
means of 0.98-1.00; see benchmarks/train_bench.py.)
"""
from __future__ import annotations

import numpy as np
import pytest

import engine

SINGLE = ("previous", "first", "reverse", "max")
FRESH = 12345          # evaluation seed; training batches come from RandomState(0)


@pytest.fixture(scope="module")
def runs():
    return {}


@pytest.fixture(params=SINGLE)
def trained(request, runs):
    """One default run per task for the whole module."""
    name = request.param
    if name not in runs:
        runs[name] = engine.train(name)
    return engine.TASKS[name], runs[name]


def test_reaches_99_percent_on_fresh_sequences(trained):
    task, run = trained
    accuracy = engine.evaluate(task.name, run.config, run.params, n=1000, seed=FRESH)
    assert accuracy >= 0.99, f"{task.name}: {accuracy:.4f} on 1,000 fresh sequences"
    assert run.losses[-20:].mean() < 0.2 * run.losses[:20].mean()


def test_a_head_attends_to_the_expected_keys(trained):
    task, run = trained
    tokens, targets = task.sample(np.random.RandomState(FRESH), 300)
    shares = engine.share_per_query(run.config, run.params, tokens, task.expected_keys(tokens), targets >= 0)
    L, H, Q = shares.shape
    assert Q >= 300
    means = shares.mean(axis=-1)                                        # (L, H)
    assert np.allclose(means, engine.expected_share(task.name, run.config, run.params, tokens, targets))
    best = shares.reshape(L * H, Q)[means.argmax()]                     # (Q,) the best head's share per query
    clear = float(np.mean(best >= 0.9))
    assert clear >= 0.97 and best.mean() >= 0.95, (
        f"{task.name}: best head mean {best.mean():.3f}, {clear:.1%} of {Q} scored queries >= 0.9, "
        f"worst {best.min():.3f}")


def test_the_pattern_forms_during_training(trained):
    """At the init no head shows the pattern; lock_step finds when one does, before the end."""
    task, run = trained
    step = engine.lock_step(run, threshold=0.9, n=40, seed=FRESH)
    assert step is not None and 0 < step <= run.steps
    tokens, targets = task.sample(np.random.RandomState(FRESH), 100)
    assert engine.expected_share(task.name, run.config, run.checkpoints[0][1], tokens, targets).max() < 0.9


def test_task_trace_shows_the_pattern(trained):
    task, run = trained
    tokens, targets = task.sample(np.random.RandomState(FRESH), 1)
    trace = engine.task_trace(task.name, run.config, run.params, tokens[0])
    assert isinstance(trace, engine.Trace) and trace.T == task.seq_len
    assert all(label.split(" (")[0] in task.vocab for label in trace.labels)
    keys, scored = task.expected_keys(tokens)[0], targets[0] >= 0
    on_keys = (trace.weights[0] * keys).sum(axis=-1)                    # (T,) the head's weight on them
    assert on_keys[scored].mean() >= 0.9
