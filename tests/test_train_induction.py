"""A two-block model learns induction: after a plateau the loss drops, a layer-2 head looks at the
token after the earlier copy of the current token, and a layer-1 head at the previous token.

Measured, not assumed: the bar is >= 90 % accuracy on the scored positions of 1,000 fresh
sequences, a layer-2 head with a mean share >= 0.7 on the expected keys, and a layer-1 head with
a mean share >= 0.7 on the previous token (the first half of the circuit). The bars are held against
the default run that ships (factory.ship trains it in one pinned arithmetic; --check proves the file is
what it trains): the plateau's length is chaotic, and another CPU's kernels escape it at another step,
or not within the run. A run trained here is only asked to learn (its loss falls well below the start's).
"""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.loss_curve
import engine.measure
from factory import store

FRESH = 12345


@pytest.fixture(scope="module")
def run():
    task = engine.TASKS["induction"]
    shipped = store.load_shipped("induction", task.config, task.steps, 0)
    assert shipped is not None, "run: python -m factory.ship"
    return shipped


def test_a_run_trained_here_learns():
    here = engine.train("induction", steps=120)
    assert here.losses[-20:].mean() < 0.85 * here.losses[:10].mean(), (
        here.losses[:10].mean(),
        here.losses[-20:].mean(),
    )


@pytest.fixture(scope="module")
def fresh():
    return engine.TASKS["induction"].sample(np.random.RandomState(FRESH), 300)


def test_induction_reaches_90_percent(run):
    accuracy = engine.evaluate("induction", run.config, run.params, n=1000, seed=FRESH)
    assert accuracy >= 0.90, f"{accuracy:.3f} on the scored positions of 1,000 fresh sequences"


def test_a_layer_two_head_attends_after_earlier_copies(run, fresh):
    shares = engine.measure.expected_share("induction", run.config, run.params, *fresh)  # (L, H)
    assert shares.shape == (2, run.config.num_heads)
    assert shares[1].max() >= 0.7, f"layer-2 heads' mean share on the expected keys: {shares[1]}"
    assert shares[0].max() < 0.5, "layer 1 cannot do it alone: its keys do not know what came before them"


def test_a_layer_one_head_attends_to_the_previous_token(run, fresh):
    tokens, _ = fresh
    keys = engine.TASKS["previous"].expected_keys(tokens)
    shares = engine.measure.share_per_query(run.config, run.params, tokens, keys, np.ones(tokens.shape, dtype=bool))
    assert shares[0].mean(axis=-1).max() >= 0.7, f"layer-1 previous-token shares {shares[0].mean(axis=-1)}"


def test_the_loss_plateaus_then_drops(run):
    drop = engine.loss_curve.loss_drop_step(run.losses)
    assert 50 <= drop < run.steps - 50, drop
    before, after = run.accuracies[max(0, drop - 150) : drop - 50], run.accuracies[-50:]
    assert before.mean() < 0.5 < 0.9 <= after.mean(), (before.mean(), after.mean())
    assert run.losses[-50:].mean() < 0.5 * run.losses[drop - 100 : drop - 50].mean()
