"""The training engine's pieces: Adam against a plain loop, determinism, the run record, stacks of blocks, and
refused inputs."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies

import engine
import engine.loss_curve
import engine.measure
import engine.training
from engine.loss_curve import drop_window
from engine.model import backprop
from engine.params import flatten, unflatten
from engine.training import (
    DECAY_FROM,
    DTYPE,
    LR_FLOOR,
    WARMUP,
    checkpoint_steps,
    dense_every,
    learning_rate,
)

FEW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def close(actual, expected, what, rel=1e-12):
    """|actual - expected| <= rel · max(1, largest |expected|)."""
    scale = max(1.0, float(np.max(np.abs(expected))))
    worst = float(np.max(np.abs(np.asarray(actual) - np.asarray(expected))))
    assert worst <= rel * scale, f"{what}: off by {worst:.3e} (scale {scale:.3e})"


def tiny(**changes):
    base = dict(
        d_model=8,
        num_heads=2,
        d_ff=8,
        causal=True,
        positional="sinusoidal",
        vocab=tuple("abcd"),
        embedding_stream="weights",
        unembedding=True,
        init="fan_in",
        init_scale=1.0,
    )
    return engine.Config(**{**base, **changes})


# --------------------------------------------------------------------------- Adam
def adam_oracle(theta, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    """Adam as in the paper's pseudo-code, one number at a time with math."""
    new_theta, new_m, new_v = [], [], []
    for p, g, m_i, v_i in zip(theta, grad, m, v):
        m_i = beta1 * m_i + (1 - beta1) * g
        v_i = beta2 * v_i + (1 - beta2) * g**2
        m_hat = m_i / (1 - math.pow(beta1, t))
        v_hat = v_i / (1 - math.pow(beta2, t))
        new_theta.append(p - lr * m_hat / (math.sqrt(v_hat) + eps))
        new_m.append(m_i)
        new_v.append(v_i)
    return new_theta, new_m, new_v


@FEW
@given(
    strategies.integers(0, 2**32 - 1),
    strategies.integers(1, 40),
    strategies.integers(1, 5),
    strategies.floats(1e-4, 0.1),
)
def test_adam_steps_match_a_plain_loop(seed, size, steps, lr):
    rng = np.random.RandomState(seed)
    theta, m, v = rng.randn(size), np.zeros(size), np.zeros(size)
    ref = (theta.tolist(), m.tolist(), v.tolist())
    for t in range(1, steps + 1):
        grad = rng.randn(size) * rng.choice([1e-6, 1.0, 1e3])
        theta, m, v = engine.training.adam_step(theta, grad, m, v, t, lr)
        ref = adam_oracle(*ref[:1], grad.tolist(), *ref[1:], t, lr)
        close(theta, ref[0], f"theta after step {t}")
        close(m, ref[1], f"m after step {t}")
        close(v, ref[2], f"v after step {t}")


def test_adam_leaves_its_inputs_alone_and_first_step_is_lr_sized():
    theta, grad = np.array([1.0, -2.0, 3.0]), np.array([0.5, -1e-3, 40.0])
    m, v = np.zeros(3), np.zeros(3)
    copies = [a.copy() for a in (theta, grad, m, v)]
    new, _, _ = engine.training.adam_step(theta, grad, m, v, 1, 0.01)
    for a, b in zip((theta, grad, m, v), copies):
        assert np.array_equal(a, b)
    close(theta - new, 0.01 * np.sign(grad), "first bias-corrected step moves each number by about lr", rel=1e-5)


