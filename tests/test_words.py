"""Issue 13: every sentence on screen holds at every setting. One block per defect (numbered as the issue
numbers them), each at the settings where its truth turns; the words are read from the pure prose
functions and from the pages under AppTest."""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine
import engine.attention
import engine.tokens
from conftest import assert_clean, attention_maps, formulas, open_app, open_exports, tables
from engine import analysis
from ui.charts.attention_map import decoded
from ui.prose import rows as row_words
from ui.prose import text
from ui.prose.numbers import next_to
from ui.shell import session, site, state, url

PAGE = {p.path: p.file for p in site.PAGES}


def run(params: dict[str, str]) -> engine.Trace:
    """The trace the sidebar makes of these URL parameters."""
    c, _ = url.from_params(params)
    return engine.run(state.to_config(c), state.to_tokens(c).words).layers[0]


def notice(at) -> str:
    """The page's 'what to notice' line, Markdown escapes removed."""
    texts = [s.value for s in at.success if "What to notice" in s.value]
    assert len(texts) == 1, texts
    return texts[0].replace("\\", "")


def column(at, name: str, table: int = 0) -> list:
    """A table column as the student reads it (Markdown escapes removed from text cells)."""
    return [x.replace("\\", "") if isinstance(x, str) else x for x in tables(at)[table][name]]


def text_of(at) -> str:
    """Every sentence a student can read on the page (Markdown escapes removed)."""
    parts = []
    for kind in ("title", "subheader", "markdown", "caption", "success", "info", "warning", "latex"):
        parts += [str(e.value) for e in getattr(at, kind)]
    for m in at.metric:
        parts += [str(m.label), str(m.value)]
    return "\n".join(parts).replace("\\", "")


# =========================================================================== 5 · softmax notice
@pytest.mark.parametrize(
    "params",
    [{"preset": "day33"}, {"seq_len": "64"}, {"preset": "day33", "seq_len": "64"}],
    ids=["day33", "part4-64", "day33-64"],
)
def test_defect05_near_uniform_rows_name_no_winner(params):
    at = open_app(PAGE["softmax"], params)
    assert_clean(at)
    said = notice(at)
    assert "spread almost evenly" in said and "untrained weights" in said
    assert "attends most to" not in said and "A uniform row would give every key" not in said
    assert "0.98" in said  # the threshold is stated
    assert set(column(at, "attends most to")) == {"none: spread evenly"}


def test_defect05_mask_forced_row_and_per_row_uniform():
    at = open_app(PAGE["softmax"], {"causal": "1", "d_model": "128", "heads": "1", "d_ff": "512"})
    said = notice(at)
    assert "‘AI’ sees only itself under the causal mask, so its weight 1 is forced, not a finding" in said
    assert "every key 0.25" not in said and "‘AI’ attends most to ‘AI’" not in said
    table = tables(at)[0]
    assert table["keys"].astype(int).tolist() == [1, 2, 3, 4]
    assert np.allclose(table["uniform"].astype(float), [1, 1 / 2, 1 / 3, 1 / 4], atol=5e-5)  # 4 decimals
    assert column(at, "attends most to")[0] == "(its only key)"


def test_defect05_a_leaning_row_is_named_with_its_own_uniform():
    t = run({"d_model": "128", "heads": "1", "d_ff": "512"})  # trained-looking: scores spread 1.7
    rows = analysis.read_rows(t.weights[0], t.visible)
    assert any(r.kind == "lean" for r in rows)
    said = row_words.softmax_notice(rows, t.labels)
    assert "attends most to" in said and "uniform for its 4 keys is 0.250" in said


def test_defect05_ties_are_named():
    """Day 33 at 6 tokens pads with a second 'the': keys 0 and 5 are the same vector, their weights tie."""
    t = run({"preset": "day33", "seq_len": "6"})
    sharp = analysis.weights_at(t.scaled[0], 16.0)
    rows = analysis.read_rows(sharp, t.visible)
    assert rows[3].top == (0, 5) and rows[3].kind == "lean"
    said = row_words.softmax_notice(rows, t.labels, beta=16.0, quote=text.plain)
    assert "‘the (0)’ and ‘the (5)’, tied at" in said
    assert row_words.top_cell(rows[3], t.labels) == "the (0) = the (5) (tie)"


def test_defect05_a_hidden_key_is_never_named():
    weights = np.array([[1.0, 0.0, 0.0], [0.2, 0.8, 0.0], [0.1, 0.1, 0.8]])
    visible = engine.attention.causal_visible(3)
    rows = analysis.read_rows(weights, visible)
    assert [r.top for r in rows] == [(0,), (1,), (2,)] and [r.keys for r in rows] == [1, 2, 3]
    uniform_with_hidden = np.array([[0.5, 0.5, 0.0]] * 3)  # hidden key 2 ties at 0 with nothing
    assert all(2 not in r.top for r in analysis.read_rows(uniform_with_hidden, np.array([[1, 1, 0]] * 3, bool)))


