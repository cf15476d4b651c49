"""Properties of the engine that must hold for every valid configuration (checked with hypothesis)."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies

import engine
import engine.config
import engine.presets
from engine import analysis, experiments

FEW = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KNOWN = ("AI", "builds", "neural", "models")
UNKNOWN = ("the", "cat", "sat", "on", "mat", "qubit", "naïve", "🙂", "Attention", "x", "42")
WORDS = KNOWN + UNKNOWN


# --------------------------------------------------------------------------- strategies
@strategies.composite
def configs(draw, *, causal=None, positional=None, residual=None, max_scale=5.0, min_scale=0.05, d_model=(1, 24)):
    C = draw(strategies.integers(*d_model))
    return engine.Config(
        d_model=C,
        num_heads=draw(strategies.sampled_from(engine.config.valid_head_counts(C))),
        d_ff=draw(strategies.integers(1, 20)),
        seed=draw(strategies.integers(0, 2**32 - 1)),
        causal=draw(strategies.booleans()) if causal is None else causal,
        scale_scores=draw(strategies.booleans()),
        positional=draw(strategies.sampled_from(("none", "sinusoidal"))) if positional is None else positional,
        layer_norm=draw(strategies.booleans()),
        output_projection=draw(strategies.booleans()),
        residual=draw(strategies.booleans()) if residual is None else residual,
        init=draw(strategies.sampled_from(("fixed", "fan_in"))),
        init_scale=draw(strategies.floats(min_scale, max_scale)),
        embedding_stream=draw(strategies.sampled_from(("inputs", "weights"))),
        input_seed=draw(strategies.integers(0, 2**32 - 1)),
    )


def sentences(min_size=1, max_size=9):
    return strategies.lists(strategies.sampled_from(WORDS), min_size=min_size, max_size=max_size)


def assert_close(actual, expected, what, rel=1e-12):
    """|actual - expected| <= rel * max(1, largest |expected|)."""
    scale = max(1.0, float(np.max(np.abs(expected)))) if np.size(expected) else 1.0
    worst = float(np.max(np.abs(np.asarray(actual) - np.asarray(expected)))) if np.size(expected) else 0.0
    assert worst <= rel * scale, f"{what}: off by {worst:.3e} (scale {scale:.3e})"


def weight_tol(*traces, rel=1e-12) -> float:
    """A bound for rounding in weights that two runs computed separately (another sequence length
    takes another BLAS kernel, so scores differ in their last bits): softmax moves a weight by at most
    as much as the scores moved, and scores carry rounding relative to their own size. A wrong
    implementation (a leaked mask, a lost factor) is off by far more than this."""
    largest = max(float(np.max(np.abs(t.scaled[np.isfinite(t.scaled)]), initial=0.0)) for t in traces)
    return rel * max(1.0, largest)


# --------------------------------------------------------------------------- weights
@FEW
@given(configs(max_scale=100.0), sentences())
def test_weight_rows_sum_to_one(cfg, tokens):
    trace = engine.run(cfg, tokens).layers[0]
    np.testing.assert_allclose(trace.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    assert np.all(trace.weights >= 0)


@FEW
@given(configs(causal=True, max_scale=100.0), sentences())
def test_causal_mask_gives_exact_zeros(cfg, tokens):
    trace = engine.run(cfg, tokens).layers[0]
    T = len(tokens)
    hidden = np.triu(np.ones((T, T), dtype=bool), k=1)  # key j > query i
    assert np.array_equal(trace.visible, ~hidden)
    assert np.all(trace.weights[:, hidden] == 0.0), "a hidden key got a non-zero weight"
    assert np.all(np.isneginf(trace.scaled[:, hidden]))
    assert np.all(np.isfinite(trace.scaled[:, ~hidden]))
    # the first query can only look at itself
    assert np.all(trace.weights[:, 0, 0] == 1.0)


@FEW
@given(configs(causal=False), sentences())
def test_without_mask_every_key_is_visible(cfg, tokens):
    trace = engine.run(cfg, tokens).layers[0]
    assert trace.visible.all()
    assert np.all(np.isfinite(trace.scaled))


# --------------------------------------------------------------------------- heads
@FEW
@given(configs(), sentences())
def test_heads_split_and_reassemble(cfg, tokens):
    trace = engine.run(cfg, tokens).layers[0]
    params = engine.init_params(cfg)
    H, dh = cfg.num_heads, cfg.d_head
    source = trace.x_in if trace.x_norm is None else trace.x_norm
    full = {"q": source @ params.w_q, "k": source @ params.w_k, "v": source @ params.w_v}  # (T, C) each
    for h in range(H):
        cols = slice(h * dh, (h + 1) * dh)
        assert np.array_equal(trace.concat[:, cols], trace.heads[h]), f"concat columns of head {h}"
        for name, matrix in full.items():
            assert_close(getattr(trace, name)[h], matrix[:, cols], f"{name} of head {h}")
    assert_close(trace.heads, trace.weights @ trace.v, "heads = weights · v")
    expected_attn = trace.concat if params.w_o is None else trace.concat @ params.w_o
    assert_close(trace.attn, expected_attn, "attn = concat · W_o")


# --------------------------------------------------------------------------- the trace itself
@FEW
@given(configs(), sentences())
def test_trace_shapes(cfg, tokens):
    trace = engine.run(cfg, tokens).layers[0]
    T, C, H, dh, F = len(tokens), cfg.d_model, cfg.num_heads, cfg.d_head, cfg.d_ff
    expected = {
        "x": (T, C),
        "x_in": (T, C),
        "q": (H, T, dh),
        "k": (H, T, dh),
        "v": (H, T, dh),
        "scores": (H, T, T),
        "scaled": (H, T, T),
        "visible": (T, T),
        "weights": (H, T, T),
        "heads": (H, T, dh),
        "concat": (T, C),
        "attn": (T, C),
        "after_attn": (T, C),
        "ffn_in": (T, C),
        "ffn_pre": (T, F),
        "ffn_hidden": (T, F),
        "ffn_out": (T, C),
        "output": (T, C),
        "positions": (T, C) if cfg.positional == "sinusoidal" else None,
        "x_norm": (T, C) if cfg.layer_norm else None,
        "x_std": (T, 1) if cfg.layer_norm else None,
        "after_std": (T, 1) if cfg.layer_norm else None,
    }
    names = {f.name for f in dataclasses.fields(trace)} - {"config", "labels", "layer", "knocked"}
    assert names == set(expected), f"Trace fields changed: {sorted(names ^ set(expected))}"
    for name, shape in expected.items():
        value = getattr(trace, name)
        if shape is None:
            assert value is None, f"{name} should be None for this config"
        else:
            assert value.shape == shape, f"{name}: {value.shape} != {shape}"
            assert value.dtype == (bool if name == "visible" else np.float64), name
    assert trace.T == T and trace.num_heads == H
    assert len(trace.labels) == T and len(set(trace.labels)) == T
    assert set(trace.arrays()) == {n for n, s in expected.items() if s is not None}
    assert trace.config == cfg


@FEW
@given(configs(), sentences())
def test_trace_is_frozen_all_the_way_down(cfg, tokens):
    trace = engine.run(cfg, tokens).layers[0]
    for name, array in trace.arrays().items():
        assert not array.flags.writeable, f"{name} is writeable"
        with pytest.raises(ValueError):
            array[(0,) * array.ndim] = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        trace.weights = np.zeros(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        trace.config = cfg
    params = engine.init_params(cfg)
    for field in dataclasses.fields(params):
        array = getattr(params, field.name)
        if array is not None:
            with pytest.raises(ValueError):
                array[(0,) * array.ndim] = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        params.w_q = None


def test_forward_does_not_alias_or_alter_the_callers_x():
    cfg = engine.PRESETS["part4"].config
    params = engine.init_params(cfg)
    x = np.array(engine.embed(cfg, params, ["AI", "builds"]))  # a writeable copy
    before = x.copy()
    trace = engine.forward(cfg, params, x).layers[0]
    assert x.flags.writeable and np.array_equal(x, before)
    x[0, 0] = 1e6  # the caller edits its own array...
    assert trace.x[0, 0] != 1e6  # ...the trace is unaffected


@FEW
@given(configs(min_scale=1e-6, max_scale=100.0), sentences())
def test_no_nan_or_inf_for_valid_configs(cfg, tokens):
    trace = engine.run(cfg, tokens).layers[0]
    for name, array in trace.arrays().items():
        if name in ("scaled", "visible"):
            continue
        assert np.all(np.isfinite(array)), f"{name} has NaN or inf"
    assert not np.any(np.isnan(trace.scaled)) and not np.any(np.isposinf(trace.scaled))


@pytest.mark.parametrize("init", ["fixed", "fan_in"])
@pytest.mark.parametrize("d_model", [1, 16, 64])
def test_largest_scale_without_score_scaling_stays_finite(init, d_model):
    cfg = engine.Config(d_model=d_model, num_heads=1, d_ff=64, init=init, init_scale=100.0, scale_scores=False)
    trace = engine.run(cfg, list(WORDS)).layers[0]
    for name, array in trace.arrays().items():
        if name != "visible":
            assert np.all(np.isfinite(array)), f"{name} has NaN or inf"
    np.testing.assert_allclose(trace.weights.sum(axis=-1), 1.0, atol=1e-12)


# --------------------------------------------------------------------------- init rules
@FEW
@given(configs(), strategies.floats(0.05, 5.0))
def test_init_rules_are_scaled_standard_normals(cfg, scale):
    """fan_in draws are the fixed-rule draws (scale 1) divided by sqrt(fan_in): W2's fan-in is d_ff."""
    unit = engine.init_params(dataclasses.replace(cfg, init="fixed", init_scale=1.0))
    fixed = engine.init_params(dataclasses.replace(cfg, init="fixed", init_scale=scale))
    fan = engine.init_params(dataclasses.replace(cfg, init="fan_in", init_scale=scale))
    C, F = cfg.d_model, cfg.d_ff
    for name, fan_in in (("w_q", C), ("w_k", C), ("w_v", C), ("w_o", C), ("w1", C), ("w2", F)):
        raw = getattr(unit, name)
        if raw is None:
            assert getattr(fixed, name) is None and getattr(fan, name) is None
            continue
        assert_close(getattr(fixed, name), raw * scale, f"fixed {name}", rel=1e-14)
        assert_close(getattr(fan, name), raw * scale / math.sqrt(fan_in), f"fan_in {name}", rel=1e-14)
    assert np.all(unit.b1 == 0) and np.all(unit.b2 == 0)
    assert np.array_equal(unit.embeddings, fan.embeddings)  # the table ignores the init rule


