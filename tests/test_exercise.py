"""The T → T+1 token exercise: engine/exercise.py against plain-Python formulas, its words
(ui/sections/exercise/words.py), and the page in AppTest."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

import engine
import engine.tokens
from conftest import assert_clean, loaded_by, open_app, tables
from engine import analysis, exercise
from ui.prose import text
from ui.sections.exercise import words as exercise_words
from ui.sections.exercise import words_new_token as new_token_words
from ui.shell import site

PAGE = site.by_path("exercise").file
FACTOR = "factor Z/(Z+e^s)"
DAY33 = engine.PRESETS["day33"]
PART4 = engine.PRESETS["part4"]


def words_of(preset) -> list[str]:
    return [engine.tokens.label(preset.config, t) for t in preset.tokens]


def plain_factors(cfg, tokens, new, head: int) -> list[float]:
    """Z_i / (Z_i + e^{s_i,new}) from the T+1-token run's q and k with Python loops and math.exp."""
    after = engine.run(cfg, list(tokens) + [new]).layers[0]
    q, k, T = after.q[head].tolist(), after.k[head].tolist(), len(tokens)
    divisor = math.sqrt(cfg.d_head) if cfg.scale_scores else 1.0

    def score(i, j):
        return sum(a * b for a, b in zip(q[i], k[j])) / divisor

    out = []
    for i in range(T):
        z = sum(math.exp(score(i, j)) for j in range(T) if not cfg.causal or j <= i)
        e_new = 0.0 if cfg.causal else math.exp(score(i, T))
        out.append(z / (z + e_new))
    return out