# =========================================================================== β on the softmax page
def _oracle(scaled_row, beta):
    """softmax(β s) for one row with math.exp; a hidden key (-inf) gets 0."""
    import math

    seen = [s for s in scaled_row if s != -math.inf]
    top = max(beta * s for s in seen)
    e = [0.0 if s == -math.inf else math.exp(beta * s - top) for s in scaled_row]
    return [x / sum(e) for x in e]


@pytest.mark.parametrize("params", [{}, {"preset": "day33", "causal": "1"}, {"scale": "0", "seq_len": "7"}])
@pytest.mark.parametrize("beta", state.BETAS)
def test_beta_weights_are_the_softmax_of_beta_times_the_scaled_scores(params, beta):
    t = run(params)
    for h in range(t.num_heads):
        w = analysis.weights_at(t.scaled[h], beta)
        expected = [_oracle(row.tolist(), beta) for row in t.scaled[h]]
        np.testing.assert_allclose(w, expected, rtol=1e-12, atol=1e-15)
        assert np.all(w[~t.visible] == 0.0)  # hidden keys stay hidden, β = 0 too
    np.testing.assert_allclose(
        analysis.weights_at(t.scaled, 1.0), t.weights, rtol=1e-12, atol=1e-15
    )  # β = 1: the model
    if beta == 0:
        np.testing.assert_allclose(analysis.weights_at(t.scaled[0], 0.0).max(-1), 1 / t.visible.sum(-1))


def test_beta_is_refused_when_negative_or_not_finite():
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="beta"):
            analysis.weights_at(np.zeros((2, 2)), bad)


def test_beta_travels_in_the_url_and_is_validated():
    c = state.Controls(beta=4.0)
    assert url.to_params(c) == {"beta": "4"} and url.from_params({"beta": "4"}) == (c, [])
    assert url.to_params(state.Controls()) == {}  # β = 1 is the default: not written
    back, problems = url.from_params({"beta": "3"})
    assert back.beta == 1.0 and problems == [
        "beta='3' is not valid (must be one of 0, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64)"
    ]


def test_beta_slider_sharpens_the_rows_live_and_keeps_its_value():
    at = open_app(PAGE["softmax"], {"preset": "day33", "seq_len": "6"})
    t = run({"preset": "day33", "seq_len": "6"})
    flat = [float(x) for x in tables(at)[0]["entropy (bits)"]]
    np.testing.assert_allclose(flat, engine.attention.row_entropy(t.weights[0]), atol=5e-4)
    sent = decoded(next(e for e in at.get("bidi_component") if e.key == "softmax_map"))
    assert sent["frame"] == state.BETAS.index(1.0) and len(sent["frames"]) == len(state.BETAS) == 10
    assert sent["frameLabels"][7] == "β = 16" and sent["scrub"]["param"] == "beta"
    assert sent["frames"][7][0]["title"] == "weights at β = 16, head 0: 6 × 6"
    at.session_state["beta"] = 16.0  # what the β control's release sets (its callback; the browser test drags it)
    at.run()
    assert_clean(at)
    assert dict(at.query_params) == {"preset": "day33", "seq_len": "6", "beta": "16"}
    sharp = [float(x) for x in tables(at)[0]["entropy (bits)"]]
    np.testing.assert_allclose(sharp, engine.attention.row_entropy(analysis.weights_at(t.scaled[0], 16.0)), atol=5e-4)
    assert all(s < f for s, f in zip(sharp, flat))
    said = notice(at)
    assert said.startswith("**What to notice:** at β = 16 (the model uses β = 1), ")
    assert "tied at" in said  # the two 'the' keys
    first = attention_maps(at)[0]
    assert first["data"]["frame"] == 7 and first["title"] == "weights at β = 16, head 0: 6 × 6"
    at.switch_page(PAGE["scores"]).run()
    assert dict(at.query_params)["beta"] == "16"
    at.switch_page(PAGE["softmax"]).run()
    assert at.session_state["beta"] == 16.0
    at.session_state["beta"] = 0.0
    at.run()
    assert set(column(at, "attends most to")) == {"none: spread evenly"}  # β = 0: uniform rows


