"""Depth: a stack of blocks. Block 0 and the article presets are unchanged, later blocks are drawn
after block 0 in a documented order, each block reads the one before, positions come once."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import engine


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


@pytest.mark.parametrize("name", ["part4", "day33"])
def test_an_article_preset_is_a_stack_of_one(name):
    preset = engine.PRESETS[name]
    stack = engine.run(preset.config, preset.tokens)
    assert stack.n_layers == 1 and stack.logits is None and stack.probs is None
    layer = stack.layers[0]
    assert isinstance(layer, engine.Trace) and layer.layer == 0 and layer.labels == stack.labels
    assert stack.output is layer.output and engine.init_params(preset.config).w_u is None


def test_deeper_stacks_keep_block_zero_and_draw_later_blocks_after_it():
    cfg1 = engine.PRESETS["day33"].config
    cfg3 = dataclasses.replace(cfg1, n_layers=3, unembedding=True)
    one, three = engine.init_params(cfg1), engine.init_params(cfg3)
    for name in engine.params.BLOCK_ARRAYS + ("embeddings",):  # table and block 0 unchanged
        a, b = getattr(one, name), getattr(three, name)
        assert (a is None and b is None) or np.array_equal(a, b), name
    rng = np.random.RandomState(cfg1.seed)  # the documented order, by hand
    C, F, V = cfg1.d_model, cfg1.d_ff, cfg1.vocab_size
    rng.randn(V, C)  # the table
    rng.randn(C, C), rng.randn(C, C), rng.randn(C, C), rng.randn(C, F), rng.randn(F, C)  # block 0 (no W_o)
    for block in three.blocks[1:]:
        for name, shape, fan_in in (
            ("w_q", (C, C), C),
            ("w_k", (C, C), C),
            ("w_v", (C, C), C),
            ("w1", (C, F), C),
            ("w2", (F, C), F),
        ):
            assert np.array_equal(getattr(block, name), rng.randn(*shape) / np.sqrt(fan_in)), name
        assert block.w_o is None and np.all(block.b1 == 0)
    assert np.array_equal(three.w_u, rng.randn(C, V) / np.sqrt(C))
    assert three.n_layers == 3 and three.blocks[0].w_q is three.w_q


def test_stack_layers_feed_each_other_and_positions_come_once():
    cfg = tiny(n_layers=3)
    stack = engine.run(cfg, ["a", "b", "c", "a"])
    assert [t.layer for t in stack.layers] == [0, 1, 2]
    assert stack.layers[0].positions is not None
    for before, after in zip(stack.layers, stack.layers[1:]):
        assert after.positions is None and np.array_equal(after.x, before.output)
        assert np.array_equal(after.x_in, after.x)
    np.testing.assert_allclose(stack.probs.sum(axis=-1), 1.0, atol=1e-12)
    for trace in stack.layers:
        for array in trace.arrays().values():
            assert not array.flags.writeable
    assert not stack.logits.flags.writeable and stack.output is stack.layers[-1].output


@pytest.mark.parametrize("bad", [0, 9, -1, 1.5, True, "2"])
def test_n_layers_is_validated(bad):
    with pytest.raises(ValueError, match="n_layers"):
        engine.Config(n_layers=bad)
