"""The faster training step against the plain formulas it replaced, and the gradient through the text
model's kind of config (causal, positions, pre-norm, 4 heads, 2 blocks) against finite differences."""

from __future__ import annotations

import dataclasses

import numpy as np
from test_train_gradients import check_gradients, nudged

import engine
from engine.attention import log_softmax, rows
from engine.block import block_backward
from engine.model import cross_entropy, forward
from engine.training import checkpoint_steps, thin
from engine.windows import windows

TASK = engine.TASKS["text"]
TOL = 1e-12


def small_text_config(vocab_size=12, **changes):
    """The text task's config with tiny widths and its first vocab_size tokens (float64 throughout)."""
    return dataclasses.replace(
        TASK.config, vocab=TASK.vocab[:vocab_size], **{"d_model": 8, "num_heads": 4, "d_ff": 8, **changes}
    )


def real_batch(vocab_size, B, T, seed=0):
    """Windows of real text (repeats included), ids folded into a small vocabulary."""
    drawn = windows("train", np.random.RandomState(seed), B, T, repeat_share=0.5)
    return drawn.tokens % vocab_size, drawn.targets % vocab_size


def test_cross_entropy_matches_log_softmax():
    rng = np.random.RandomState(0)
    logits = 4 * rng.randn(3, 7, 11)
    targets = rng.randint(-1, 11, size=(3, 7))
    targets[0, 0] = 2
    loss, d_logits = cross_entropy(logits, targets)
    scored = targets >= 0
    log_probs = log_softmax(logits, axis=-1)  # the formula written out
    one_hot = np.eye(11)[np.maximum(targets, 0)] * scored[..., None]
    assert abs(loss - (-(log_probs * one_hot).sum() / scored.sum())) < TOL
    expected = (np.exp(log_probs) - one_hot) * scored[..., None] / scored.sum()
    assert np.abs(d_logits - expected).max() < TOL
    assert not d_logits[~scored].any(), "an unscored position passes no gradient"


def test_embedding_gradient_equals_the_one_hot_product():
    """The table's gradient (a scatter-add of d_x) equals one_hot(tokens)ᵀ · d_x, the lookup's matrix form."""
    cfg = dataclasses.replace(TASK.config, d_model=16, d_ff=32)
    params = engine.init_params(cfg)  # float64
    tokens, targets = real_batch(cfg.vocab_size, 4, 24)
    _, grads = engine.loss_and_grads(cfg, params, tokens, targets)
    stack = forward(cfg, params, params.embeddings[tokens])
    _, d_logits = cross_entropy(stack.logits, targets)
    d_h = d_logits @ params.w_u.T  # (B, T, V) @ (V, C) -> (B, T, C)
    for block, trace in zip(reversed(params.blocks), reversed(stack.layers)):
        d_h, _ = block_backward(cfg, block, trace, d_h)
    one_hot = np.eye(cfg.vocab_size)[tokens.ravel()]  # (B*T, V)
    expected = one_hot.T @ rows(d_h)  # (V, C)
    assert np.abs(grads.embeddings - expected).max() < TOL
    assert np.unique(tokens).size < tokens.size, "some token is used twice (the sums are exercised)"


def test_gradients_of_the_text_config_match_finite_differences():
    rng = np.random.RandomState(7)
    for vocab_size, B, T, seed in ((12, 2, 6, 0), (7, 3, 5, 1), (12, 1, 9, 2)):
        cfg = small_text_config(vocab_size, seed=seed)
        tokens, targets = real_batch(vocab_size, B, T, seed)
        compared, _ = check_gradients(cfg, nudged(engine.init_params(cfg), rng), tokens, targets, rng)
        assert compared > 0


def test_a_steady_fall_keeps_the_schedule_and_a_sudden_drop_its_window():
    steps = 2000
    saves = [(step, None) for step in range(0, steps + 1, 10)] + [(s, None) for s in checkpoint_steps(steps)]
    saves = sorted(set(saves))
    schedule = set(checkpoint_steps(steps).tolist())
    steady = 3 + 4 * np.exp(-np.arange(steps) / 400)  # language: falling all along
    assert {step for step, _ in thin(saves, steady, steps)} == schedule
    plateau = np.where(np.arange(steps) < 1200, 3.0, 0.5)  # induction: a plateau, then a drop
    kept = {step for step, _ in thin(saves, plateau, steps)}
    assert schedule < kept and all(1000 <= step <= 1400 for step in kept - schedule)