# =========================================================================== 1 · Q, K, V notice
OLD_QKV = ("point the most in the same direction", "will be the brightest")


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"preset": "day33"},
        {"causal": "1"},
        {"seq_len": "2", "seed": "5"},
        {"scale": "0"},
        {"heads": "16", "seq_len": "9"},
    ],
)
def test_defect01_qkv_notice_separates_dot_product_and_direction(params):
    t = run(params)
    c, _ = url.from_params(params)
    at = open_app(PAGE["qkv"], params)
    assert_clean(at)
    said = notice(at)
    assert not any(old in said for old in OLD_QKV)
    i, j, top = analysis.largest(t.scores[c.head], t.visible)
    assert t.visible[i, j]  # never a hidden pair
    assert f"query ‘{t.labels[i]}’ with key ‘{t.labels[j]}’: q·k = {top:.3f}" in said
    cos = analysis.cosines(t.q, t.k)[c.head]
    ci, cj, best = analysis.largest(cos, t.visible)
    aligned, _ = analysis.largest_all(cos, t.visible)  # issue 32: pairs tied at the top count
    if [(i, j)] == aligned:
        assert "also the pair whose vectors point most the same way" in said
    elif (i, j) in aligned:
        assert f"as much the same way as any pair's (cos θ = {best:.3f}, a tie with {len(aligned) - 1} other" in said
    else:
        assert f"pointing most the same way is ‘{t.labels[ci]}’ with ‘{t.labels[cj]}’ (cos θ = {best:.3f}" in said
    assert ("Every q·k here is negative" in said) == (top < 0)


def test_defect01_the_mask_hides_the_raw_largest_pair():
    t = run({"causal": "1"})
    i, j, _ = analysis.largest(t.scores[0])
    assert j > i, "the unmasked largest q·k is a hidden pair at this setting (the old notice named it)"
    said = notice(open_app(PAGE["qkv"], {"causal": "1"}))
    assert f"query ‘{t.labels[i]}’ with key ‘{t.labels[j]}’" not in said
    assert "among the pairs the causal mask lets through" in said


def test_defect01_largest_q_dot_k_at_two_tokens_can_be_negative():
    t = run({"seq_len": "2", "seed": "5"})
    assert analysis.largest(t.scores[0])[2] < 0


def test_cosines_match_a_plain_formula():
    t = run({"seq_len": "5"})
    q, k = t.q[1], t.k[1]
    plain = [[float(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)) for b in k] for a in q]
    np.testing.assert_allclose(analysis.cosines(t.q, t.k)[1], plain, rtol=1e-12)


# =========================================================================== 4 · Q, K, V intro
def test_defect04_same_word_same_rows_only_without_positions():
    text = "the cat saw the dog"
    plain = open_app(PAGE["qkv"], {"text": text, "seq_len": "5"})
    with_p = open_app(PAGE["qkv"], {"text": text, "seq_len": "5", "positional": "1"})
    intro = lambda at: next(m.value for m in at.markdown if "Each token enters" in m.value)  # noqa: E731
    assert "The same word always gets the same rows" not in intro(plain) + intro(with_p)
    assert "Without positions the same word therefore always gets the same rows" in intro(plain)
    assert "With positions on, the same word at two places has two different inputs" in intro(with_p)
    t = run({"text": text, "seq_len": "5", "positional": "1"})
    assert not np.allclose(t.q[:, 0], t.q[:, 3])  # the two 'the' rows differ with P
    assert np.allclose(run({"text": text, "seq_len": "5"}).q[:, 0], run({"text": text, "seq_len": "5"}).q[:, 3])


# =========================================================================== 2 · scaled scores, intro
def test_defect02_intro_does_not_promise_a_spread_near_one():
    for params, std in (({}, "0.19"), ({"preset": "day33"}, "0.06")):
        at = open_app(PAGE["scores"], params)
        assert_clean(at)
        intro = next(m.value for m in at.markdown if "A score is" in m.value)
        assert "keeps their spread near 1 however wide" not in intro
        assert "large when the two vectors point the same way" not in intro
        assert "stops the spread from growing" in intro and "only when the entries of q and k have variance 1" in intro
        assert f"block's scaled scores spread with std {std}" in intro  # measured: far from 1
    t = run({})
    assert abs(np.std(t.scaled) - 0.19) < 0.01


