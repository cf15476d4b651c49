"""loss_and_grads against central finite differences, for every parameter array.

The loss the differences are taken of is computed here, differently from the engine's training
code: one sequence at a time through engine.run (the pages' path), then -log of the
probability of each scored target, averaged with math.fsum. For every array we compare the
derivative along a random direction (all entries at once) and a few single entries. A nudge that
flips any ReLU between its + and - side sits on a kink, where a central difference is not a
derivative: those few are skipped (and counted, so skipping cannot hide everything).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies

import engine
import engine.config
import engine.params
from engine.params import BLOCK_ARRAYS, param_arrays

H_STEP = 1e-5  # central differences: error ~ H_STEP² · f''' + 1e-16 · |loss| / H_STEP
REL, ABS = 1e-5, 1e-7  # |analytic - numeric| <= REL·|numeric| + ABS·scale
VOCAB = tuple("abcdef")


@strategies.composite
def problems(draw, n_layers=None):
    C = draw(strategies.integers(1, 6))
    cfg = engine.Config(
        d_model=C,
        num_heads=draw(strategies.sampled_from(engine.config.valid_head_counts(C, max_heads=4))),
        d_ff=draw(strategies.integers(1, 6)),
        seed=draw(strategies.integers(0, 2**32 - 1)),
        causal=draw(strategies.booleans()),
        scale_scores=draw(strategies.booleans()),
        positional=draw(strategies.sampled_from(("none", "sinusoidal"))),
        layer_norm=draw(strategies.booleans()),
        output_projection=draw(strategies.booleans()),
        residual=draw(strategies.booleans()),
        init=draw(strategies.sampled_from(("fixed", "fan_in"))),
        init_scale=draw(strategies.floats(0.3, 1.5)),
        vocab=VOCAB[: draw(strategies.integers(2, 6))],
        embedding_stream="weights",
        unembedding=True,
        n_layers=draw(strategies.integers(1, 3)) if n_layers is None else n_layers,
    )
    B, T = draw(strategies.integers(1, 3)), draw(strategies.integers(1, 5))
    rng = np.random.RandomState(draw(strategies.integers(0, 2**32 - 1)))
    tokens = rng.randint(0, cfg.vocab_size, size=(B, T))
    targets = rng.randint(-1, cfg.vocab_size, size=(B, T))
    targets[rng.randint(B), rng.randint(T)] = rng.randint(cfg.vocab_size)  # at least one scored
    return cfg, nudged(engine.init_params(cfg), rng), tokens, targets, rng


def with_arrays(like, arrays):
    """A Params shaped like `like` holding `arrays` (in param_arrays' order)."""
    given = iter(arrays)
    blocks = tuple(
        engine.params.Block(**{n: None if getattr(b, n) is None else next(given) for n in BLOCK_ARRAYS})
        for b in like.blocks
    )
    return engine.params.stack_params(blocks, next(given), next(given))


def nudged(params, rng, size=0.3):
    """params with every number moved a little (so biases are not all 0 where we differentiate)."""
    return with_arrays(params, [a + size * rng.randn(*a.shape) for a in param_arrays(params)])


def oracle(cfg, params, tokens, targets):
    """Mean -log p(target) over scored positions, and every ReLU's on/off pattern."""
    terms, relus = [], []
    for seq, wanted in zip(tokens, targets):
        stack = engine.forward(cfg, params, params.embeddings[seq])
        relus += [trace.ffn_pre > 0 for trace in stack.layers]
        logits = stack.logits  # (T, V)
        for t, target in enumerate(wanted):
            if target >= 0:
                top = max(logits[t])
                log_total = top + math.log(math.fsum(math.exp(z - top) for z in logits[t]))
                terms.append(log_total - logits[t][target])
    return math.fsum(terms) / len(terms), relus


def named_arrays(params):
    """(name, array) for every array, e.g. ('block 1 w_q', ...), in param_arrays' order."""
    names = [f"block {i} {n}" for i, b in enumerate(params.blocks) for n in BLOCK_ARRAYS if getattr(b, n) is not None]
    names += ["embeddings", "w_u"]
    return list(zip(names, param_arrays(params)))


def check_gradients(cfg, params, tokens, targets, rng, grads=None):
    """Compare grads (default: the engine's) with central differences; returns (compared, skipped)."""
    if grads is None:
        _, grads = engine.loss_and_grads(cfg, params, tokens, targets)
    arrays = param_arrays(params)
    assert [g.shape for g in param_arrays(grads)] == [a.shape for a in arrays]
    scale = max(1.0, max(float(np.max(np.abs(g))) for g in param_arrays(grads)))
    compared = skipped = 0
    for n, ((name, array), (_, g)) in enumerate(zip(named_arrays(params), named_arrays(grads))):
        directions = [rng.randn(*array.shape)]  # all entries at once
        for index in rng.choice(array.size, size=min(array.size, 2), replace=False):  # and a few alone
            one = np.zeros(array.size)
            one[index] = 1.0
            directions.append(one.reshape(array.shape))
        for direction in directions:
            plus, relu_plus = oracle(
                cfg, with_arrays(params, arrays[:n] + [array + H_STEP * direction] + arrays[n + 1 :]), tokens, targets
            )
            minus, relu_minus = oracle(
                cfg, with_arrays(params, arrays[:n] + [array - H_STEP * direction] + arrays[n + 1 :]), tokens, targets
            )
            if any(np.any(a != b) for a, b in zip(relu_plus, relu_minus)):
                skipped += 1  # a kink between the two
                continue
            numeric = (plus - minus) / (2 * H_STEP)
            exact = float(np.sum(g * direction))
            tol = REL * abs(numeric) + ABS * scale * float(np.linalg.norm(direction))
            assert abs(exact - numeric) <= tol, (
                f"{name}: analytic {exact:.9g} vs numeric {numeric:.9g} (tolerance {tol:.2e}) for {cfg}"
            )
            compared += 1
    assert compared >= 3 * skipped, f"{skipped} of {compared + skipped} nudges sat on a ReLU kink"
    return compared, skipped


GRAD = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


@GRAD
@given(problems())
def test_gradients_match_finite_differences(problem):
    check_gradients(*problem)


@pytest.mark.parametrize("n_layers", [2, 3])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(data=strategies.data())
def test_gradients_through_deeper_stacks(n_layers, data):
    check_gradients(*data.draw(problems(n_layers=n_layers)))


def test_every_switch_both_ways_with_four_heads():
    """A fixed sweep so that each switch is checked both ways whatever hypothesis draws."""
    rng = np.random.RandomState(5)
    for causal, positions, w_o, residual, layer_norm, scale in [
        (True, True, True, True, True, True),
        (False, False, False, False, False, False),
        (True, False, True, False, True, False),
        (False, True, False, True, False, True),
    ]:
        cfg = engine.Config(
            d_model=4,
            num_heads=4 if scale else 2,
            d_ff=5,
            seed=11,
            causal=causal,
            positional="sinusoidal" if positions else "none",
            output_projection=w_o,
            residual=residual,
            layer_norm=layer_norm,
            scale_scores=scale,
            init="fan_in",
            init_scale=1.0,
            vocab=VOCAB[:4],
            embedding_stream="weights",
            unembedding=True,
            n_layers=2,
        )
        params = nudged(engine.init_params(cfg), rng)
        tokens, targets = rng.randint(0, 4, (2, 5)), rng.randint(-1, 4, (2, 5))
        targets[0, 0] = 1
        check_gradients(cfg, params, tokens, targets, rng)


def test_the_check_fails_on_a_wrong_gradient():
    """Guard the guard: the comparison notices one gradient array 1 % off, or one entry wrong."""
    rng = np.random.RandomState(9)
    cfg = engine.Config(
        d_model=4,
        num_heads=2,
        d_ff=4,
        causal=True,
        positional="sinusoidal",
        layer_norm=True,
        vocab=VOCAB[:4],
        embedding_stream="weights",
        unembedding=True,
        n_layers=2,
        init="fan_in",
        init_scale=1.0,
    )
    params = engine.init_params(cfg)
    tokens, targets = rng.randint(0, 4, (2, 5)), rng.randint(0, 4, (2, 5))
    _, grads = engine.loss_and_grads(cfg, params, tokens, targets)
    check_gradients(cfg, params, tokens, targets, np.random.RandomState(0), grads)  # the real ones pass
    arrays = list(param_arrays(grads))
    where = [name for name, _ in named_arrays(grads)].index("block 1 w_q")
    for wrong in (arrays[where] * 1.01, arrays[where] + 0.05 * np.eye(4)[1]):  # 1 % off; one row wrong
        bad = with_arrays(grads, arrays[:where] + [wrong] + arrays[where + 1 :])
        with pytest.raises(AssertionError, match="block 1 w_q"):
            check_gradients(cfg, params, tokens, targets, np.random.RandomState(0), bad)
