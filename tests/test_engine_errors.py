"""Every bad input is refused with a ValueError whose message tells a student what to change."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

import engine
import engine.config
import engine.tokens
from engine import analysis, experiments
from engine.config import MAX_D_FF, MAX_D_MODEL, MAX_SEED


def refuses(fragments, call, *args, **kwargs) -> str:
    """call(*args, **kwargs) must raise ValueError and its message must contain every fragment."""
    with pytest.raises(ValueError) as info:
        call(*args, **kwargs)
    message = str(info.value)
    for fragment in [fragments] if isinstance(fragments, str) else fragments:
        assert fragment in message, f"{fragment!r} not in error message {message!r}"
    return message


# --------------------------------------------------------------------------- head counts
def test_heads_that_do_not_divide_d_model():
    refuses(["not divisible", "choose 1, 2, 5 or 10 heads"], engine.Config, d_model=10, num_heads=3)
    refuses(["d_model=16", "num_heads=3", "choose 1, 2, 4, 8 or 16 heads"], engine.Config, d_model=16, num_heads=3)
    refuses("choose 1 or 7 heads", engine.Config, d_model=7, num_heads=2)
    refuses("choose 1 heads", engine.Config, d_model=1, num_heads=2)
    refuses("not divisible", engine.run_preset, "part4", d_model=10, num_heads=3)


def test_valid_head_counts():
    assert engine.config.valid_head_counts(12) == [1, 2, 3, 4, 6, 12]
    assert engine.config.valid_head_counts(12, max_heads=4) == [1, 2, 3, 4]
    assert engine.config.valid_head_counts(12, max_heads=5) == [1, 2, 3, 4]
    assert engine.config.valid_head_counts(12, max_heads=100) == [1, 2, 3, 4, 6, 12]
    assert engine.config.valid_head_counts(1) == [1]
    assert engine.config.valid_head_counts(13) == [1, 13]
    for d in range(1, 40):
        for h in engine.config.valid_head_counts(d):
            assert engine.Config(d_model=d, num_heads=h, d_ff=4).d_head * h == d


@pytest.mark.parametrize("bad", [0, -3, 2.5, "12", True, None])
def test_valid_head_counts_refuses_bad_d_model(bad):
    refuses("d_model must be a positive whole number", engine.config.valid_head_counts, bad)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "3", True])
def test_valid_head_counts_refuses_bad_max_heads(bad):
    refuses("max_heads must be a positive whole number", engine.config.valid_head_counts, 12, bad)


# --------------------------------------------------------------------------- sizes
@pytest.mark.parametrize("field", ["d_model", "num_heads", "d_ff"])
@pytest.mark.parametrize("bad", [0, -1, -16])
def test_non_positive_sizes(field, bad):
    refuses([field, "at least 1", str(bad)], engine.Config, **{field: bad})


@pytest.mark.parametrize("field", ["d_model", "num_heads", "d_ff", "seed", "input_seed"])
@pytest.mark.parametrize("bad", [2.0, 16.5, "16", None, np.float64(8.0)])
def test_non_integer_sizes(field, bad):
    refuses([field, "whole number"], engine.Config, **{field: bad})


@pytest.mark.parametrize("field", ["d_model", "num_heads", "d_ff", "seed", "input_seed"])
@pytest.mark.parametrize("bad", [True, False])
def test_bool_is_not_a_size(field, bad):
    refuses([field, "whole number", repr(bad)], engine.Config, **{field: bad})


@pytest.mark.parametrize("field, top", [("d_model", MAX_D_MODEL), ("d_ff", MAX_D_FF)])
def test_sizes_too_large(field, top):
    kwargs = {field: top + 1, "num_heads": 1}
    refuses(["too large", f"at most {top}"], engine.Config, **kwargs)
    assert getattr(engine.Config(**{field: top, "num_heads": 1}), field) == top


@pytest.mark.parametrize("field", ["seed", "input_seed"])
@pytest.mark.parametrize("bad", [-1, MAX_SEED + 1, 2**64])
def test_seed_out_of_range(field, bad):
    refuses([field, f"between 0 and {MAX_SEED}"], engine.Config, **{field: bad})


def test_seed_edges_are_accepted():
    for seed in (0, MAX_SEED):
        engine.run(engine.Config(seed=seed, input_seed=seed), ["AI"]).layers[0]


# --------------------------------------------------------------------------- choices and flags
@pytest.mark.parametrize(
    "field, bad, allowed",
    [
        ("init", "xavier", "fan_in"),
        ("init", "", "fixed"),
        ("init", None, "fan_in"),
        ("positional", "learned", "sinusoidal"),
        ("positional", "Sinusoidal", "none"),
        ("embedding_stream", "random", "weights"),
        ("embedding_stream", 0, "inputs"),
    ],
)
def test_unknown_choices(field, bad, allowed):
    refuses([field, "must be one of", allowed, repr(bad)], engine.Config, **{field: bad})


@pytest.mark.parametrize("field", ["causal", "scale_scores", "layer_norm", "output_projection", "residual"])
@pytest.mark.parametrize("bad", [1, 0, "yes", None, np.bool_(True)])
def test_flags_must_be_true_or_false(field, bad):
    refuses([field, "True or False"], engine.Config, **{field: bad})


@pytest.mark.parametrize(
    "bad",
    [0, 0.0, -0.1, -1, float("nan"), float("inf"), -float("inf"), 100.0001, 1e300, "0.1", None, True, complex(1, 0)],
)
def test_bad_init_scale(bad):
    refuses(["init_scale", "above 0", "at most 100"], engine.Config, init_scale=bad)


def test_init_scale_nan_really_is_refused():
    """NaN compares False with everything: a naive `scale <= 0` check would let it through."""
    with pytest.raises(ValueError, match="init_scale"):
        engine.Config(init_scale=math.nan)
    with pytest.raises(ValueError, match="init_scale"):
        engine.Config(init_scale=np.float64("nan"))


def test_init_scale_edges_are_accepted():
    for scale in (1e-6, 1, 100, 100.0, np.float64(0.5)):
        assert engine.Config(init_scale=scale).init_scale == scale


@pytest.mark.parametrize(
    "bad, fragment",
    [
        (["AI", "builds"], "tuple"),
        (("AI", ""), "non-empty"),
        (("AI", 3), "non-empty"),
        (("AI", "AI"), "same word twice"),
    ],
)
def test_bad_vocab(bad, fragment):
    refuses(["vocab", fragment], engine.Config, vocab=bad)


# --------------------------------------------------------------------------- tokens
def test_empty_token_list():
    refuses("no tokens", engine.run, engine.Config(), [])
    refuses("no tokens", engine.run, engine.Config(), ())
    refuses("no tokens", engine.run, engine.Config(), engine.tokenize("   \t\n"))


def test_empty_string_token():
    refuses("empty word", engine.run, engine.Config(), ["AI", "", "models"])
    refuses("empty word", engine.tokens.token_id, engine.Config(), "")


def test_a_sentence_string_is_not_a_token_list():
    refuses("engine.tokenize", engine.run, engine.Config(), "AI builds neural models")


@pytest.mark.parametrize("bad", [None, 5, 2.5])
def test_tokens_must_be_a_list(bad):
    refuses("tokens must be a list", engine.run, engine.Config(), bad)


@pytest.mark.parametrize("bad", [None, 1.5, True, b"AI", ["AI"]])
def test_bad_token_types(bad):
    refuses("a token must be a word or a whole-number id", engine.run, engine.Config(), ["AI", bad])


@pytest.mark.parametrize("bad", [10, -1, 11, 10**9, np.int64(10)])
def test_token_ids_outside_the_vocabulary(bad):
    cfg = engine.PRESETS["day33"].config
    refuses([f"token id {bad}", "outside the vocabulary", "from 0 to 9"], engine.run, cfg, [2, bad, 3])


def test_token_ids_at_the_vocabulary_edges_are_accepted():
    cfg = engine.PRESETS["day33"].config
    assert engine.run(cfg, [0, 9, np.int64(5)]).layers[0].labels == ("a", ".", "cat")


def test_too_many_tokens():
    refuses(
        ["too many", f"at most {engine.config.MAX_TOKENS}"],
        engine.run,
        engine.Config(d_model=2, num_heads=1, d_ff=1),
        ["AI"] * (engine.config.MAX_TOKENS + 1),
    )


def test_max_tokens_is_accepted():
    cfg = engine.Config(d_model=2, num_heads=1, d_ff=1)
    assert engine.run(cfg, ["AI"] * engine.config.MAX_TOKENS).layers[0].T == engine.config.MAX_TOKENS


@pytest.mark.parametrize("bad", [None, 3, b"AI builds", ["AI", "builds"]])
def test_tokenize_needs_a_string(bad):
    refuses("must be a string", engine.tokenize, bad)


@pytest.mark.parametrize("bad", [0, -1, engine.config.MAX_TOKENS + 1, 2.5, "5", None, True, float("nan")])
def test_fit_length_bad_length(bad):
    refuses(["sequence length", f"between 1 and {engine.config.MAX_TOKENS}"], engine.tokens.fit_length, ["AI"], bad)


def test_fit_length_good_lengths():
    assert engine.tokens.fit_length(["AI", "builds"], 1) == (["AI"], -1)
    assert engine.tokens.fit_length(["AI"], 3) == (["AI", engine.tokens.FILLER[0], engine.tokens.FILLER[1]], 2)
    assert engine.tokens.fit_length(["AI"], np.int64(1)) == (["AI"], 0)


# --------------------------------------------------------------------------- presets
@pytest.mark.parametrize("bad", ["Part4", "day 33", "", None, ["part4"], 4])
def test_unknown_preset(bad):
    message = refuses(["unknown preset", "part4", "day33"], engine.run_preset, bad)
    assert repr(bad) in message
    refuses("unknown preset", engine.get_preset, bad)


def test_preset_overrides_are_validated():
    refuses("init_scale", engine.run_preset, "day33", init_scale=0)
    refuses("positional", engine.run_preset, "part4", positional="rotary")


# --------------------------------------------------------------------------- forward
@pytest.fixture(scope="module")
def part4():
    cfg = engine.PRESETS["part4"].config
    return cfg, engine.init_params(cfg)


@pytest.mark.parametrize("shape", [(16,), (4, 8), (4, 17), (2, 4, 17), (1, 1)])  # (B, T, C) is a batch
def test_forward_wrong_x_shape(part4, shape):
    cfg, params = part4
    refuses(["x must have shape", "(T, 16)", str(shape)], engine.forward, cfg, params, np.zeros(shape))


def test_forward_empty_and_oversized_x(part4):
    cfg, params = part4
    refuses(["0 tokens", f"1..{engine.config.MAX_TOKENS}"], engine.forward, cfg, params, np.zeros((0, 16)))
    refuses(
        [f"{engine.config.MAX_TOKENS + 1} tokens"],
        engine.forward,
        cfg,
        params,
        np.zeros((engine.config.MAX_TOKENS + 1, 16)),
    )


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_forward_non_finite_x(part4, bad):
    cfg, params = part4
    x = np.ones((3, 16))
    x[1, 5] = bad
    refuses("NaN or infinity", engine.forward, cfg, params, x)


def test_forward_label_count(part4):
    cfg, params = part4
    refuses(["1 labels", "2 tokens"], engine.forward, cfg, params, np.zeros((2, 16)), labels=("a",))


# --------------------------------------------------------------------------- analysis helpers
@pytest.fixture(scope="module")
def trace():
    return engine.run_preset("part4").layers[0]  # 2 heads, 4 tokens


@pytest.mark.parametrize(
    "head, query, key, fragment",
    [
        (2, 0, 0, "head=2 is outside 0..1"),
        (-1, 0, 0, "head=-1"),
        (0, 4, 0, "query=4 is outside 0..3"),
        (0, -1, 0, "query=-1"),
        (0, 0, 4, "key=4 is outside 0..3"),
        (0, 0, 99, "key=99"),
        (0, 1.5, 0, "query=1.5"),
        (True, 0, 0, "head=True"),
        (0, 0, None, "key=None"),
        (0, "1", 0, "query=1"),
    ],
)
def test_explain_cell_out_of_range(trace, head, query, key, fragment):
    refuses([fragment, "outside"], analysis.explain_cell, trace, head, query, key)


def test_explain_cell_accepts_numpy_indices(trace):
    work = analysis.explain_cell(trace, np.int64(1), np.int64(3), np.int64(0))
    assert work.weight == pytest.approx(trace.weights[1, 3, 0], rel=1e-12)


def test_score_variance_needs_real_widths():
    refuses("score_variance", experiments.score_variance, [0, 16])
    refuses("score_variance", experiments.score_variance, [16], samples=1)


def test_extend_with_a_bad_token():
    refuses("empty word", analysis.extend, engine.Config(), ["AI"], "")
    refuses("outside the vocabulary", analysis.extend, engine.PRESETS["day33"].config, [2, 5], 10)


def test_errors_leave_no_partial_state():
    """A refused call does not disturb the next good one."""
    good = engine.run_preset("day33").layers[0]
    with pytest.raises(ValueError):
        engine.run(engine.PRESETS["day33"].config, [2, 10]).layers[0]
    with pytest.raises(ValueError):
        engine.run(replace(engine.PRESETS["day33"].config, seed=-5), [2]).layers[0]
    assert np.array_equal(engine.run_preset("day33").layers[0].output, good.output)