# =========================================================================== 3 · scaled scores, notice
@pytest.mark.parametrize(
    "params, must, must_not",
    [
        ({}, "keeps the order within each row and shrinks the spread", "changes nothing"),
        ({"scale": "0"}, "Scaling is switched off, so nothing is divided", "÷"),
        (
            {"heads": "16", "d_model": "16"},
            "With d_head = 1 the divisor is √1 = 1, so the division changes nothing",
            "shrinks",
        ),
        ({"preset": "day33", "seed": "95", "seq_len": "2", "d_model": "8"}, "÷ √8", "−0.000"),
    ],
)
def test_defect03_scores_notice_holds_at_every_setting(params, must, must_not):
    at = open_app(PAGE["scores"], params)
    assert_clean(at)
    said = notice(at)
    assert must in said and must_not not in said
    assert "It only narrows the spread" not in said and not re.search(
        r"-0\.0+(?![\d])", said
    )  # no −0; −0.000483 is fine
    if params.get("scale") == "0":
        assert "÷ √" not in attention_maps(at)[1]["title"]


def test_defect03_negative_zero_case_exists():
    """Day 33, seed 95, 2 tokens: the largest scaled score rounds to zero from below."""
    t = run({"preset": "day33", "seed": "95", "seq_len": "2"})
    top = analysis.largest(t.scaled[0])[2]
    assert format(top, ".3f") == "-0.000"


# =========================================================================== 6 · per-head spread
@pytest.mark.parametrize("params", [{"preset": "day33"}, {"seq_len": "64"}, {"preset": "day33", "causal": "1"}])
def test_defect06_even_heads_are_called_even_not_focused(params):
    at = open_app(PAGE["heads"], params)
    assert_clean(at)
    said = notice(at)
    assert "focus" not in said and "most focused" not in said
    assert "every row is spread almost evenly" in said and "untrained weights" in said
    assert "How focused" not in text_of(at) and "How evenly is each row spread?" in text_of(at)


def test_defect06_part4_names_its_one_uneven_row_and_counts_the_even_ones():
    said = notice(open_app(PAGE["heads"]))
    assert "the sharpest row is ‘models’ in head 1: spread 0.979" in said
    assert "7 of 8 rows that have a choice are spread almost evenly" in said


def test_defect06_mask_row_zero_is_never_crowned():
    params = {"causal": "1", "d_model": "128", "heads": "4"}
    t = run(params)
    spread = analysis.spread(t.weights, t.visible)
    assert np.isnan(spread[:, 0]).all()  # row 0 sees one key: no spread
    said = notice(open_app(PAGE["heads"], params))
    low = np.nanmin(spread)
    h, i = np.argwhere(spread == low)[0]
    assert f"the sharpest row is ‘{t.labels[i]}’ in head {h}" in said and f"spread {low:.3f}" in said
    assert "‘AI’ in head" not in said


def test_defect06_spread_is_normalised_entropy_over_visible_keys():
    t = run({"causal": "1", "seq_len": "5"})
    s = analysis.spread(t.weights, t.visible)
    for i in range(1, 5):
        w = t.weights[0, i, : i + 1]
        assert s[0, i] == pytest.approx(-(w * np.log2(w)).sum() / np.log2(i + 1), rel=1e-12)
    assert analysis.spread(np.full((1, 3), 1 / 3), np.ones((1, 3), bool))[0] == pytest.approx(1.0)


def test_defect06_tied_sharpest_rows_are_all_named():
    """Two queries with the same word (and no positions) have identical rows: the sharpest tie."""
    spread = np.array([[0.9, 0.5, 0.5, 0.99]])
    said = row_words.spread_notice(spread, ["a", "b", "b ", "c"])
    assert "‘b’ in head 0 and ‘b ’ in head 0 (tied, 2 rows)" in said


# =========================================================================== 7 · block output formulas
def test_defect07_output_formula_follows_the_residual_switch():
    day33 = open_app(PAGE["output"], {"preset": "day33"})
    latex = formulas(day33)
    assert r"\text{output} = \text{hidden}\, W_2 + b_2" in latex and "after\\_attn} + \\text{hidden" not in latex
    part4 = formulas(open_app(PAGE["output"]))
    assert r"\text{output} = \text{after\_attn} + \text{hidden}\, W_2 + b_2" in part4
    with_p = formulas(open_app(PAGE["output"], {"positional": "1"}))
    assert "(X + P) + \\text{attn}" in with_p


def test_defect07_stage_table_gives_the_ffn_its_input():
    from ui.prose import stages

    for params in ({}, {"preset": "day33"}):
        table = {row["stage"]: row["formula"] for row in stages.stages(run(params))}
        assert table["ffn_hidden"] == "max(0, after_attn · W₁ + b₁)"
    assert {r["stage"]: r["formula"] for r in stages.stages(run({"positional": "1"}))}["after_attn"] == "X + P + attn"