def test_train_applies_adam_to_the_first_batch():
    """Step 1's checkpoint = init - one Adam step on the gradient of the batch RandomState(seed) draws,
    computed in training's float32 (DTYPE) from the float64 init rounded to it. Float32 keeps ~7 digits:
    the loss agrees with float64's to 1e-6, and the float32 Adam step is reproduced to 1e-6."""
    task = engine.TASKS["previous"]
    run = engine.train("previous", steps=3, seed=4)
    assert [s for s, _ in run.checkpoints] == [0, 1, 2, 3]
    tokens, targets = task.sample(np.random.RandomState(4), task.batch)
    init = run.checkpoints[0][1]
    close(flatten(init), flatten(engine.init_params(task.config)), "step 0 is the init as drawn", rel=0)
    loss64, _ = engine.loss_and_grads(task.config, init, tokens, targets)
    theta = flatten(init).astype(DTYPE)
    loss32, grads = engine.loss_and_grads(task.config, unflatten(init, theta), tokens, targets)
    assert run.losses[0] == pytest.approx(loss32, rel=1e-6) and loss32 == pytest.approx(loss64, rel=1e-6)
    g = flatten(grads)
    assert g.dtype == DTYPE
    expected, _, _ = engine.training.adam_step(
        theta, g, np.zeros_like(g), np.zeros_like(g), 1, learning_rate(task.lr, 0, 3)
    )
    close(flatten(run.checkpoints[1][1]), expected, "weights after step 1", rel=1e-6)
    assert flatten(run.checkpoints[1][1]).dtype == np.float64, "the pages get float64"


def test_a_float32_step_stays_float32_and_matches_float64():
    """Training's speed rests on every array of a step being float32: one float64 constant (a NumPy
    scalar, an eye, the positions) would turn the rest of the step into float64, silently and slower.
    And its gradient is float64's to float32's precision, on the induction model and with layer norm."""
    for cfg in (engine.TASKS["induction"].config, tiny(layer_norm=True, n_layers=2, output_projection=True)):
        task_tokens = np.random.RandomState(1).randint(0, cfg.vocab_size, size=(4, 9))
        targets = np.roll(task_tokens, 1, axis=1)
        params64 = engine.init_params(cfg)
        theta = flatten(params64).astype(DTYPE)
        params32 = unflatten(params64, theta)
        loss32, grads32, logits = backprop(cfg, params32, task_tokens, targets)
        stack = engine.forward(cfg, params32, params32.embeddings[task_tokens])
        arrays = [a for trace in stack.layers for a in trace.arrays().values() if a.dtype != bool]
        assert {a.dtype for a in arrays + [stack.logits, logits, flatten(grads32)]} == {np.dtype(DTYPE)}
        loss64, grads64 = engine.loss_and_grads(
            cfg, unflatten(params64, theta.astype(np.float64)), task_tokens, targets
        )
        assert loss32 == pytest.approx(loss64, rel=1e-6)
        g32, g64 = flatten(grads32), flatten(grads64)
        assert np.abs(g32 - g64).max() <= 1e-5 * max(1.0, np.abs(g64).max()), "float32 gradients"


@pytest.mark.parametrize("steps", [1, 3, 100, 480, 5000])
def test_the_learning_rate_rises_holds_then_falls_to_its_floor(steps):
    """Against the schedule written out: a straight rise over WARMUP, lr until DECAY_FROM, then half a
    cosine down to LR_FLOOR * lr at the last update; never above lr, never below the floor after the rise."""
    lr = 0.02
    rates = np.array([learning_rate(lr, step, steps) for step in range(steps)])
    warm, start = max(1, int(WARMUP * steps)), int(DECAY_FROM * steps)
    np.testing.assert_allclose(rates[:warm], lr * np.arange(1, warm + 1) / warm, rtol=1e-12)
    assert np.all(rates[warm:start] == lr)
    if steps - start >= 2:
        fall = rates[max(start, warm) :]
        assert np.all(np.diff(fall) <= 1e-15) and rates[-1] == pytest.approx(LR_FLOOR * lr, rel=1e-12)
        middle = (max(start, warm) + steps - 1) / 2  # half-way down: the cosine's midpoint
        if middle.is_integer() and start >= warm:
            assert learning_rate(lr, int(middle), steps) == pytest.approx(lr * (1 + LR_FLOOR) / 2, rel=1e-12)
    assert rates.max() <= lr and rates[warm - 1 :].min() >= LR_FLOOR * lr - 1e-15