def md(text: str) -> str:
    """A token label as the page writes it in Markdown (every ASCII punctuation mark escaped)."""
    return "".join("\\" + c if c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" else c for c in text)


# --------------------------------------------------------------------------- engine: the numbers
CASES = [
    (DAY33.config, words_of(DAY33), DAY33.next_token),
    (PART4.config, words_of(PART4), PART4.next_token),
    (replace(PART4.config, seed=1), words_of(PART4), "today"),
    (replace(PART4.config, d_model=12, num_heads=3, positional="sinusoidal"), ["a", "b", "c"], "AI"),
    (replace(DAY33.config, scale_scores=False), ["the", "cat"], 5),
]


@pytest.mark.parametrize("cfg, tokens, new", CASES)
def test_factors_equal_the_plain_formula(cfg, tokens, new):
    ext = analysis.extend(cfg, tokens, new)
    for head in range(cfg.num_heads):
        rows = exercise.old_rows(ext, head)
        np.testing.assert_allclose(rows.factor, plain_factors(cfg, tokens, new, head), rtol=1e-12, atol=0)
        np.testing.assert_allclose(rows.lost, ext.after.weights[head, : len(tokens), len(tokens)], atol=1e-15)
        np.testing.assert_allclose(rows.ratio_min, rows.factor, rtol=1e-12)  # new/old is one number per row
        np.testing.assert_allclose(rows.ratio_max, rows.factor, rtol=1e-12)
        np.testing.assert_allclose(rows.z * (1 - rows.factor) / rows.factor, rows.exp_new, rtol=1e-9)
        assert np.all(rows.row_error <= 1e-15)
        table = rows.table()
        assert list(table["query"]) == list(ext.before.labels) and len(table) == 8


@pytest.mark.parametrize("cfg, tokens, new", CASES)
def test_causal_mask_leaves_the_first_rows_identical(cfg, tokens, new):
    ext = analysis.extend(exercise.variant(cfg, "causal"), tokens, new)
    T = len(tokens)
    np.testing.assert_allclose(ext.after.weights[:, :T, :T], ext.before.weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ext.after.output[:T], ext.before.output, rtol=0, atol=1e-12)
    assert np.all(ext.factors == 1.0)
    twist = exercise.twist(analysis.extend(cfg, tokens, new), ext, "causal")
    assert twist.max_row_change <= 1e-12 and twist.output_change <= 1e-12
    assert exercise.outputs(ext).changed == 0
    assert exercise_words.sentences(ext, 0)[0].startswith("No old row lost any attention")
    assert exercise_words.verdict(ext, 0, "unchanged")[0] == "right"
    assert exercise_words.verdict(ext, 0, "own_factor")[0] == "right"  # factor 1 for each row: true, and more
    assert exercise_words.verdict(ext, 0, "same_factor")[0] == "wrong"  # nothing shrinks
    assert exercise_words.right_predictions(ext, 0) == ["unchanged", "own_factor"]


@pytest.mark.parametrize("cfg, tokens, new", CASES)
def test_positions_change_the_inputs_but_keep_the_invariant(cfg, tokens, new):
    plain = analysis.extend(replace(cfg, positional="none"), tokens, new)
    ext = analysis.extend(exercise.variant(cfg, "positions"), tokens, new)
    twist = exercise.twist(plain, ext, "positions")
    assert twist.ratio_error <= 1e-12 and twist.score_change <= 1e-12
    assert twist.input_shift > 0.5  # position 1's code alone moves by ~0.84
    for head in range(cfg.num_heads):
        np.testing.assert_allclose(
            exercise.old_rows(ext, head).factor, plain_factors(ext.before.config, tokens, new, head), rtol=1e-12
        )
    assert "ratio error" in exercise_words.twist_sentence(
        twist, ext
    ) and "already on" not in exercise_words.twist_sentence(twist, ext)
    again = exercise.twist(ext, ext, "positions")
    assert again.already_on and "already on in the sidebar" in exercise_words.twist_sentence(again, ext)


@pytest.mark.parametrize("cfg, tokens, new", CASES)
def test_sentence_names_the_row_that_lost_most(cfg, tokens, new):
    ext = analysis.extend(cfg, tokens, new)
    for head in range(cfg.num_heads):
        lost = [1 - f for f in plain_factors(cfg, tokens, new, head)]
        row = ext.before.labels[lost.index(max(lost))]
        first, second = exercise_words.sentences(ext, head, quote=text.plain)
        assert f"took the most attention from ‘{row}’" in first
        assert f"Appending ‘{ext.after.labels[-1]}’" in first
        assert "ratios" in second and "1 − factor" in second


def test_sentence_explains_a_loser_that_is_not_the_top_scorer():
    """Loss is sigmoid(s − log Z): the row with the highest score need not lose the most."""
    cfg = replace(PART4.config, seed=1)
    ext = analysis.extend(cfg, words_of(PART4), "today")
    rows = exercise.old_rows(ext, 1)
    assert rows.biggest != int(np.argmax(rows.score_new))
    first = exercise_words.sentences(ext, 1)[0]
    assert "from ‘neural’" in first and "‘models’ scores the new key higher" in first


def test_known_day33_numbers():
    """With the article's sentence and '.', the row of 'sat' gives up most (18.7 %)."""
    ext = analysis.extend(DAY33.config, words_of(DAY33), 9)
    rows = exercise.old_rows(ext, 0)
    assert ext.after.labels == ("the", "cat", "sat", "on", "mat", ".")
    assert rows.labels[rows.biggest] == "sat"
    assert rows.factor[2] == pytest.approx(0.813495, abs=1e-6)
    assert exercise_words.notice(ext, 0).startswith("no old row was reshuffled")


def test_verdicts():
    ext = analysis.extend(DAY33.config, words_of(DAY33), 9)
    assert exercise_words.verdict(ext, 0, None)[0] == "none"
    assert exercise_words.verdict(ext, 0, "own_factor")[0] == "right"
    for wrong in ("unchanged", "same_factor", "reorder"):
        status, text = exercise_words.verdict(ext, 0, wrong)
        assert status == "wrong" and text.startswith("Not quite")
    with pytest.raises(ValueError, match="unknown prediction"):
        exercise_words.verdict(ext, 0, "maybe")
    with pytest.raises(ValueError, match="outside 0..0"):
        exercise.old_rows(ext, 1)


def test_outputs_name_the_row_that_moved_most():
    ext = analysis.extend(PART4.config, words_of(PART4), "today")
    out = exercise.outputs(ext)
    change = [math.dist(a, b) for a, b in zip(ext.after.output[:4].tolist(), ext.before.output.tolist())]
    np.testing.assert_allclose(out.change, change, rtol=1e-12)
    assert out.changed == 4
    assert exercise_words.output_sentence(ext, out).startswith(
        f"All 4 old output rows changed: ‘{ext.before.labels[int(np.argmax(change))]}’"
    )


# --------------------------------------------------------------------------- engine: the new token
@pytest.mark.parametrize(
    "kind, value, fragment",
    [
        ("id", 10, "outside the vocabulary"),
        ("id", -1, "outside the vocabulary"),
        ("id", 2.5, "whole-number id"),
        ("id", True, "whole-number id"),
        ("id", None, "choose a vocabulary id"),
        ("id", "3", "choose a vocabulary id"),
        ("word", "", "box is empty"),
        ("word", "   \t", "box is empty"),
        ("word", "two words", "single word"),
        ("word", "x" * 30, "at most 24"),
        ("word", "<b>hi</b>", "looks like HTML"),
        ("word", "<script>alert(1)</script>", "looks like HTML"),
        ("word", "<img src=x onerror=alert(1)>", "single word"),
        ("word", "\u200b", "only invisible characters"),
        ("word", 5, "must be text"),
        ("emoji", "x", "one of"),
    ],
)
def test_bad_new_tokens_are_refused_readably(kind, value, fragment):
    with pytest.raises(ValueError, match=None) as info:
        new_token_words.parse_next_token(DAY33.config, kind, value)
    assert fragment in str(info.value)


def test_good_new_tokens():
    cfg = DAY33.config
    assert new_token_words.parse_next_token(cfg, "id", 9) == 9
    assert new_token_words.parse_next_token(cfg, "id", 3.0) == 3
    assert new_token_words.parse_next_token(cfg, "word", "  today ") == "today"
    assert new_token_words.parse_next_token(cfg, "word", ".") == "."
    assert new_token_words.parse_next_token(cfg, "word", "a<b") == "a<b"  # a lone < is not markup
    assert new_token_words.parse_next_token(cfg, "word", "x" * 24) == "x" * 24
    assert (
        new_token_words.ordinal(6) == "6th"
        and new_token_words.ordinal(2) == "2nd"
        and new_token_words.ordinal(13) == "13th"
    )
    assert (
        new_token_words.ordinal(21) == "21st"
        and new_token_words.ordinal(33) == "33rd"
        and new_token_words.ordinal(112) == "112th"
    )
    with pytest.raises(ValueError, match="twist must be"):
        exercise.variant(cfg, "layer_norm")


def test_exercise_modules_import_no_app_library():
    assert loaded_by("from engine import exercise") == []
    assert loaded_by("from ui.sections.exercise import words") == []


def test_heatmap_marks_the_highlighted_row_and_column():
    from ui.charts.attention_map import payload

    assert payload([np.zeros((4, 4))], list("abcd"), highlight=3)["highlight"] == 3  # its row and column outlined
    assert payload([np.zeros((2, 2))], ["a", "b"])["highlight"] is None


# --------------------------------------------------------------------------- the page
def shown(column) -> np.ndarray:
    """A table column printed with a format spec (sent as text), read back as numbers."""
    return np.array([float(x) for x in column])


def factor_table(at):
    found = [df for df in tables(at) if FACTOR in df.columns]
    assert len(found) == 1, [list(df.columns) for df in tables(at)]
    return found[0]


def reveal(at, prediction: str | None = "own_factor"):
    if prediction is not None:
        at.radio(key="ex_prediction").set_value(prediction).run()
        at.button(key="ex_reveal").click().run()
    else:
        at.button(key="ex_reveal_now").click().run()
    assert_clean(at)
    return at


def all_text(at) -> str:
    parts = [e.value for kind in ("markdown", "caption", "success", "info", "warning") for e in getattr(at, kind)]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("params, T", [({}, 4), ({"preset": "day33"}, 5)])
def test_page_before_reveal_shows_nothing_of_the_longer_run(params, T):
    at = open_app(PAGE, params)
    assert_clean(at)
    assert at.title[0].value == "Exercise: one more token" and f"{T} tokens, so one more makes {T + 1}" in all_text(at)
    assert at.radio(key="ex_prediction").value is None
    assert at.button(key="ex_reveal").disabled  # a prediction first
    assert not at.button(key="ex_reveal_now").disabled
    assert len(tables(at)) == 0 and len(at.metric) == 0
    preset = DAY33 if params else PART4
    factors = plain_factors(preset.config, words_of(preset), preset.next_token, 0)
    text = all_text(at)
    assert not any(f"{f:.4f}" in text for f in factors)
    assert "took the most attention" not in text
    assert f"Nothing of the {T + 1}-token run is shown" in text


@pytest.mark.parametrize("params, preset", [({"preset": "day33"}, DAY33), ({}, PART4), ({"head": "1"}, PART4)])
def test_reveal_shows_the_independent_factors_and_names_the_right_token(params, preset):
    at = reveal(open_app(PAGE, params))
    head = int(params.get("head", 0))
    expected = plain_factors(preset.config, words_of(preset), preset.next_token, head)
    table = factor_table(at)
    # Printed with 6 decimals: the shown text is the number to within half a unit of the last digit.
    np.testing.assert_allclose(shown(table[FACTOR]), expected, rtol=0, atol=5e-7)
    np.testing.assert_allclose(shown(table["new ÷ old, min"]), expected, rtol=0, atol=5e-7)
    assert list(table["query"]) == words_of(preset)
    lost = [1 - f for f in expected]
    loser = words_of(preset)[lost.index(max(lost))]
    new = engine.tokens.display_labels(words_of(preset) + [engine.tokens.label(preset.config, preset.next_token)])[-1]
    sentence = next(m.value for m in at.markdown if "took the most attention" in m.value)
    assert f"Appending ‘{md(new)}’ took the most attention from ‘{md(loser)}’" in sentence
    assert at.success[0].value.startswith("**You predicted:** Each old row is multiplied")
    assert "Right: each row kept its ratios" in at.success[0].value
    assert any("What to notice" in s.value for s in at.success)


def test_lecturer_reveal_without_a_prediction():
    at = reveal(open_app(PAGE, {"preset": "day33"}), prediction=None)
    assert any("without choosing a prediction" in i.value for i in at.info)
    assert len(factor_table(at)) == 5


def test_reveal_resets_when_the_new_token_changes():
    at = reveal(open_app(PAGE, {"preset": "day33"}))
    at.number_input(key="ex_token_id").set_value(4).run()
    assert_clean(at)
    assert len(tables(at)) == 0
    assert any("setup changed" in i.value for i in at.info)
    reveal(at, prediction=None)
    assert "‘dog’" in next(m.value for m in at.markdown if "took the most attention" in m.value)


def test_the_verdict_judges_the_prediction_made_before_the_reveal():
    at = open_app(PAGE, {"preset": "day33"})
    at.text_area(key="ex_guess").input("**bold** <b>x</b> $y$\nsecond line").run()
    reveal(at, prediction="reorder")
    assert at.warning[0].value.startswith("**You predicted:** The order") and "Not quite" in at.warning[0].value
    words = next(m.value for m in at.markdown if m.value.startswith("**Your words:**"))
    assert "\\*\\*bold\\*\\*" in words and "\\<b\\>" in words and "\\$y\\$" in words
    at.radio(key="ex_prediction").set_value("own_factor").run()  # changing it afterwards changes nothing
    assert at.warning[0].value.startswith("**You predicted:** The order")


def test_a_new_preset_brings_its_default_token():
    at = open_app(PAGE)
    assert at.radio(key="ex_token_kind").value == "word" and at.text_input(key="ex_token_word").value == "the"
    at.selectbox(key="preset").set_value("day33").run()
    assert_clean(at)
    assert at.radio(key="ex_token_kind").value == "id" and at.number_input(key="ex_token_id").value == 2
    assert "5 tokens, so one more makes 6" in all_text(at)


def test_typed_word_and_back_to_default():
    at = open_app(PAGE, {"preset": "day33"})
    at.radio(key="ex_token_kind").set_value("word").run()
    assert at.text_input(key="ex_token_word").value == "the"
    at.text_input(key="ex_token_word").input("banana").run()
    reveal(at, prediction=None)
    assert "‘banana’" in next(m.value for m in at.markdown if "took the most attention" in m.value)
    at.button(key="ex_token_default").click().run()
    assert at.radio(key="ex_token_kind").value == "id" and at.number_input(key="ex_token_id").value == 2


@pytest.mark.parametrize(
    "kind, value, fragment",
    [
        ("word", "", "box is empty"),
        ("word", "<script>alert(1)</script>", "looks like HTML markup"),
        ("word", "<b>hi</b>", "looks like HTML markup"),
        ("word", "two words", "single word"),
        ("id", 99, "outside the vocabulary"),
        ("id", -3, "outside the vocabulary"),
    ],
)
def test_bad_new_token_gives_a_readable_warning(kind, value, fragment):
    at = open_app(PAGE, {"preset": "day33"})
    at.radio(key="ex_token_kind").set_value(kind).run()
    if kind == "word":
        at.text_input(key="ex_token_word").input(value).run()
    else:
        at.number_input(key="ex_token_id").set_value(value).run()
    assert_clean(at)
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and fragment in warnings[0], warnings
    assert "<script>" not in warnings[0] and "<b>" not in warnings[0]  # shown escaped, as text
    assert not any(b.key in ("ex_reveal", "ex_reveal_now") for b in at.button)
    assert len(tables(at)) == 0


def test_twists_causal_and_positions():
    at = reveal(open_app(PAGE, {"preset": "day33"}))
    at.toggle(key="ex_twist_causal").set_value(True).run()
    at.toggle(key="ex_twist_positions").set_value(True).run()
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["max change, first 5 rows"] == "0"
    assert float(metrics["ratio error"]) <= 1e-12 and metrics["max change of old scores"] == "0"
    assert at.session_state["causal"] is False  # the sidebar keeps its values
    assert any("With the causal mask" in m.value for m in at.markdown)


def test_sidebar_causal_mask_keeps_every_old_row():
    at = reveal(open_app(PAGE, {"preset": "day33", "causal": "1"}), prediction="unchanged")
    assert list(factor_table(at)[FACTOR]) == ["1.000000"] * 5
    assert "Right: no old query can see the new token" in at.success[0].value
    assert any(m.value.startswith("No old row lost any attention") for m in at.markdown)
    assert any(m.value.startswith("No old output row changed") for m in at.markdown)


@pytest.mark.parametrize(
    "params, T",
    [
        ({"seq_len": "64", "d_model": "128", "heads": "16"}, 64),
        ({"seq_len": "2"}, 2),
        ({"preset": "day33", "seq_len": "12"}, 12),
    ],
)
def test_slider_extremes(params, T):
    at = reveal(open_app(PAGE, params), prediction=None)
    at.toggle(key="ex_twist_causal").set_value(True).run()
    at.toggle(key="ex_twist_positions").set_value(True).run()
    assert_clean(at)
    assert len(factor_table(at)) == T
    assert at.title[0].value == "Exercise: one more token" and f"{T} tokens, so one more makes {T + 1}" in all_text(at)


def test_a_model_that_learned_text_reads_the_typed_word_as_the_sidebar_does():
    task = engine.TASKS["text"]
    cfg, read = task.config, task.read
    assert new_token_words.parse_next_token(cfg, "word", "She", read=read) == "she"  # lowercased, a known token
    assert new_token_words.parse_next_token(cfg, "word", "Zzyzx", read=read) == "<unk>"  # outside the vocabulary
    assert new_token_words.parse_next_token(cfg, "word", "<unk>", read=read) == "<unk>"
    assert new_token_words.parse_next_token(cfg, "word", "Zzyzx") == "Zzyzx"  # without a reader: as typed
    with pytest.raises(ValueError, match=r"read as 3 tokens \(‘\.’ ‘\.’ ‘\.’\): type one of them"):
        new_token_words.parse_next_token(cfg, "word", "...", read=read)
    with pytest.raises(ValueError, match="looks like HTML markup"):  # refused before it is read
        new_token_words.parse_next_token(cfg, "word", "<b>x</b>", read=read)
    said = new_token_words.unknown_note(cfg, " Zzyzx ", "<unk>", read)
    assert (
        said == " ‘Zzyzx’ is not among the 1,000 tokens this model knows, so it reads ‘\\<unk\\>’ there, "
        "as the sidebar does."
    )
    assert (
        new_token_words.unknown_note(cfg, "she", "she", read)
        == new_token_words.unknown_note(cfg, "<unk>", "<unk>", read)
        == ""
    )
    assert new_token_words.unknown_note(cfg, "Zzyzx", "<unk>", None) == ""


def test_the_english_text_exercise_folds_its_vocabulary_and_reads_an_unknown_word_as_unk():
    at = open_app(PAGE, {"preset": "trained-text"})
    assert_clean(at)
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Vocabulary: 1,000 tokens, ids 0 to 999 (listed below).") for c in captions)
    assert not any("Vocabulary (id, word)" in c for c in captions)  # not 1,000 pairs in a caption
    assert [e.label for e in at.expander if e.label.startswith("The vocabulary")] == [
        "The vocabulary: 1,000 tokens (id, word)"
    ]
    assert at.text_input(key="ex_token_word").help.startswith("One word, read as the sidebar reads its sentence")
    at.text_input(key="ex_token_word").input("Zzyzx").run()
    assert_clean(at)
    said = next(c.value for c in at.caption if c.value.startswith("The 33rd token is"))
    assert said.startswith("The 33rd token is ‘\\<unk\\>’: vocabulary id 0, its row of the embedding table.")
    assert "‘Zzyzx’ is not among the 1,000 tokens this model knows" in said
    at.session_state["ex_vocab_open"] = True  # the list, once opened
    at.run()
    listed = [c.value for c in at.caption if c.value.startswith("0 ‘\\<unk\\>’ · 1 ")]
    assert len(listed) == 1 and listed[0].count(" · ") == 999


def test_a_small_vocabulary_is_listed_in_its_caption():
    at = open_app(PAGE, {"preset": "day33"})
    assert any(c.value.startswith("Vocabulary (id, word): 0 ") for c in at.caption)
    assert not any(e.label.startswith("The vocabulary") for e in at.expander)