# =========================================================================== 8 · block output notice
@pytest.mark.parametrize(
    "params, compare",
    [
        ({}, "small next to"),
        ({"d_model": "128", "heads": "1", "d_ff": "512"}, "1.7 times"),
        ({"preset": "day33"}, None),
    ],
)
def test_defect08_ffn_against_residual_is_computed_not_asserted(params, compare):
    t = run(params)
    said = notice(open_app(PAGE["output"], params))
    assert "small next to the inputs carried through the residual path" not in said
    if compare is None:
        assert "without residuals" in said and "residual path" not in said
        return
    moved, carried = np.abs(t.output - t.after_attn).mean(), np.abs(t.after_attn).mean()
    assert f"moved the vectors by {moved:.3f} on average per entry, {compare} the {carried:.3f}" in said
    assert next_to(moved / carried) == compare  # the one scale of magnitude words


# =========================================================================== 9 · the exercise's default token
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"preset": "day33"},
        {"preset": "day33", "seq_len": "3"},
        {"text": "one two three four five six", "seq_len": "4"},
    ],
)
def test_defect09_default_token_is_what_the_slider_appends(params):
    at = open_app(PAGE["exercise"], params)
    assert_clean(at)
    c, _ = url.from_params(params)
    T = c.seq_len
    slid = state.to_tokens(state.Controls(**{**c.__dict__, "seq_len": T + 1})).words
    assert slid[:T] == state.to_tokens(c).words  # the slider keeps the first T tokens
    cfg = state.to_config(c)
    kind = at.radio(key="ex_token_kind").value
    chosen = at.number_input(key="ex_token_id").value if kind == "id" else at.text_input(key="ex_token_word").value
    assert engine.tokens.label(cfg, chosen) == slid[T]
    said = text_of(at)
    assert "documented" not in said
    assert f"appends when moved from {T} to {T + 1}" in said and "this app's choice" in said


def test_defect09_day33_default_is_the_and_both_runs_agree():
    at = open_app(PAGE["exercise"], {"preset": "day33"})
    assert at.number_input(key="ex_token_id").value == 2  # 'the'
    day33 = engine.get_preset("day33")
    assert (
        engine.tokens.label(day33.config, day33.next_token) == state.next_word(state.preset_controls("day33")) == "the"
    )
    part4 = engine.get_preset("part4")
    assert part4.next_token == state.next_word(state.preset_controls("part4"))
    # the exercise's 6-token run is the 6-token run of the slider
    six = run({"preset": "day33", "seq_len": "6"})
    ext = analysis.extend(day33.config, ["the", "cat", "sat", "on", "mat"], day33.next_token)
    np.testing.assert_allclose(ext.after.weights, six.weights, rtol=1e-12, atol=1e-15)


def test_defect09_a_new_length_brings_its_own_default():
    at = open_app(PAGE["exercise"], {"text": "one two three four five six", "seq_len": "4"})
    assert at.text_input(key="ex_token_word").value == "five"
    at.slider(key="seq_len").set_value(5).run()
    assert at.text_input(key="ex_token_word").value == "six"
    at.slider(key="seq_len").set_value(6).run()
    assert at.text_input(key="ex_token_word").value == "the"  # the filler list's first word


# =========================================================================== 10 · the exercise's twist and formula
def reveal(at):
    at.button(key="ex_reveal_now").click().run()
    assert_clean(at)
    return at


def test_defect10_formula_counts_from_zero_and_says_masked_scores_are_minus_infinity():
    at = reveal(open_app(PAGE["exercise"], {"preset": "day33"}))
    latex = formulas(at)
    assert r"\sum_{j=0}^{4}" in latex and r"\sum_{j=1}" not in latex
    assert r"s_{ij} = -\infty" in latex
    assert r"e^{s_{i,5}}" in latex and r"s_{i,6}" not in latex and r"(j \le 4" in latex


def test_defect10_positions_twist_with_the_mask_on_says_every_factor_is_one():
    at = reveal(open_app(PAGE["exercise"], {"preset": "day33", "causal": "1"}))
    at.toggle(key="ex_twist_positions").set_value(True).run()
    assert_clean(at)
    said = next(m.value for m in at.markdown if m.value.startswith("With sinusoidal positions")).replace("\\", "")
    assert "(here 1.0000 to 1.0000" not in said and "factors differ" not in said
    assert "every old row keeps its weights exactly (every factor is 1)" in said


def test_defect10_positions_twist_without_the_mask_gives_the_factor_range():
    at = reveal(open_app(PAGE["exercise"], {"preset": "day33"}))
    at.toggle(key="ex_twist_positions").set_value(True).run()
    said = next(m.value for m in at.markdown if m.value.startswith("With sinusoidal positions"))
    assert "here the factors run from" in said and "one factor of its own" in said