def test_loss_is_cross_entropy_of_the_stack_probabilities():
    cfg = tiny(n_layers=2)
    params = engine.init_params(cfg)
    tokens, targets = np.array([[0, 1, 2], [3, 3, 0]]), np.array([[1, -1, 2], [-1, 0, -1]])
    loss, _ = engine.loss_and_grads(cfg, params, tokens, targets)
    terms = [
        -math.log(engine.run(cfg, list(seq), params).probs[t, want])
        for seq, row in zip(tokens, targets)
        for t, want in enumerate(row)
        if want >= 0
    ]
    assert loss == pytest.approx(math.fsum(terms) / 3, rel=1e-12)


# --------------------------------------------------------------------------- the run record
def test_same_seed_same_run_and_progress_changes_nothing():
    calls = []

    def watch(step, steps, losses, accuracies, params):
        calls.append((step, steps, len(losses), len(accuracies)))
        assert not losses.flags.writeable and not params.w_q.flags.writeable

    a = engine.train("reverse", steps=40, seed=3)
    b = engine.train("reverse", steps=40, seed=3, on_progress=watch)
    c = engine.train("reverse", steps=40, seed=4)
    assert np.array_equal(a.losses, b.losses) and np.array_equal(a.accuracies, b.accuracies)
    assert np.array_equal(flatten(a.params), flatten(b.params))
    assert not np.array_equal(a.losses, c.losses)  # the seed drives the batches
    close(flatten(c.checkpoints[0][1]), flatten(a.checkpoints[0][1]), "same init (the config's seed)", rel=0)
    assert calls[-1] == (40, 40, 40, 40)
    assert [s for s, *_ in calls] == sorted({s for s, *_ in calls}) and len(calls) >= 10


def test_run_record_is_frozen_and_complete():
    run = engine.train("first", steps=200, seed=1)
    steps = [s for s, _ in run.checkpoints]
    assert steps[0] == 0 and steps[-1] == 200 and steps == sorted(set(steps))
    first, last = drop_window(run.losses)  # from the run's own losses: its drop
    dense = {s for s in range(0, 201, dense_every(200)) if first <= s <= last}
    assert set(steps) == set(checkpoint_steps(200).tolist()) | dense  # the schedule, and every saved step of the drop
    assert sum(s <= 20 for s in steps) >= 8  # denser early
    assert run.losses.shape == run.accuracies.shape == (200,)
    assert np.all((run.accuracies >= 0) & (run.accuracies <= 1)) and np.all(np.isfinite(run.losses))
    assert run.task == "first" and run.steps == 200 and run.seed == 1 and run.seconds > 0
    assert np.array_equal(flatten(run.params), flatten(run.checkpoints[-1][1]))
    for array in [run.losses, run.accuracies] + [a for _, p in run.checkpoints for a in engine.params.param_arrays(p)]:
        assert not array.flags.writeable
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.steps = 3
    # checkpoints are copies: the first is still the init after 200 steps
    assert np.array_equal(flatten(run.checkpoints[0][1]), flatten(engine.init_params(run.config)))


@pytest.mark.parametrize("steps", [1, 2, 7, 100, 5000])
def test_checkpoint_steps(steps):
    kept = checkpoint_steps(steps)
    assert kept[0] == 0 and kept[-1] == steps and np.all(np.diff(kept) > 0)
    assert len(kept) <= 60 and (steps < 40 or len(kept) >= 30)


def test_loss_drop_step_finds_the_end_of_a_plateau():
    rng = np.random.RandomState(0)
    steps = np.arange(1000)
    losses = (
        2.5 - 0.3 * (steps < 30) * (30 - steps) / 30 - 2.0 / (1 + np.exp(-(steps - 600) / 15)) + 0.05 * rng.randn(1000)
    )
    assert abs(engine.loss_curve.loss_drop_step(losses) - 600) <= 25
    assert engine.loss_curve.loss_drop_step(np.r_[np.ones(50), np.zeros(50)], window=5) == 50
    with pytest.raises(ValueError, match="at least"):
        engine.loss_curve.loss_drop_step([1.0, 2.0])


