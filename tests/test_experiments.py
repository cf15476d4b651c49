"""The Experiments page: engine.experiments' numbers, then the page itself through AppTest."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies

import engine
import engine.attention
import engine.tokens
from conftest import assert_clean, loaded_by, open_app, tables
from engine import analysis
from engine import experiments as xp
from ui.prose.numbers import fmt, parse
from ui.shell import site, state, url

PAGE = site.by_path("experiments").file
PART4, DAY33 = engine.get_preset("part4"), engine.get_preset("day33")
ROUNDING = 1e-12
FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# =========================================================================== engine: 1 · why √d_head
def test_variance_ratio_is_d_head_within_20_percent():
    curve = xp.variance_curve(xp.D_HEADS, xp.SAMPLES, xp.SEED)
    wide = curve.d_head >= 16
    assert wide.sum() == 6  # 16 … 512
    assert np.all(np.abs(curve.ratio[wide] / curve.d_head[wide] - 1) <= 0.2), curve.ratio


def test_measured_variances_follow_the_theory():
    """Not only the ratio: raw ≈ d_head and scaled ≈ 1 on their own, at every width."""
    curve = xp.variance_curve()
    assert np.all(np.abs(curve.raw / curve.d_head - 1) <= 0.2), curve.raw
    assert np.all(np.abs(curve.scaled - 1) <= 0.2), curve.scaled
    assert np.allclose(curve.raw_off, curve.raw / curve.d_head - 1)
    assert curve.raw[-1] > 100 * curve.raw[0]  # it really grows with the width


def test_variance_curve_is_seeded_and_tabulated():
    a, b = xp.variance_curve((1, 64), 500, 3), xp.variance_curve((1, 64), 500, 3)
    assert np.array_equal(a.raw, b.raw) and np.array_equal(a.scaled, b.scaled)
    rows = a.long_table()
    assert len(rows) == 2 * 4
    theory = {(r["d_head"], r["series"]): r["variance"] for r in rows if r["kind"] == "theory"}
    assert theory == {(1, xp.RAW): 1.0, (1, xp.SCALED): 1.0, (64, xp.RAW): 64.0, (64, xp.SCALED): 1.0}
    assert a.index(64) == 1
    with pytest.raises(ValueError, match="was not measured"):
        a.index(3)


def test_random_rows_become_one_hot_without_the_division():
    wide, narrow = xp.random_rows(512, 4), xp.random_rows(1, 4)
    assert wide.raw_peak > 0.9 and wide.raw_one_hot > 0.8  # std √512 ≈ 22.6: a near-argmax
    assert wide.scaled_peak < 0.7 and wide.scaled_one_hot < 0.05
    assert abs(wide.raw_std / np.sqrt(512) - 1) < 0.1 and abs(wide.scaled_std - 1) < 0.1
    assert narrow.raw_peak == narrow.scaled_peak  # √1 = 1: the division does nothing
    assert narrow.uniform == 0.25
    with pytest.raises(ValueError):
        xp.random_rows(0, 4)


def test_nearly_one_hot_flips_with_large_weights_and_no_scaling():
    cfg, tokens = PART4.config, PART4.tokens
    soft = xp.scaling_rows(cfg, tokens)  # the preset's own ×0.1
    assert soft.init_scale == 0.1 and soft.one_hot_count == (0, 0)
    hard = xp.scaling_rows(cfg, tokens, 10.0)
    assert hard.one_hot_unscaled.all() and hard.one_hot_count[1] == hard.choice_rows == 8
    middle = xp.scaling_rows(cfg, tokens, 0.3)  # the division decides here
    assert middle.one_hot_count[1] > middle.one_hot_count[0]


def test_part4_small_weights_give_almost_uniform_rows():
    r = xp.scaling_rows(PART4.config, PART4.tokens)
    scaled, _ = r.mean_peak
    assert r.uniform_peak == 0.25
    assert scaled < 1.25 * r.uniform_peak  # the page's "almost uniform" rule
    assert np.all(r.entropy_scaled > 0.95 * r.entropy_uniform)


def test_rows_match_the_trace():
    r = xp.scaling_rows(DAY33.config, DAY33.tokens, 3.0)
    assert r.scaled.config.scale_scores and not r.unscaled.config.scale_scores
    assert r.scaled.config.init_scale == r.unscaled.config.init_scale == 3.0
    assert np.allclose(r.peak_scaled, r.scaled.weights.max(axis=-1))
    assert np.allclose(r.entropy_unscaled, engine.attention.row_entropy(r.unscaled.weights))
    assert np.allclose(r.entropy_uniform, np.log2(DAY33.config.vocab_size / 2))  # 5 keys, no mask


@pytest.mark.parametrize("preset", [PART4, DAY33], ids=["part4", "day33"])
def test_init_scale_acts_as_an_inverse_temperature(preset):
    """Q and K are linear in the weights: every score grows exactly with s²."""
    base = xp.scaling_rows(preset.config, preset.tokens)
    for s in (0.01, 3.0):
        r = xp.scaling_rows(preset.config, preset.tokens, s)
        assert r.score_factor == pytest.approx((s / preset.config.init_scale) ** 2)
        assert np.allclose(r.scaled.scores, r.score_factor * base.scaled.scores, rtol=1e-9, atol=1e-12)


def test_one_hot_ignores_rows_with_a_single_visible_key():
    cfg = replace(PART4.config, causal=True)
    r = xp.scaling_rows(cfg, PART4.tokens, 0.01)
    assert np.all(r.peak_scaled[:, 0] == 1.0)  # row 0 sees only itself
    assert not r.one_hot_scaled[:, 0].any()
    assert r.choice_rows == 2 * 3
    weights = np.array([[1.0, 0.0], [0.95, 0.05]])
    assert xp.nearly_one_hot(weights).tolist() == [True, True]
    assert xp.nearly_one_hot(weights, engine.attention.causal_visible(2)).tolist() == [False, True]


def test_init_sweep_grows_from_uniform_to_one_hot():
    sweep = xp.init_sweep(PART4.config, PART4.tokens)
    assert sweep.init_scale.tolist() == list(xp.INIT_SCALES)
    for peak in (sweep.peak_scaled, sweep.peak_unscaled):
        assert np.all(np.diff(peak) >= -1e-9)  # sharper with every step
        assert peak[0] == pytest.approx(sweep.uniform_peak, abs=0.01) and peak[-1] > 0.99
    assert np.all(sweep.peak_unscaled >= sweep.peak_scaled - 1e-12)
    assert sweep.one_hot_unscaled[-1] == 1.0 and sweep.one_hot_scaled[0] == 0.0
    assert {row["series"] for row in sweep.long_table()} == {"÷ √d_head", "raw (no ÷√d)", "uniform rows"}


# =========================================================================== engine: 2 · why positions
@pytest.mark.parametrize("preset", [PART4, DAY33], ids=["part4", "day33"])
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_shuffle_is_invisible_without_positions_and_visible_with_them(preset, seed):
    pt = xp.positions_test(preset.config, preset.tokens, seed)
    T = len(preset.tokens)
    assert sorted(pt.perm.tolist()) == list(range(T)) and pt.perm.tolist() != list(range(T))
    assert pt.plain.weights_error <= ROUNDING and pt.plain.output_error <= ROUNDING
    assert np.max(np.abs(pt.weight_diff(pt.plain))) <= ROUNDING  # the un-permuted difference
    assert np.max(pt.row_output_error(pt.plain)) <= ROUNDING
    assert pt.encoded.weights_error > 1e-3 and pt.encoded.output_error > 1e-3
    assert np.max(np.abs(pt.weight_diff(pt.encoded))) == pytest.approx(pt.encoded.weights_error)
    assert pt.plain.original.config.positional == "none"
    assert pt.encoded.original.config.positional == "sinusoidal"


def test_positions_test_switches_the_mask_off_and_measures_it():
    cfg = replace(PART4.config, causal=True)
    pt = xp.positions_test(cfg, PART4.tokens, 0)
    assert not pt.plain.original.config.causal and not pt.encoded.original.config.causal
    assert pt.plain.weights_error <= ROUNDING
    assert pt.masked.original.config.causal and pt.masked.weights_error > 1e-3  # a mask knows order too


def test_back_and_biggest_change():
    pt = xp.positions_test(PART4.config, PART4.tokens, 0)
    assert np.array_equal(pt.perm[pt.inverse], np.arange(4))
    assert np.allclose(pt.back(pt.plain), pt.plain.original.weights, atol=ROUNDING)
    i, j, before, after = pt.biggest_change(pt.encoded, 0)
    assert before == pt.encoded.original.weights[0, i, j]
    assert abs(after - before) == pytest.approx(np.max(np.abs(pt.weight_diff(pt.encoded)[0])))


def test_encoding_is_shown_for_at_least_32_positions():
    short = xp.positions_test(PART4.config, PART4.tokens, 0)
    assert short.encoding.shape == (32, 16)
    assert np.array_equal(short.encoding[:4], short.encoded.original.positions)
    long_words = engine.tokens.fit_length([], 40)[0]
    assert xp.positions_test(PART4.config, long_words, 0).encoding.shape == (40, 16)


def test_repeated_words_differ_only_by_their_positions():
    """Shuffling five copies of one word gives the same sentence: only positions can tell the copies apart."""
    pt = xp.positions_test(PART4.config, ["AI"] * 5, 0)
    assert pt.plain.weights_error <= ROUNDING
    assert np.allclose(pt.plain.original.weights, 0.2)  # identical rows: perfectly uniform
    assert pt.encoded.weights_error > 1e-3


@FEW
@given(
    d_model=strategies.sampled_from([4, 8, 12, 16]),
    T=strategies.integers(2, 9),
    seed=strategies.integers(0, 10_000),
    scale=strategies.booleans(),
    layer_norm=strategies.booleans(),
)
def test_position_free_blocks_are_permutation_equivariant(d_model, T, seed, scale, layer_norm):
    cfg = replace(PART4.config, d_model=d_model, num_heads=2, seed=seed, scale_scores=scale, layer_norm=layer_norm)
    words = engine.tokens.fit_length(["x", "y", "z", "w"], T)[0]
    words = [f"{w}{i}" for i, w in enumerate(words)]  # all different
    pt = xp.positions_test(cfg, words, seed)
    assert pt.plain.weights_error <= ROUNDING and pt.plain.output_error <= 1e-10
    assert pt.encoded.weights_error > 1e-9


# =========================================================================== engine: 3 · why a causal mask
@pytest.mark.parametrize("preset", [PART4, DAY33], ids=["part4", "day33"])
def test_masked_rows_sum_to_one_over_the_visible_keys(preset):
    ct = xp.causal_test(preset.config, preset.tokens)
    visible = ct.masked.visible
    assert np.allclose(ct.row_sums, 1.0, atol=ROUNDING)
    assert np.allclose(np.where(visible, ct.masked.weights, 0).sum(-1), 1.0, atol=ROUNDING)
    assert np.all(ct.masked.weights[:, ~visible] == 0.0) and ct.hidden_weight == 0.0  # exactly 0
    assert ct.renorm_error <= ROUNDING  # past ÷ share
    assert np.nanmax(ct.renorm_row_error) <= ROUNDING
    assert np.allclose(ct.past_share[:, -1], 1.0)  # the last row sees everything
    assert np.all(ct.past_share[:, :-1] < 1.0)


@pytest.mark.parametrize("preset", [PART4, DAY33], ids=["part4", "day33"])
def test_first_rows_never_change_as_tokens_are_appended_under_the_mask(preset):
    ct = xp.causal_test(preset.config, preset.tokens)
    assert np.max(ct.drift_masked) <= ROUNDING and np.max(ct.output_drift_masked) <= ROUNDING
    assert np.all(ct.drift_open[:-1] > 1e-3)  # without it every earlier row moves
    assert ct.drift_open[-1] == 0.0 and ct.output_drift_open[-1] == 0.0
    # the same through the 5 → 6 exercise's own code: one appended token
    ext = analysis.extend(replace(preset.config, causal=True), list(preset.tokens), preset.next_token)
    assert np.max(np.abs(ext.diff)) <= ROUNDING and np.max(ext.output_change) <= ROUNDING


def test_growing_matches_prefix_runs():
    cfg = replace(PART4.config, causal=True, positional="sinusoidal")
    drift, output = xp.growing(cfg, PART4.tokens)
    assert drift.shape == output.shape == (4,)
    assert np.max(drift) <= ROUNDING and np.max(output) <= ROUNDING
    full = engine.run(cfg, PART4.tokens).layers[0]
    prefix = engine.run(cfg, PART4.tokens[:2]).layers[0]
    assert np.allclose(prefix.weights, full.weights[:, :2, :2], atol=ROUNDING)


@FEW
@given(
    d_model=strategies.sampled_from([4, 8, 16]),
    T=strategies.integers(2, 8),
    seed=strategies.integers(0, 10_000),
    positional=strategies.sampled_from(["none", "sinusoidal"]),
    init=strategies.sampled_from([0.1, 1.0, 3.0]),
)
def test_causal_properties_hold_for_any_block(d_model, T, seed, positional, init):
    cfg = replace(PART4.config, d_model=d_model, num_heads=2, seed=seed, positional=positional, init_scale=init)
    ct = xp.causal_test(cfg, engine.tokens.fit_length([], T)[0])
    assert np.allclose(ct.row_sums, 1.0, atol=ROUNDING)
    assert ct.hidden_weight == 0.0
    assert ct.renorm_error <= 1e-9
    assert np.max(ct.drift_masked) <= ROUNDING


def test_experiments_module_stays_pure():
    assert loaded_by("import engine, engine.experiments as x; x.causal_test(engine.Config(), ['AI', 'builds'])") == []


# =========================================================================== the page (AppTest)
SECTIONS = ("scale", "init", "positions", "mask")
EXTREMES = [
    {},
    {"preset": "day33"},
    {"seq_len": "64", "d_model": "128", "heads": "16", "d_ff": "512"},
    {"seq_len": "2", "d_model": "4", "heads": "4"},
    {"causal": "1", "positional": "1", "scale": "0"},
]


def controls_for(params: dict[str, str]):
    """The config and words the sidebar makes of these URL parameters (pure ui.shell.state)."""
    controls, _ = url.from_params(params)
    return state.to_config(controls), state.to_tokens(controls).words, controls


def show(at, section: str):
    at.segmented_control(key="xp_section").set_value(section).run()
    assert_clean(at)
    return at


def notice(at) -> str:
    texts = [s.value for s in at.success if "What to notice" in s.value]
    assert len(texts) == 1, texts
    return texts[0]


def test_page_opens_on_the_first_section():
    at = open_app(PAGE)
    assert_clean(at)
    assert at.segmented_control(key="xp_section").value == "scale"
    assert [h.value for h in at.subheader][0].startswith("1 · ")
    assert at.select_slider(key="xp_dhead").value == 64
    assert "Section 2 shows" in notice(at)
    show(at, "init")
    assert at.select_slider(key="xp_init").value == 0.1  # the Part 4 preset's own ×0.1
    assert "almost uniform" in notice(at) and "Part 4 preset as published" in notice(at)


@pytest.mark.parametrize("params", EXTREMES, ids=["defaults", "day33", "largest", "smallest", "switches"])
def test_every_section_runs_at_defaults_and_extremes(params):
    at = open_app(PAGE, params)
    assert_clean(at)
    for number, section in enumerate(SECTIONS, start=1):
        show(at, section)
        assert any(h.value.startswith(f"{number} · ") for h in at.subheader)
        assert notice(at)


@pytest.mark.parametrize("d_head", [1, 512])
@pytest.mark.parametrize("init", [0.01, 10.0])
def test_slider_extremes_show_the_engines_numbers(d_head, init):
    at = open_app(PAGE)
    at.select_slider(key="xp_dhead").set_value(d_head).run()
    assert_clean(at)
    cfg, words, _ = controls_for({})
    curve = xp.variance_curve(xp.D_HEADS, xp.SAMPLES, xp.SEED)
    rnd = xp.random_rows(d_head, len(words), xp.ROWS, xp.SEED)
    i = curve.index(d_head)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {
        "raw variance": f"{curve.raw[i]:.2f}",
        "scaled variance": f"{curve.scaled[i]:.3f}",
        "max weight, raw": f"{rnd.raw_peak:.3f}",
        "max weight, ÷√d": f"{rnd.scaled_peak:.3f}",
    }
    show(at, "init")
    at.select_slider(key="xp_init").set_value(init).run()
    assert_clean(at)
    r = xp.scaling_rows(cfg, words, init)
    shown = tables(at)[0]
    assert shown["query"].tolist() == list(r.scaled.labels)
    assert np.allclose(shown["entropy ÷√d"].map(parse).astype(float), r.entropy_scaled[0], atol=5e-4)  # 3 decimals
    assert np.allclose(shown["max weight, raw"].map(parse).astype(float), r.peak_unscaled[0], atol=5e-4)
    assert shown["one-hot, raw"].tolist() == ["yes" if x else "no" for x in r.one_hot_unscaled[0]]
    if init == 10.0:
        assert "nearly one-hot" in notice(at)


def test_sliders_keep_their_values_across_sections():
    at = open_app(PAGE)
    at.select_slider(key="xp_dhead").set_value(512).run()
    show(at, "init")
    at.select_slider(key="xp_init").set_value(3.0).run()
    show(at, "mask")
    show(at, "scale")
    assert at.select_slider(key="xp_dhead").value == 512
    show(at, "init")
    assert at.select_slider(key="xp_init").value == 3.0


def test_init_scale_starts_at_the_presets_own_value():
    at = show(open_app(PAGE, {"preset": "day33"}), "init")
    assert at.select_slider(key="xp_init").value == 1.0
    at.select_slider(key="xp_init").set_value(0.03).run()
    at.selectbox(key="preset").set_value("part4").run()  # a new preset: its own ×0.1 again
    assert_clean(at)
    assert at.select_slider(key="xp_init").value == 0.1


def test_positions_section_shows_the_engines_errors_and_shuffles_again():
    at = show(open_app(PAGE), "positions")
    cfg, words, _ = controls_for({})
    for seed in (0, 1):
        pt = xp.positions_test(cfg, words, seed)
        errors = tables(at)[0]
        assert errors.iloc[:, 1].tolist() == [fmt(pt.plain.weights_error, ".3e"), fmt(pt.encoded.weights_error, ".3e")]
        assert errors.iloc[:, 2].tolist() == [fmt(pt.plain.attn_error, ".3e"), fmt(pt.encoded.attn_error, ".3e")]
        assert errors.iloc[:, 3].tolist() == [fmt(pt.plain.output_error, ".3e"), fmt(pt.encoded.output_error, ".3e")]
        assert parse(errors.iloc[0, 1]) <= ROUNDING and parse(errors.iloc[1, 1]) > 1e-3
        outputs = tables(at)[1]
        assert outputs["was at"].astype(int).tolist() == pt.perm.tolist()
        assert any(f"Shuffle {seed}:" in m.value for m in at.markdown)
        at.button(key="xp_shuffle").click().run()
        assert_clean(at)


def test_mask_section_shows_the_engines_rows():
    params = {"preset": "day33", "seq_len": "6"}
    at = show(open_app(PAGE, params), "mask")
    cfg, words, _ = controls_for(params)
    ct = xp.causal_test(cfg, words)
    rows, steps = tables(at)[0], tables(at)[1]
    assert rows["keys it sees"].astype(int).tolist() == list(range(1, 7))
    assert rows["row sum with mask"].tolist() == ["1.000000"] * 6
    assert np.allclose(rows["weight on its past, no mask"].map(parse).astype(float), ct.past_share[0], atol=5e-5)
    assert steps["weights change, no mask"].tolist() == [fmt(x, ".2e") for x in ct.drift_open]
    assert max(float(x) for x in steps["weights change, mask"]) <= ROUNDING


def test_token_text_is_escaped_in_the_notices():
    params = {"text": "*bold* [link](http://example.com) <b>x</b> `code`", "seq_len": "4"}
    at = open_app(PAGE, params)
    for section in SECTIONS:
        show(at, section)
        said = notice(at)
        assert "[link](" not in said and "<b>" not in said
        if section == "positions":  # the shuffled order, quoted and escaped
            assert any("\\*bold\\*" in m.value for m in at.markdown)