# =========================================================================== 11 · experiments: positions
def experiments_at(params: dict[str, str], section: str):
    at = open_app(PAGE["experiments"], params)
    at.segmented_control(key="xp_section").set_value(section).run()
    assert_clean(at)
    return at


def test_defect11_attention_output_is_separated_from_the_residual_carry():
    from engine import experiments as xp

    at = experiments_at({}, "positions")
    said = notice(at)
    pt = xp.positions_test(engine.get_preset("part4").config, engine.get_preset("part4").tokens, 0)
    assert pt.encoded.output_error > 1.9 and pt.encoded.attn_error < 0.05  # 1.961 against 0.049
    assert f"attention's own output by up to {pt.encoded.attn_error:.3f}" in said
    assert "most of that is the position code itself, carried through the residual" in said
    assert f"the outputs by up to {pt.encoded.output_error:.3f};" not in said
    latex = formulas(at)
    assert latex.count(r"\text{ in general}") == 2
    assert "max |attn' − P·attn|" in tables(at)[0].columns


def test_defect11_no_residual_says_so():
    said = notice(experiments_at({"preset": "day33"}, "positions"))
    assert "this preset has no residual" in said and "carried through the residual" not in said
    assert "by at most exactly 0" not in said


# =========================================================================== 12 · experiments: init scale
def test_defect12_slider_and_formula_agree_on_the_temperature():
    at = experiments_at({}, "init")
    label = at.select_slider(key="xp_init").label
    assert "works like 1 / temperature" not in label and "s², an inverse temperature" in label
    latex = formulas(at)
    assert r"\beta = s^2" in latex and r"\text{temperature} = 1/s^2" in latex
    assert "That is the Part 4 preset as published" in notice(at)


@pytest.mark.parametrize(
    "params", [{"causal": "1"}, {"d_model": "16", "heads": "16"}, {"seq_len": "2"}, {"scale": "0"}, {"seed": "7"}]
)
def test_defect12_published_only_at_the_published_settings(params):
    said = notice(experiments_at(params, "init"))
    assert "Part 4 preset as published" not in said


def test_defect12_published_only_at_the_presets_own_scale():
    at = experiments_at({}, "init")
    at.select_slider(key="xp_init").set_value(0.03).run()
    assert "Part 4 preset as published" not in notice(at)


# =========================================================================== 13 · experiments: intro
def test_defect13_intro_says_what_each_article_divides_by():
    at = open_app(PAGE["experiments"])
    intro = next(m.value for m in at.markdown if "Three choices" in m.value or "The articles divide" in m.value)
    assert "The articles divide the scores by √d_head" not in intro
    assert "Day 33 divides by √d_model" in intro and "Part 4 writes √d_k" in intro
    assert "which is √d_head with its single head" in intro


# =========================================================================== 14 · grammar
def test_defect14_inputs_notice_counts_and_positions():
    one = notice(open_app(PAGE["inputs"], {"text": "the cat saw the dog", "seq_len": "5"}))
    assert "1 token repeats an earlier word" in one and "1 repeat an" not in one
    assert "position code" not in one
    two = notice(open_app(PAGE["inputs"], {"text": "a a a b", "seq_len": "4", "positional": "1"}))
    assert "2 tokens repeat an earlier word" in two and "makes every row of X + P different" in two
    distinct = notice(open_app(PAGE["inputs"], {"positional": "1"}))
    assert "until the position code P makes each row unique" not in distinct
    assert "every row of X is different, and so is every row of X + P" in distinct


def test_defect14_two_tokens_are_both_never_all_2():
    said = notice(experiments_at({"seq_len": "2"}, "mask"))
    assert "by the time both tokens are there" in said and "all 2" not in said
    at = reveal(open_app(PAGE["exercise"], {"seq_len": "2"}))
    out = next(m.value for m in at.markdown if "old output rows changed" in m.value)
    assert out.startswith("Both old output rows changed") and "All 2" not in out


def test_defect14_no_possessive_on_a_quoted_token_and_no_exactly_zero():
    at = reveal(open_app(PAGE["exercise"]))
    said = text_of(at)
    assert "’'s" not in said and "’s value" not in said
    assert "and the value vector of ‘the’ now takes a share of that sum" in said
    mask = notice(experiments_at({}, "mask"))
    assert "exactly 0" not in mask and "by at most exactly" not in mask
    assert "change not at all" in mask or "change only by rounding" in mask


def test_every_and_names():
    from ui.prose.numbers import every, names

    assert [every(n, "row") for n in (1, 2, 3)] == ["the only row", "both rows", "all 3 rows"]
    assert [names(x) for x in (["a"], ["a", "b"], ["a", "b", "c"])] == ["a", "a and b", "a, b and c"]