# --------------------------------------------------------------------------- appending a token
def old_row_factors(after, T):
    """Z_i / (Z_i + e^{s_i,T}) from after.scaled, computed here with a plain max shift."""
    s = after.scaled[:, :T, :]  # (H, T, T+1)
    top = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - top)
    z_old = e[..., :T].sum(axis=-1)  # (H, T)
    return z_old / (z_old + e[..., T])


@FEW
@given(configs(causal=False, max_scale=3.0), sentences(1, 8), strategies.sampled_from(WORDS))
def test_appending_a_token_rescales_old_rows(cfg, tokens, new):
    before = engine.run(cfg, tokens).layers[0]
    after = engine.run(cfg, tokens + [new]).layers[0]
    T = len(tokens)
    assert np.array_equal(after.x[:T], before.x), "old input vectors changed"
    assert_close(after.scaled[:, :T, :T], before.scaled, "old scaled scores")
    factors = old_row_factors(after, T)  # (H, T)
    assert np.all((factors >= 0) & (factors <= 1))  # 0 or 1 only when the softmax saturates
    old = after.weights[:, :T, :T]
    np.testing.assert_allclose(old, factors[..., None] * before.weights, rtol=1e-9, atol=1e-13)
    # ratios after/before are one common number per row, equal to that row's factor
    for h in range(cfg.num_heads):
        for i in range(T):
            ok = (before.weights[h, i] > 1e-8) & (old[h, i] > 1e-200)  # denormals carry few digits
            ratios = old[h, i, ok] / before.weights[h, i, ok]
            np.testing.assert_allclose(
                ratios, factors[h, i], rtol=1e-8, err_msg=f"row {i} of head {h} was not rescaled uniformly"
            )
    np.testing.assert_allclose(old.sum(axis=-1) + after.weights[:, :T, T], 1.0, atol=1e-12)


