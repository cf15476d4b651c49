"""An independent oracle: the whole block again in plain Python (lists, loops, math.exp, math.sqrt).

The oracle shares no code with engine/ (not even a softmax) and never touches numpy: the engine's
weights and input vectors are turned into nested lists before the oracle sees them. The engine's
trace is then compared with the oracle stage by stage over many seeded random configurations.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np
import pytest

import engine
import engine.config

REL = 1e-9  # relative tolerance, measured against the largest entry of the stage being compared
WORDS = ("AI", "builds", "neural", "models", "the", "cat", "sat", "on", "mat", "qubit", "naïve", "🙂")


# =========================================================================== the oracle (no numpy)
def o_matmul(a, b):
    """(n, m) x (m, p) lists -> (n, p)."""
    n, m, p = len(a), len(b), len(b[0])
    out = []
    for i in range(n):
        row = []
        for j in range(p):
            total = 0.0
            for t in range(m):
                total += a[i][t] * b[t][j]
            row.append(total)
        out.append(row)
    return out


def o_add(a, b):
    return [[a[i][j] + b[i][j] for j in range(len(a[0]))] for i in range(len(a))]


def o_add_bias(a, bias):
    return [[a[i][j] + bias[j] for j in range(len(a[0]))] for i in range(len(a))]


def o_positions(T, C):
    """Sinusoidal encoding: column 2m is sin(pos / 10000^(2m/C)), column 2m+1 its cosine."""
    enc = []
    for pos in range(T):
        row = []
        for col in range(C):
            pair = col - col % 2
            angle = pos / (10000.0 ** (pair / C))
            row.append(math.sin(angle) if col % 2 == 0 else math.cos(angle))
        enc.append(row)
    return enc


def o_layer_norm(a, eps=1e-5):
    out = []
    for row in a:
        n = len(row)
        mean = sum(row) / n
        var = sum((v - mean) ** 2 for v in row) / n
        denom = math.sqrt(var + eps)
        out.append([(v - mean) / denom for v in row])
    return out


def o_columns(a, start, stop):
    return [row[start:stop] for row in a]


def o_transpose(a):
    return [[a[i][j] for i in range(len(a))] for j in range(len(a[0]))]


def o_row_softmax(row, visible):
    """Softmax over the visible entries of one row; hidden entries get exactly 0."""
    top = max(row[j] for j in range(len(row)) if visible[j])
    exps = [math.exp(row[j] - top) if visible[j] else 0.0 for j in range(len(row))]
    total = sum(exps)
    return [e / total for e in exps]


@dataclass
class OracleResult:
    x_in: list
    scores: list  # [H][T][T]
    scaled: list  # [H][T][T], None where hidden
    weights: list  # [H][T][T]
    heads: list  # [H][T][d_head]
    concat: list  # [T][C]
    after_attn: list  # [T][C]
    output: list  # [T][C]


def oracle(p, x, *, num_heads, causal, scale_scores, residual, positional, layer_norm):
    """p: dict of nested lists (w_q, w_k, w_v, w_o or None, w1, b1, w2, b2); x: [T][C]."""
    T, C = len(x), len(x[0])
    dh = C // num_heads
    x_in = o_add(x, o_positions(T, C)) if positional == "sinusoidal" else [list(r) for r in x]
    src = o_layer_norm(x_in) if layer_norm else x_in
    q_all, k_all, v_all = o_matmul(src, p["w_q"]), o_matmul(src, p["w_k"]), o_matmul(src, p["w_v"])
    scores, scaled, weights, heads = [], [], [], []
    for h in range(num_heads):
        q = o_columns(q_all, h * dh, (h + 1) * dh)
        k = o_columns(k_all, h * dh, (h + 1) * dh)
        v = o_columns(v_all, h * dh, (h + 1) * dh)
        s = o_matmul(q, o_transpose(k))
        divisor = math.sqrt(dh) if scale_scores else 1.0
        vis = [[(j <= i) or not causal for j in range(T)] for i in range(T)]
        sc = [[s[i][j] / divisor if vis[i][j] else None for j in range(T)] for i in range(T)]
        w = [o_row_softmax([0.0 if c is None else c for c in sc[i]], vis[i]) for i in range(T)]
        scores.append(s)
        scaled.append(sc)
        weights.append(w)
        heads.append(o_matmul(w, v))
    concat = [[heads[col // dh][i][col % dh] for col in range(C)] for i in range(T)]
    attn = o_matmul(concat, p["w_o"]) if p["w_o"] is not None else concat
    after = o_add(x_in, attn) if residual else attn
    ffn_in = o_layer_norm(after) if layer_norm else after
    hidden = [[max(0.0, v) for v in row] for row in o_add_bias(o_matmul(ffn_in, p["w1"]), p["b1"])]
    ffn_out = o_matmul(hidden, p["w2"])
    out = o_add_bias(o_add(after, ffn_out) if residual else ffn_out, p["b2"])
    return OracleResult(x_in, scores, scaled, weights, heads, concat, after, out)


# =========================================================================== configurations
def random_case(seed: int):
    rnd = random.Random(seed)
    d_model = rnd.randint(1, 24)
    cfg = engine.Config(
        d_model=d_model,
        num_heads=rnd.choice(engine.config.valid_head_counts(d_model)),
        d_ff=rnd.randint(1, 20),
        seed=rnd.randrange(2**32),
        causal=rnd.random() < 0.5,
        scale_scores=rnd.random() < 0.5,
        positional=rnd.choice(("none", "sinusoidal")),
        layer_norm=rnd.random() < 0.5,
        output_projection=rnd.random() < 0.5,
        residual=rnd.random() < 0.5,
        init=rnd.choice(("fixed", "fan_in")),
        init_scale=rnd.choice((0.1, 0.5, 1.0, 2.0, 5.0)),
        embedding_stream=rnd.choice(("inputs", "weights")),
        input_seed=rnd.randrange(2**32),
    )
    tokens = [rnd.choice(WORDS) for _ in range(rnd.randint(1, 9))]
    return cfg, tokens


# seeds 0..39, plus a few hand-picked corners that the random draw might miss
CASES = [random_case(s) for s in range(40)]
CASES += [
    (engine.Config(d_model=1, num_heads=1, d_ff=1, causal=True), ["AI"]),
    (
        engine.Config(d_model=24, num_heads=24, d_ff=20, causal=True, layer_norm=True, positional="sinusoidal"),
        list(WORDS[:9]),
    ),
    (
        engine.Config(
            d_model=7, num_heads=7, d_ff=3, scale_scores=False, init_scale=3.0, output_projection=False, residual=False
        ),
        ["the", "cat", "the", "cat"],
    ),
    (engine.PRESETS["part4"].config, list(engine.PRESETS["part4"].tokens)),
    (engine.PRESETS["day33"].config, list(engine.PRESETS["day33"].tokens)),
]


def describe(cfg, tokens) -> str:
    return (
        f"C={cfg.d_model} H={cfg.num_heads} F={cfg.d_ff} T={len(tokens)} causal={cfg.causal} "
        f"scale={cfg.scale_scores} pos={cfg.positional} ln={cfg.layer_norm} "
        f"W_o={cfg.output_projection} res={cfg.residual} init={cfg.init}x{cfg.init_scale}"
    )


def close(actual: np.ndarray, expected: list, what: str, context: str) -> None:
    expected = np.array(expected, dtype=float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != oracle {expected.shape} ({context})"
    scale = max(1.0, float(np.max(np.abs(expected))))
    worst = float(np.max(np.abs(actual - expected)))
    assert worst <= REL * scale, (
        f"{what} disagrees with the plain-Python oracle by {worst:.3e} (scale {scale:.3e}) for {context}"
    )


def test_cases_cover_the_space():
    """The seeded list really exercises every switch both ways (else the oracle proves less)."""
    cfgs = [c for c, _ in CASES]
    for flag in ("causal", "scale_scores", "layer_norm", "output_projection", "residual"):
        assert {getattr(c, flag) for c in cfgs} == {True, False}, flag
    assert {c.positional for c in cfgs} == {"none", "sinusoidal"}
    assert {c.init for c in cfgs} == {"fixed", "fan_in"}
    assert {c.embedding_stream for c in cfgs} == {"inputs", "weights"}
    assert any(c.num_heads > 1 for c in cfgs) and any(c.num_heads == 1 for c in cfgs)
    assert {len(t) for _, t in CASES} >= {1, 9}


@pytest.mark.parametrize("cfg, tokens", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_engine_matches_oracle_stage_by_stage(cfg, tokens):
    params = engine.init_params(cfg)
    x = engine.embed(cfg, params, tokens)
    trace = engine.forward(cfg, params, x).layers[0]
    # hand the oracle plain lists only
    plist = {
        name: (None if getattr(params, name) is None else getattr(params, name).tolist())
        for name in ("w_q", "w_k", "w_v", "w_o", "w1", "b1", "w2", "b2")
    }
    assert (plist["w_o"] is None) == (not cfg.output_projection)
    ref = oracle(
        plist,
        x.tolist(),
        num_heads=cfg.num_heads,
        causal=cfg.causal,
        scale_scores=cfg.scale_scores,
        residual=cfg.residual,
        positional=cfg.positional,
        layer_norm=cfg.layer_norm,
    )
    ctx = describe(cfg, tokens)

    close(trace.x_in, ref.x_in, "x_in (input + positions)", ctx)
    close(trace.scores, ref.scores, "scores Q·Kᵀ", ctx)
    # scaled: visible entries compare as numbers, hidden ones must be -inf in the engine
    hidden = np.array([[[c is None for c in row] for row in head] for head in ref.scaled])
    assert np.array_equal(np.isneginf(trace.scaled), hidden), f"scaled: mask pattern differs ({ctx})"
    close(
        np.where(hidden, 0.0, trace.scaled),
        [[[0.0 if c is None else c for c in row] for row in head] for head in ref.scaled],
        "scaled scores",
        ctx,
    )
    close(trace.weights, ref.weights, "attention weights", ctx)
    assert np.all(trace.weights[hidden] == 0.0), f"hidden keys got non-zero weight ({ctx})"
    close(trace.heads, ref.heads, "per-head outputs weights·V", ctx)
    close(trace.concat, ref.concat, "concatenated heads", ctx)
    close(trace.after_attn, ref.after_attn, "after attention (+ residual)", ctx)
    close(trace.output, ref.output, "block output", ctx)


def test_oracle_is_sensitive():
    """The comparison notices a wrong engine: perturbing one weight moves the oracle's output."""
    cfg, tokens = engine.PRESETS["part4"].config, list(engine.PRESETS["part4"].tokens)
    params = engine.init_params(cfg)
    x = engine.embed(cfg, params, tokens)
    trace = engine.forward(cfg, params, x).layers[0]
    plist = {
        n: (None if getattr(params, n) is None else getattr(params, n).tolist())
        for n in ("w_q", "w_k", "w_v", "w_o", "w1", "b1", "w2", "b2")
    }
    plist["w_k"][0][0] += 1e-6
    ref = oracle(
        plist,
        x.tolist(),
        num_heads=2,
        causal=False,
        scale_scores=True,
        residual=True,
        positional="none",
        layer_norm=False,
    )
    with pytest.raises(AssertionError, match="scores"):
        close(trace.scores, ref.scores, "scores Q·Kᵀ", "perturbed w_k")
    # and unscaled scores are not mistaken for scaled ones
    ref2 = oracle(
        {**plist, "w_k": params.w_k.tolist()},
        x.tolist(),
        num_heads=2,
        causal=False,
        scale_scores=False,
        residual=True,
        positional="none",
        layer_norm=False,
    )
    with pytest.raises(AssertionError, match="weights"):
        close(trace.weights, ref2.weights, "attention weights", "unscaled oracle vs scaled engine")