# =========================================================================== no page says these, anywhere
FORBIDDEN = {
    "negative zero": re.compile(r"[−-]0(\.0+)?(?![.\d]*[1-9])(?![\d.])"),
    "'1 <plural>'": re.compile(
        r"(?<![\d.,])1 (?:text\{)?(rows|tokens|keys|heads|words|values|repeat |columns|queries)\b"
    ),
    "'all 2'": re.compile(r"\ball 2\b", re.IGNORECASE),
    "'exactly 0' as an amount": re.compile(r"at most exactly"),
    "possessive on a quote": re.compile(r"[’']'s"),
}
SETTINGS = [
    {},
    {"preset": "day33"},
    {"seq_len": "2", "seed": "5"},
    {"preset": "day33", "seed": "95", "seq_len": "2"},
    {"causal": "1", "positional": "1", "scale": "0"},
    {"d_model": "16", "heads": "16", "seq_len": "9"},
    {"preset": "day33", "seq_len": "6", "beta": "16"},
    {"seq_len": "64", "causal": "1"},
]


def table_text(at) -> str:
    return "\n".join(" ".join(map(str, t.astype(str).to_numpy().ravel())) for t in tables(at))


def bad_words(text: str) -> list[tuple[str, str]]:
    return [
        (name, m.group(0) + " in …" + text[max(0, m.start() - 60) : m.end() + 20] + "…")
        for name, rx in FORBIDDEN.items()
        for m in rx.finditer(text)
    ]


def test_the_scan_catches_what_it_must():
    assert bad_words("-0.000 and −0.00") and bad_words("All 2 old output rows") and bad_words("1 rows")
    assert bad_words("to 1 text{heads}times")  # LaTeX, its backslashes removed
    assert bad_words("‘today’'s value") and bad_words("by at most exactly 0")
    assert not bad_words("-0.001, −0.100, 10 rows, 21 rows, 1.0 rows? no: 0.1 keys, e-0.5, 1e-05")


@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults")
def test_no_page_says_a_forbidden_phrase(params):
    found = []
    for page in site.PAGES:
        at = open_app(page.file, params, timeout=60)
        assert_clean(at)
        texts = [text_of(at) + "\n" + table_text(at).replace("\\", "")]
        if page.path == "exercise":
            at.button(key="ex_reveal_now").click().run()
            for twist in ("causal", "positions"):
                at.toggle(key=f"ex_twist_{twist}").set_value(True).run()
            texts.append(text_of(at) + "\n" + table_text(at).replace("\\", ""))
        if page.path == "experiments":
            for section in ("init", "positions", "mask"):
                at.segmented_control(key="xp_section").set_value(section).run()
                texts.append(text_of(at) + "\n" + table_text(at).replace("\\", ""))
        found += [(page.path, *hit) for text in texts for hit in bad_words(text)]
    assert not found, found


# =========================================================================== preset facts where a student looks
def sidebar_text(at) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


def test_preset_facts_are_in_the_sidebar():
    day33 = sidebar_text(open_app(None, {"preset": "day33"}))
    assert "Day 33 divides the scores by √d_model, which equals √d_head with its one head." in day33
    assert "a new seed redraws X too" in day33 and "the words for ids 0–9 are this app's labels" in day33
    more = sidebar_text(open_app(None, {"preset": "day33", "heads": "2"}))
    assert "with 2 heads this app divides by √d_head" in more
    part4 = sidebar_text(open_app(None))
    assert "its d_k is d_head here" in part4 and "their own seed, 101" in part4


def test_preset_facts_are_true():
    day33, part4 = engine.get_preset("day33").config, engine.get_preset("part4").config
    assert part4.input_seed == 101 and part4.embedding_stream == "inputs"
    assert day33.embedding_stream == "weights" and day33.num_heads == 1
    x = lambda cfg: engine.run(cfg, ["AI", "builds"] if cfg is part4 else [2, 5]).layers[0].x  # noqa: E731
    assert np.array_equal(x(part4), engine.run(engine.Config(seed=7), ["AI", "builds"]).layers[0].x)  # seed leaves X
    from dataclasses import replace

    assert not np.array_equal(x(day33), engine.run(replace(day33, seed=7), [2, 5]).layers[0].x)  # seed redraws X


