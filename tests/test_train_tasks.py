"""The tasks' data: targets follow each task's rule (checked with loops), and the expected keys
are where a head must look: every expected key of a scored query holds the target token."""

from __future__ import annotations

import numpy as np
import pytest

import engine

SINGLE = ("previous", "first", "reverse", "max")
PARTIAL = {"text"}  # language: only the queries an earlier copy answers have expected keys


@pytest.fixture(scope="module", params=list(engine.TASKS))
def drawn(request):
    task = engine.TASKS[request.param]
    tokens, targets = task.sample(np.random.RandomState(11), 300)
    return task, tokens, targets


def test_tasks_are_listed_with_their_defaults():
    assert set(SINGLE) | {"induction"} <= set(engine.TASKS)
    for name, task in engine.TASKS.items():
        assert task.name == name and task.title and len(task.title) <= 30
        assert task.vocab == task.config.vocab and task.config.unembedding
        assert task.config.embedding_stream == "weights"
        assert task.seq_len >= task.min_len and task.steps > 0 and task.batch > 0 and 0 < task.lr <= 1
    causal = {name: task.config.causal for name, task in engine.TASKS.items()}
    assert causal == {"previous": True, "first": True, "reverse": False, "max": False, "induction": True, "text": True}
    assert engine.TASKS["max"].config.positional == "none"  # content, not position
    assert engine.TASKS["induction"].config.n_layers == 2
    assert all(engine.TASKS[name].config.n_layers == 1 for name in SINGLE)


def test_samples_are_well_formed(drawn):
    task, tokens, targets = drawn
    assert tokens.shape == targets.shape == (300, task.seq_len)
    assert np.issubdtype(tokens.dtype, np.integer) and np.issubdtype(targets.dtype, np.integer)
    assert tokens.min() >= 0 and tokens.max() < len(task.vocab)
    assert targets.min() >= -1 and targets.max() < len(task.vocab)
    assert np.all((targets >= 0).any(axis=1)), "every sequence has a scored position"
    assert not tokens.flags.writeable and not targets.flags.writeable
    again = task.sample(np.random.RandomState(11), 300)
    assert np.array_equal(again[0], tokens) and np.array_equal(again[1], targets)


def test_expected_keys_hold_the_answer(drawn):
    """A head that put all its weight on the expected keys would be looking at the target token."""
    task, tokens, targets = drawn
    keys = task.expected_keys(tokens)
    assert keys.shape == (300, task.seq_len, task.seq_len) and keys.dtype == bool
    for b, i in zip(*np.nonzero(targets >= 0)):
        where = np.flatnonzero(keys[b, i])
        if task.name in PARTIAL and where.size == 0:
            continue
        assert where.size >= 1, f"{task.name}: scored query {i} has no expected key"
        assert np.all(tokens[b, where] == targets[b, i]), f"{task.name}: an expected key holds another token"
        if task.config.causal:
            assert where.max() <= i, f"{task.name}: an expected key is in the future"


def test_the_rules_by_loops():
    rng = np.random.RandomState(3)
    for name in SINGLE:
        task = engine.TASKS[name]
        tokens, targets = task.sample(rng, 50, 9)
        for seq, want in zip(tokens.tolist(), targets.tolist()):
            T = len(seq)
            if name == "previous":
                assert want == [-1] + seq[:-1]
            elif name == "first":
                assert want == [-1] + [seq[0]] * (T - 1)
            elif name == "reverse":
                assert want == [seq[T - 1 - i] for i in range(T)]
            else:
                assert want == [max(seq)] * T


def test_max_largest_tokens_cover_the_vocabulary():
    tokens, _ = engine.TASKS["max"].sample(np.random.RandomState(0), 2000)
    counts = np.bincount(tokens.max(axis=1), minlength=10)
    assert counts.min() > 2000 / 10 / 2, f"the largest token should be about uniform: {counts}"


def test_induction_copies_a_segment_at_a_varying_offset():
    task = engine.TASKS["induction"]
    tokens, targets = task.sample(np.random.RandomState(5), 400)
    offsets = set()
    for seq, want in zip(tokens.tolist(), targets.tolist()):
        scored = [i for i, t in enumerate(want) if t >= 0]
        assert scored == list(range(scored[0], scored[-1] + 1)), "the scored positions are one run"
        start2, m = scored[0], len(scored) + 1  # the second copy and its length
        segment = seq[start2 : start2 + m]
        assert len(set(segment)) == m, "the segment's tokens are distinct"
        starts = [s for s in range(start2 - m + 1) if seq[s : s + m] == segment]
        assert len(starts) == 1, "exactly one earlier copy"
        offsets.add(start2 - starts[0])
        others = [t for i, t in enumerate(seq) if not (starts[0] <= i < starts[0] + m or start2 <= i < start2 + m)]
        assert not set(others) & set(segment), "filler never repeats a segment token"
        for i in scored:
            assert want[i] == seq[i + 1] == seq[i - (start2 - starts[0]) + 1]  # what followed it the first time
    assert len(offsets) >= 8, f"the offset must vary from sequence to sequence, saw {sorted(offsets)}"


def test_induction_keys_follow_earlier_occurrences():
    task = engine.TASKS["induction"]
    tokens = np.array([[0, 1, 2, 0, 1, 3, 1]])
    keys = task.expected_keys(tokens)[0]
    expected = {3: [1], 4: [2], 6: [2, 5]}  # j - 1 holds token i, j <= i
    for i in range(7):
        assert np.flatnonzero(keys[i]).tolist() == expected.get(i, []), i


@pytest.mark.parametrize("name", list(engine.TASKS))
def test_sample_refuses_bad_requests(name):
    task = engine.TASKS[name]
    rng = np.random.RandomState(0)
    for n, T in [(0, task.seq_len), (2.5, task.seq_len), (True, task.seq_len), (3, task.min_len - 1), (3, 2000)]:
        with pytest.raises(ValueError, match="must be a whole number"):
            task.sample(rng, n, T)
    with pytest.raises(ValueError, match="RandomState"):
        task.sample(np.random.default_rng(0), 3)
    with pytest.raises(ValueError, match="tokens must be"):
        task.expected_keys(np.zeros(4, dtype=int))
    longer, _ = task.sample(rng, 2, task.seq_len + 4)
    assert longer.shape == (2, task.seq_len + 4)


def test_get_task():
    assert engine.get_task("max") is engine.TASKS["max"]
    assert engine.get_task(engine.TASKS["max"]) is engine.TASKS["max"]
    with pytest.raises(ValueError, match="previous"):
        engine.get_task("copy")