# --------------------------------------------------------------------------- refused inputs
def test_loss_and_grads_refuses_bad_batches():
    cfg = tiny()
    params = engine.init_params(cfg)
    good = np.array([[0, 1, 2]])
    cases = [
        (good, np.array([[-1, -1, -1]]), "no position is scored"),
        (np.array([[0, 4, 1]]), good, "tokens must lie in 0..3"),
        (good, np.array([[0, -2, 1]]), "targets must lie in -1..3"),
        (good, np.array([[0, 1]]), "same shape"),
        (np.array([0, 1, 2]), np.array([0, 1, 2]), "(B, T)"),
        (good.astype(float), good, "whole numbers"),
    ]
    for tokens, targets, message in cases:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            engine.loss_and_grads(cfg, params, tokens, targets)
    with pytest.raises(ValueError, match="unembedding=True"):
        plain = dataclasses.replace(cfg, unembedding=False)
        engine.loss_and_grads(plain, engine.init_params(plain), good, good)
    with pytest.raises(ValueError, match="params are for n_layers=1 but the config has n_layers=2"):
        engine.loss_and_grads(dataclasses.replace(cfg, n_layers=2), params, good, good)


def test_train_refuses_bad_arguments():
    with pytest.raises(ValueError, match="unknown task"):
        engine.train("copy")
    with pytest.raises(ValueError, match="vocabulary"):
        engine.train("max", engine.TASKS["previous"].config)
    for kwargs, message in [
        ({"steps": 0}, "steps"),
        ({"steps": 2.5}, "steps"),
        ({"seed": -1}, "seed"),
        ({"lr": 0}, "lr"),
        ({"batch": 0}, "batch"),
        ({"on_progress": 3}, "on_progress"),
    ]:
        with pytest.raises(ValueError, match=message):
            engine.train("previous", **kwargs)


def test_task_trace_refuses_a_stack():
    cfg = dataclasses.replace(engine.TASKS["previous"].config, n_layers=2)
    with pytest.raises(ValueError, match="n_layers=2: use task_stack"):
        engine.measure.task_trace("previous", cfg, engine.init_params(cfg), [0, 1])
    stack = engine.measure.task_stack("previous", cfg, engine.init_params(cfg), [0, 1, 0])
    assert stack.labels == ("A (0)", "B", "A (2)") and stack.logits.shape == (3, 8)


def test_grads_mirror_params_and_are_read_only():
    cfg = tiny(output_projection=False, n_layers=2)
    params = engine.init_params(cfg)
    _, grads = engine.loss_and_grads(cfg, params, np.array([[0, 1, 2, 3]]), np.array([[1, 2, 3, 0]]))
    assert grads.n_layers == 2 and grads.w_o is None and grads.blocks[1].w_o is None
    for p, g in zip(engine.params.param_arrays(params), engine.params.param_arrays(grads)):
        assert p.shape == g.shape and not g.flags.writeable
    assert unflatten(params, flatten(params)).blocks[1].w1.shape == params.blocks[1].w1.shape


def test_share_per_query_refuses_mismatched_inputs():
    cfg = engine.TASKS["previous"].config
    params = engine.init_params(cfg)
    tokens = np.zeros((2, 4), dtype=int)
    keys = engine.TASKS["previous"].expected_keys(tokens)
    with pytest.raises(ValueError, match="keys"):
        engine.measure.share_per_query(cfg, params, tokens, keys[:, :3], np.ones((2, 4), bool))
    with pytest.raises(ValueError, match="nothing to measure"):
        engine.measure.share_per_query(cfg, params, tokens, keys, np.zeros((2, 4), bool))


def test_time_spent_in_on_progress_is_not_training_time():
    import time

    start = time.perf_counter()
    run = engine.train("first", steps=20, on_progress=lambda *args: time.sleep(0.05))
    elapsed = time.perf_counter() - start
    assert run.seconds < elapsed - 0.9 * 20 * 0.05  # 20 calls of 50 ms were left out


def test_training_keeps_freed_buffers_on_glibc():
    """engine.memory asks glibc to keep a step's freed buffers for the next step (a third of a small
    model's step was page faults); elsewhere it says it could not, and nothing changes."""
    import platform

    from engine.memory import keep_freed_buffers

    assert keep_freed_buffers() is (platform.system() == "Linux" and platform.libc_ver()[0] == "glibc")