# =========================================================================== figures for slides
@pytest.mark.parametrize("page", site.PAGES, ids=lambda p: p.path)
def test_every_page_offers_its_figures_for_slides(page):
    at = open_app(page.file)
    if page.path == "exercise":  # its exports come with the reveal
        at = reveal(at)
    slug = next(k for k in at.session_state if k.startswith("export_"))[len("export_") :]  # the page's own
    assert not [e for e in at.get("bidi_component") if e.key.startswith("figures_")], "drawn once opened"
    panels = [e for e in open_exports(at, slug).get("bidi_component") if e.key.startswith("figures_")]
    assert len(panels) == 1
    assert any("SVG or PNG at 3×" in c.value and "its own Save SVG" in c.value for c in at.caption)
    extra = [
        e
        for e in open_app(page.file, {"present": "1"}).get("bidi_component")
        if e.key != session.SCREEN and not e.proto.component_name.endswith("attention_map")  # the maps themselves
    ]
    assert not extra, "presenter view: nothing extra (the screen measure draws nothing)"


def test_the_figure_panel_is_static_code():
    """No user text reaches the component's HTML or JS: they are module constants (titles are read as text)."""
    from ui.page import figures

    assert "textContent = name" in figures._JS and "innerHTML" not in figures._JS
    assert "{" not in figures._HTML


def test_the_exercises_new_row_follows_the_same_rules():
    from ui.sections.exercise import words as ex

    day33 = engine.get_preset("day33")
    ext = analysis.extend(day33.config, ["the", "cat", "sat", "on", "mat"], day33.next_token)
    said = ex.notice(ext, 0)
    assert "spreads its weight almost evenly over its 6 keys" in said and "attends most to" not in said
    sharp = analysis.extend(
        engine.Config(d_model=128, num_heads=1, d_ff=512), ["AI", "builds", "neural", "models"], "the"
    )
    assert "‘the’ attends most to ‘AI’ (0.576), where a uniform row gives 0.200" in ex.notice(sharp, 0)
    masked = analysis.extend(engine.Config(causal=True), ["AI", "builds", "neural", "models"], "the")
    assert "where ‘the’ spreads its weight almost evenly" in ex.sentences(masked, 0)[1]


# ========================================================================== the rules, at every setting where they turn
TURNS = [
    {},
    {"preset": "day33"},
    {"causal": "1"},
    {"preset": "day33", "causal": "1"},
    {"scale": "0"},
    {"d_model": "128", "heads": "1"},
    {"d_model": "128", "heads": "1", "scale": "0"},
    {"d_model": "16", "heads": "16"},
    {"seq_len": "2"},
    {"seq_len": "64"},
    {"preset": "day33", "seq_len": "64"},
    {"preset": "day33", "seq_len": "6", "beta": "16"},
    {"d_model": "128", "heads": "1", "causal": "1", "seq_len": "7"},
]


@pytest.mark.parametrize("params", TURNS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults")
def test_softmax_and_heads_notices_follow_the_rules(params):
    c, _ = url.from_params(params)
    t = run(params)
    w = analysis.weights_at(t.scaled[c.head], c.beta)
    rows = analysis.read_rows(w, t.visible)
    said = notice(open_app(PAGE["softmax"], params))
    lean = [i for i, r in enumerate(rows) if r.kind == "lean"]
    for i, r in enumerate(rows):
        named = f"‘{t.labels[i]}’ attends most to"
        if r.kind != "lean":
            assert named not in said  # even or forced: no winner
        elif i in lean[: row_words.SHOWN]:
            assert named + " " + ", ".join(f"‘{t.labels[j]}’" for j in r.top[:1]) in said
            assert all(t.visible[i, j] for j in r.top)  # never a hidden key
            assert f"uniform for its {r.keys} keys is {1 / r.keys:.3f}" in said
            assert ("tied at" in said) or len(r.top) == 1
    if not lean:
        assert "spread almost evenly" in said and "untrained weights" in said
    if t.config.causal:
        assert "sees only itself under the causal mask, so its weight 1 is forced" in said
    assert "0.98" in said
    spread = analysis.spread(t.weights, t.visible)
    heads = notice(open_app(PAGE["heads"], params))
    if np.nanmin(spread) >= analysis.NEAR_UNIFORM:
        assert "every row is spread almost evenly" in heads and "sharpest" not in heads
    else:
        h, i = np.argwhere(spread == np.nanmin(spread))[0]
        assert f"‘{t.labels[i]}’ in head {h}" in heads and t.visible[i].sum() > 1


def test_the_positions_too_few_to_tell_take_a_verb_that_agrees():
    from ui.prose import preset_notes

    assert "1 position of the 4 (position 1) is scored in fewer than 30" in preset_notes._too_few([50, 10, 50, 0], 4)
    assert "2 positions of the 4 (positions 1–2) are scored" in preset_notes._too_few([50, 10, 12, 0], 4)
    assert preset_notes._too_few([50, 40, 0], 3) == ""