def test_appending_a_token_without_positions_matches_by_hand():
    """The Part 4 case written out: the new key takes weight 1 - factor from every old row."""
    cfg = engine.PRESETS["part4"].config
    before = engine.run(cfg, list(engine.PRESETS["part4"].tokens)).layers[0]
    after = engine.run(cfg, list(engine.PRESETS["part4"].tokens) + ["today"]).layers[0]
    factors = old_row_factors(after, 4)
    np.testing.assert_allclose(1 - factors, after.weights[:, :4, 4], atol=1e-12)
    assert np.all(after.weights[:, :4, 4] > 1e-6)  # the new token really takes a share
    assert not np.allclose(after.weights[:, :4, :4], before.weights)  # so old rows really did change


@FEW
@given(configs(causal=True, max_scale=100.0), sentences(1, 8), strategies.sampled_from(WORDS))
def test_causal_old_rows_are_unchanged_by_a_new_token(cfg, tokens, new):
    before = engine.run(cfg, tokens).layers[0]
    after = engine.run(cfg, tokens + [new]).layers[0]
    T = len(tokens)
    np.testing.assert_allclose(after.weights[:, :T, :T], before.weights, rtol=0, atol=weight_tol(before, after))
    assert np.all(after.weights[:, :T, T] == 0.0)
    assert_close(after.output[:T], before.output, "old outputs under the causal mask")


