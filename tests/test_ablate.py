"""Knock-outs and head scores (issue 24 §1): each checked against something written differently.

A knock-out against the untouched forward with that head's columns of the concatenation zeroed and
the rest of the block redone by hand; accuracy without a knock-out against a sequence-by-sequence
count; head scores against plain loops; and, on the trained induction model, the causal evidence:
removing either layer's heads breaks the task.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import engine
import engine.attention
import engine.block
import engine.evidence
import engine.measure
from factory import store

FRESH = 12345


def tiny(**changes):
    base = dict(
        d_model=8,
        num_heads=2,
        d_ff=8,
        causal=True,
        positional="sinusoidal",
        vocab=tuple("abcdef"),
        embedding_stream="weights",
        unembedding=True,
        init="fan_in",
        init_scale=1.0,
        n_layers=2,
    )
    return engine.Config(**{**base, **changes})


def by_hand(cfg, block, x_in, concat):
    """The rest of a block after its concatenation, in plain NumPy written out again."""
    attn = concat if block.w_o is None else concat @ block.w_o
    after = x_in + attn if cfg.residual else attn
    if cfg.layer_norm:
        ffn_in = (after - after.mean(-1, keepdims=True)) / np.sqrt(after.var(-1, keepdims=True) + 1e-5)
    else:
        ffn_in = after
    out = np.maximum(ffn_in @ block.w1 + block.b1, 0) @ block.w2
    return (after + out if cfg.residual else out) + block.b2


@pytest.mark.parametrize("layer_norm", [False, True])
@pytest.mark.parametrize("pairs", [{(0, 0)}, {(0, 1)}, {(1, 0)}, {(0, 0), (1, 1)}, {(0, 0), (0, 1), (1, 0), (1, 1)}])
def test_a_knockout_is_the_forward_with_its_concat_columns_zeroed(pairs, layer_norm):
    cfg = tiny(layer_norm=layer_norm)
    params = engine.init_params(cfg)
    tokens = np.random.RandomState(0).randint(0, cfg.vocab_size, size=(3, 7))
    x = params.embeddings[tokens]  # (3, 7, C)
    knocked = engine.forward(cfg, params, x, ablate=pairs)
    D = cfg.d_head
    h_in = x + engine.attention.sinusoidal_positions(7, cfg.d_model)
    for layer, block in enumerate(params.blocks):
        # the untouched block on the same input, then its concatenation's columns zeroed by hand
        one = engine.Config(**{**vars(cfg), "n_layers": 1, "positional": "none"})
        untouched = engine.block.block_forward(one, block, h_in)
        concat = np.array(untouched.concat)
        for at, h in pairs:
            if at == layer:
                concat[..., h * D : (h + 1) * D] = 0.0
        expected = by_hand(cfg, block, h_in, concat)
        np.testing.assert_allclose(
            knocked.layers[layer].output,
            expected,
            rtol=1e-12,
            atol=1e-12,
            err_msg=f"layer {layer} with {sorted(pairs)} knocked out",
        )
        h_in = expected
    np.testing.assert_allclose(knocked.logits, h_in @ params.w_u, rtol=1e-12, atol=1e-12)
    assert knocked.layers[0].knocked == tuple(sorted(h for at, h in pairs if at == 0))


def test_mean_ablation_puts_the_head_mean_in_its_place():
    cfg = tiny()
    params = engine.init_params(cfg)
    tokens = np.random.RandomState(1).randint(0, cfg.vocab_size, size=(50, 6))
    means = engine.evidence.head_means(cfg, params, tokens)  # (L, H, T, D)
    assert means.shape == (2, 2, 6, cfg.d_head)
    plain = engine.forward(cfg, params, params.embeddings[tokens])
    for layer in range(2):  # the mean, sequence by sequence
        total = sum(plain.layers[layer].heads[b] for b in range(50)) / 50
        np.testing.assert_allclose(means[layer], total, rtol=1e-12, atol=1e-14)
    few = tokens[:4]
    knocked = engine.forward(cfg, params, params.embeddings[few], ablate={(1, 1)}, means=means)
    for b in range(4):
        np.testing.assert_array_equal(knocked.layers[1].heads[b, 1], means[1, 1])
        np.testing.assert_array_equal(knocked.layers[1].concat[b, :, cfg.d_head :], means[1, 1])
    np.testing.assert_allclose(
        knocked.layers[0].output,
        engine.forward(cfg, params, params.embeddings[few]).layers[0].output,
        rtol=0,
        atol=1e-12,
    )  # a knock-out in layer 1 leaves layer 0 as it was


@pytest.mark.parametrize("bad", [(2, 0), (0, 2), (-1, 0), (0, -1), (0,), (0, 1, 2), "0.1", (0.0, 1), (True, 0)])
def test_bad_pairs_are_refused_with_the_valid_range(bad):
    cfg = tiny()
    params = engine.init_params(cfg)
    with pytest.raises(ValueError, match=r"layer in 0\.\.1 and head in 0\.\.1"):
        engine.forward(cfg, params, params.embeddings[[0, 1, 2]], ablate=[bad])
    with pytest.raises(ValueError, match=r"layer in 0\.\.1"):
        engine.run(cfg, ["a", "b"], ablate=[bad])
    with pytest.raises(ValueError, match="ablate_mode"):
        engine.evaluate(
            "previous",
            engine.TASKS["previous"].config,
            engine.init_params(engine.TASKS["previous"].config),
            n=10,
            ablate=[(0, 0)],
            ablate_mode="half",
        )


def test_wrongly_shaped_means_are_refused():
    cfg = tiny()
    params = engine.init_params(cfg)
    with pytest.raises(ValueError, match=r"means must have shape \(L, H, T, D\)"):
        engine.forward(cfg, params, params.embeddings[[0, 1, 2]], ablate=[(0, 0)], means=np.zeros((2, 2, 4, 4)))


def test_accuracy_without_a_knockout_is_counted_sequence_by_sequence():
    task = engine.TASKS["previous"]
    run = engine.train("previous", steps=30)
    tokens, targets = task.sample(np.random.RandomState(7), 40)
    right = total = 0
    for seq, want in zip(tokens, targets):  # one sequence at a time, the pages' path
        guess = engine.run(task.config, list(int(t) for t in seq), run.params).logits.argmax(axis=-1)
        right += sum(int(guess[t] == want[t]) for t in range(len(seq)) if want[t] >= 0)
        total += sum(1 for t in range(len(seq)) if want[t] >= 0)
    assert engine.evaluate("previous", task.config, run.params, n=40, seed=7) == pytest.approx(right / total, abs=1e-15)
    assert engine.evaluate("previous", task.config, run.params, n=40, seed=7, ablate=()) == right / total
    metrics = engine.evidence.position_metrics("previous", task.config, run.params, n=40, seed=7)
    assert not metrics.scored[0] and metrics.scored[1:].all() and metrics.count[0] == 0
    assert (metrics.accuracy * metrics.count).sum() / metrics.count.sum() == pytest.approx(right / total, abs=1e-12)
    assert metrics.overall_accuracy == pytest.approx(right / total, abs=1e-15) and metrics.right.sum() == right
    for ablate in ((), ((0, 0),)):  # the model view's number: evaluate's
        knocked = engine.evidence.position_metrics("previous", task.config, run.params, n=40, seed=7, ablate=ablate)
        assert knocked.overall_accuracy == pytest.approx(
            engine.evaluate("previous", task.config, run.params, n=40, seed=7, ablate=ablate), abs=1e-15
        )
    terms = []
    for seq, want in zip(tokens, targets):  # the loss, one sequence at a time
        probs = engine.run(task.config, list(int(t) for t in seq), run.params).probs
        terms += [-math.log(probs[t, want[t]]) for t in range(len(seq)) if want[t] >= 0]
    assert metrics.overall_loss == pytest.approx(math.fsum(terms) / len(terms), rel=1e-12)


def loop_share(weights, pick):
    """Mean over (sequence, query) of the sum of weights[seq][query][key] over keys with pick(...)."""
    shares = []
    for b in range(len(weights)):
        for i in range(len(weights[b])):
            keys = [j for j in range(len(weights[b][i])) if pick(b, i, j)]
            if pick(b, i, None):
                shares.append(math.fsum(weights[b][i][j] for j in keys))
    return math.fsum(shares) / len(shares)


def test_head_scores_match_plain_loops():
    cfg = tiny(causal=True)
    task = engine.Task(**{**vars(engine.TASKS["previous"]), "config": cfg})
    params = engine.init_params(cfg)
    tokens = np.random.RandomState(3).randint(0, cfg.vocab_size, size=(3, 7))
    scores = engine.evidence.head_scores(cfg, params, tokens, task)
    half = 3
    repeated = [list(seq[:half]) * 2 for seq in tokens]
    for layer in range(2):
        for head in range(2):
            w = [engine.run(cfg, [int(t) for t in seq], params).layers[layer].weights[head].tolist() for seq in tokens]
            prev = loop_share(w, lambda b, i, j: i >= 1 if j is None else j == i - 1)
            first = loop_share(w, lambda b, i, j: i >= 1 if j is None else j == 0)
            on_task = loop_share(w, lambda b, i, j: i >= 1 if j is None else j == i - 1)  # previous: key i-1
            rw = [engine.run(cfg, seq, params).layers[layer].weights[head].tolist() for seq in repeated]
            induction = loop_share(
                rw,
                lambda b, i, j: (
                    i >= half if j is None else (1 <= j <= half and j <= i and repeated[b][j - 1] == repeated[b][i])
                ),
            )
            assert scores.previous[layer, head] == pytest.approx(prev, rel=1e-12)
            assert scores.first[layer, head] == pytest.approx(first, rel=1e-12)
            assert scores.task[layer, head] == pytest.approx(on_task, rel=1e-12)
            assert scores.induction[layer, head] == pytest.approx(induction, rel=1e-12)
    assert set(scores.roles()) == {"previous token", "first token", "induction", "previous token (task keys)"}
    name, score = scores.role(0, 0, threshold=2.0)
    assert name == "no clear role" and score == max(s[0, 0] for s in scores.roles().values())


# --------------------------------------------------------------------------- the trained induction model
@pytest.fixture(scope="module")
def induction():
    """The default induction run as it ships (the pinned arithmetic's: the same on every machine)."""
    task = engine.TASKS["induction"]
    return store.load_shipped("induction", task.config, task.steps, 0)


def test_removing_either_layers_heads_breaks_induction(induction):
    cfg, params = induction.config, induction.params
    whole = engine.evaluate("induction", cfg, params, n=1000, seed=FRESH)
    assert whole >= 0.9, f"the untouched model: {whole:.3f}"
    for layer in range(2):
        both = {(layer, 0), (layer, 1)}
        for mode in engine.evidence.ABLATE_MODES:
            accuracy = engine.evaluate("induction", cfg, params, n=1000, seed=FRESH, ablate=both, ablate_mode=mode)
            assert accuracy < 0.3, f"layer {layer}'s heads removed ({mode}): {accuracy:.3f}"


def test_induction_loss_falls_in_the_repeated_half_and_heads_have_roles(induction):
    cfg, params = induction.config, induction.params
    metrics = engine.evidence.position_metrics("induction", cfg, params, n=500, seed=FRESH)
    T = len(metrics.scored)
    assert not metrics.scored[:2].any() and metrics.scored[T // 2]
    assert metrics.loss[metrics.scored].mean() < 0.5  # the scored (repeated) positions
    first_half, second_half = metrics.next_loss[: T // 2].mean(), metrics.next_loss[T // 2 :].mean()
    assert second_half < first_half - 1.0, (first_half, second_half)
    tokens, _ = engine.TASKS["induction"].sample(np.random.RandomState(FRESH), 200)
    scores = engine.evidence.head_scores(cfg, params, tokens, "induction")
    assert max(scores.previous[0]) >= 0.5 and scores.role(0, int(np.argmax(scores.previous[0])))[0] == "previous token"
    assert max(scores.induction[1]) >= 0.7


def test_the_pages_traces_take_knockouts_too():
    task = engine.TASKS["previous"]
    cfg, params = task.config, engine.init_params(task.config)
    stack = engine.measure.task_stack(task, cfg, params, [0, 1, 2, 1], ablate={(0, 0)})
    assert stack.layers[0].knocked == (0,) and not stack.layers[0].concat.any()  # one head: nothing left
    words = engine.run(cfg, ["A", "B", "C", "B"], params, ablate={(0, 0)})
    np.testing.assert_allclose(words.logits, stack.logits, rtol=0, atol=1e-12)