@FEW
@given(configs(causal=False, positional="sinusoidal", max_scale=3.0), sentences(1, 8), strategies.sampled_from(WORDS))
def test_rescaling_holds_with_positions(cfg, tokens, new):
    before = engine.run(cfg, tokens).layers[0]
    after = engine.run(cfg, tokens + [new]).layers[0]
    T = len(tokens)
    assert_close(after.positions[:T], before.positions, "old positions")
    factors = old_row_factors(after, T)
    np.testing.assert_allclose(after.weights[:, :T, :T], factors[..., None] * before.weights, rtol=1e-9, atol=1e-13)


@FEW
@given(configs(causal=False, max_scale=3.0), sentences(1, 8), strategies.sampled_from(WORDS))
def test_extend_factors_match_the_formula(cfg, tokens, new):
    ext = analysis.extend(cfg, tokens, new)
    T = len(tokens)
    factors = old_row_factors(ext.after, T)
    tol = weight_tol(ext.before, ext.after)
    np.testing.assert_allclose(ext.factors, factors, rtol=1e-12, atol=tol)
    np.testing.assert_allclose(ext.new_weight, 1 - factors, atol=tol)
    assert ext.ratio_error <= tol
    np.testing.assert_allclose(ext.diff, ext.after.weights[:, :T, :T] - ext.before.weights, atol=0)


def test_extend_saturated_new_token_gives_factor_zero_without_warnings():
    """A new key that outscores the old ones by > 709 (e^709 overflows) takes the whole row, quietly."""
    cfg = engine.Config(d_model=8, num_heads=1, scale_scores=False, init_scale=10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ext = analysis.extend(cfg, ["AI", "builds"], "sat")
    assert ext.new_scores[0, 0] - np.max(ext.after.scaled[0, 0, :2]) > 709
    assert ext.factors[0, 0] == 0.0 and ext.new_weight[0, 0] == 1.0
    assert np.all(np.isfinite(ext.factors)) and ext.ratio_error <= 1e-12


def test_extend_under_causal_mask_has_factor_one():
    cfg = dataclasses.replace(engine.PRESETS["day33"].config, causal=True)
    ext = analysis.extend(cfg, list(engine.PRESETS["day33"].tokens), 9)
    assert np.all(ext.factors == 1.0) and np.all(ext.new_weight == 0.0)
    assert np.all(np.abs(ext.diff) <= 1e-12) and np.all(ext.output_change <= 1e-12)


# --------------------------------------------------------------------------- permutations
@strategies.composite
def permutations(draw, T):
    perm = draw(strategies.permutations(range(T)))
    assume(list(perm) != list(range(T)))
    return np.array(perm)


@FEW
@given(configs(causal=False, positional="none", max_scale=3.0), strategies.data())
def test_permuting_tokens_permutes_everything_without_positions(cfg, data):
    tokens = data.draw(sentences(2, 9))
    perm = data.draw(permutations(len(tokens)))
    original = engine.run(cfg, tokens).layers[0]
    shuffled = engine.run(cfg, [tokens[p] for p in perm]).layers[0]
    np.testing.assert_allclose(
        shuffled.weights, original.weights[:, perm][:, :, perm], rtol=0, atol=weight_tol(original, shuffled)
    )
    assert_close(shuffled.output, original.output[perm], "outputs under a permutation")


@FEW
@given(configs(causal=False, positional="sinusoidal", residual=True), strategies.data())
def test_positions_break_permutation_symmetry(cfg, data):
    tokens = data.draw(strategies.lists(strategies.sampled_from(WORDS), min_size=3, max_size=9, unique=True))
    perm = data.draw(permutations(len(tokens)))
    original = engine.run(cfg, tokens).layers[0]
    shuffled = engine.run(cfg, [tokens[p] for p in perm]).layers[0]
    gap = max(
        float(np.max(np.abs(shuffled.weights - original.weights[:, perm][:, :, perm]))),
        float(np.max(np.abs(shuffled.output - original.output[perm]))),
    )
    assert gap > 1e-3, f"positions made no difference to a shuffled sentence (gap {gap:.2e})"


@pytest.mark.parametrize("name", ["part4", "day33"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_analysis_shuffle(name, seed):
    preset = engine.PRESETS[name]
    plain = experiments.shuffle(preset.config, preset.tokens, seed)
    assert not np.array_equal(plain.perm, np.arange(len(preset.tokens)))
    assert plain.weights_error <= 1e-12 and plain.output_error <= 1e-12
    placed = experiments.shuffle(dataclasses.replace(preset.config, positional="sinusoidal"), preset.tokens, seed)
    assert max(placed.weights_error, placed.output_error) > 1e-3
    assert np.array_equal(placed.perm, plain.perm)


# --------------------------------------------------------------------------- token vectors
@FEW
@given(configs(), sentences(1, 8), strategies.sampled_from(WORDS), strategies.data())
def test_same_word_gives_same_input_row(cfg, tokens, word, data):
    where = data.draw(strategies.integers(0, len(tokens)))
    sentence = tokens[:where] + [word] + tokens[where:] + [word]
    x = engine.run(cfg, sentence).layers[0].x
    assert np.array_equal(x[where], x[-1])


@FEW
@given(configs(), strategies.lists(strategies.sampled_from(WORDS), min_size=2, max_size=2, unique=True))
def test_a_different_word_gets_a_different_vector(cfg, pair):
    x = engine.run(cfg, pair).layers[0].x
    assert not np.allclose(x[0], x[1]), f"{pair[0]!r} and {pair[1]!r} share a vector"


def test_id_and_its_word_share_a_vector():
    preset = engine.PRESETS["day33"]
    by_id = engine.run(preset.config, list(range(10))).layers[0].x
    by_word = engine.run(preset.config, list(engine.presets.DAY33_VOCAB)).layers[0].x
    assert np.array_equal(by_id, by_word)
    assert len({tuple(row) for row in by_id}) == 10


@FEW
@given(configs(), sentences(1, 5), strategies.lists(strategies.sampled_from(UNKNOWN), min_size=1, max_size=4))
def test_unknown_words_never_shift_the_weight_draws(cfg, tokens, extra):
    reference = engine.init_params(cfg)
    with_extra = engine.run(cfg, tokens + extra).layers[0]  # embeds unknown words first
    without = engine.run(cfg, tokens).layers[0]
    again = engine.init_params(cfg)
    for field in dataclasses.fields(reference):
        a, b = getattr(reference, field.name), getattr(again, field.name)
        assert (a is None and b is None) or np.array_equal(a, b), field.name
    T = len(tokens)
    assert np.array_equal(with_extra.x[:T], without.x)
    # the same weights: old queries, keys and values are unchanged when words are appended
    for name in ("q", "k", "v"):
        assert_close(getattr(with_extra, name)[:, :T], getattr(without, name), f"{name} rows")
    # an unknown word's vector depends on the word only, not on its neighbours
    alone = engine.run(cfg, [extra[0]]).layers[0].x[0]
    assert np.array_equal(with_extra.x[T], alone)


# --------------------------------------------------------------------------- one cell explained
@FEW
@given(configs(), sentences(), strategies.data())
def test_explain_cell_equals_the_trace(cfg, tokens, data):
    trace = engine.run(cfg, tokens).layers[0]
    T = len(tokens)
    h = data.draw(strategies.integers(0, cfg.num_heads - 1))
    i = data.draw(strategies.integers(0, T - 1))
    j = data.draw(strategies.integers(0, T - 1))
    work = analysis.explain_cell(trace, h, i, j)
    score = trace.scores[h, i, j]
    assert math.isclose(
        work.running[-1], score, rel_tol=1e-12, abs_tol=1e-12 * max(1.0, float(np.max(np.abs(trace.scores[h, i]))))
    )
    assert work.score == score
    assert work.weight == pytest.approx(trace.weights[h, i, j], rel=1e-12, abs=1e-15)
    assert work.visible == bool(trace.visible[i, j])
    assert work.divisor == (math.sqrt(cfg.d_head) if cfg.scale_scores else 1.0)
    if work.visible:
        assert work.scaled == pytest.approx(score / work.divisor, rel=1e-15)
    else:
        assert work.scaled == -math.inf and work.weight == 0.0
    assert np.array_equal(work.head_out, trace.heads[h, i])
    total = sum(analysis.explain_cell(trace, h, i, jj).contribution for jj in range(T))
    assert_close(total, trace.heads[h, i], "Σ_j contributions vs the head's output row")
    assert work.normaliser == pytest.approx(float(np.sum(work.row_exp)), rel=1e-15)


# --------------------------------------------------------------------------- why sqrt(d)
def test_score_variance_grows_with_d_and_scaling_removes_it():
    widths = [16, 32, 64, 128, 256]
    result = experiments.score_variance(widths, samples=4000, seed=0)
    assert list(result["d_head"]) == widths
    for d, raw, scaled in zip(widths, result["raw"], result["scaled"]):
        assert abs(raw / scaled - d) <= 0.2 * d
        assert abs(raw - d) <= 0.2 * d, f"var(q·k) for d={d} is {raw:.1f}, expected about {d}"
        assert abs(scaled - 1) <= 0.2, f"var(q·k/√d) for d={d} is {scaled:.3f}, expected about 1"
    same = experiments.score_variance(widths, samples=4000, seed=0)
    assert np.array_equal(same["raw"], result["raw"])


# --------------------------------------------------------------------------- building blocks
def test_softmax_leaves_its_input_alone_and_accepts_plain_numbers():
    frozen = np.array([[1.0, 2.0, -np.inf], [0.5, 0.5, 0.5]])
    frozen.setflags(write=False)
    copy = frozen.copy()
    out = engine.softmax(frozen)
    assert np.array_equal(frozen, copy, equal_nan=True)
    assert out[0, 2] == 0.0 and out.flags.writeable
    np.testing.assert_allclose(out[0, :2], [1 / (1 + math.e), math.e / (1 + math.e)], rtol=1e-15)
    np.testing.assert_allclose(out[1], [1 / 3] * 3, rtol=1e-15)
    np.testing.assert_allclose(engine.softmax([1, 2, 3]), engine.softmax(np.array([1.0, 2.0, 3.0])), rtol=0)
    np.testing.assert_allclose(engine.softmax(np.array([[0.0], [1e300]]), axis=0), [[0.0], [1.0]])


def test_an_unknown_words_remembered_draw_is_read_only_and_the_same_as_a_fresh_one():
    from engine import tokens

    cfg = engine.get_preset("part4").config
    first = tokens.unknown_word_vector(cfg, "zebra")
    with pytest.raises(ValueError):
        first[0] = 1.0  # the remembered draw cannot be changed in place
    fresh = np.random.RandomState(tokens._word_seed("zebra", cfg.input_seed)).randn(cfg.d_model)
    assert np.array_equal(tokens.unknown_word_vector(cfg, "zebra"), fresh)
