"""Issue 47 (a lecturer's read), the Learn page's part: a figure carries its sample (engine.sample.Sample, worded by
ui.prose.sample), the text model's loss by position says its held-out windows (item 2), the loss's steepest fall
is stated as its window sees it and holds for other windows (7), the text model's roles on the Learn page are
measured on held-out text (8), no role score counts a forced row (13), a range with equal ends is one number
(14) (item 16, the replay step in a link: tests/test_issue47_replay.py). Expected numbers are read from the
model, the shipped files and the engine, never typed."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import engine
import engine.evidence
import engine.histories
import engine.loss_curve
import engine.sample
from conftest import attention_maps, open_learn, shipped_model
from engine import language
from engine.text import REPEAT_SHARE, corpus
from factory import evidence_files, shipped_runs, store
from services import evidence
from ui import compute
from ui.prose.numbers import from_to
from ui.prose.sample import said
from ui.sections.learn import words as learn_words
from ui.sections.learn import words_knockouts as learn_knockout_words

shipped, learn = shipped_model, open_learn


def words_on(at) -> str:
    """Every sentence of the page: Markdown, captions, notices, and the charts' titles."""
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "success") for e in at.get(kind)]
    parts += [json.dumps(json.loads(c.proto.spec).get("title", "")) for c in at.get("vega_lite_chart")]
    parts += [json.dumps(m["title"]) for m in attention_maps(at)]
    return " ".join(parts).replace("\\", "")


def by_position_title(at) -> str:
    chart = next(c for c in at.get("vega_lite_chart") if "by position" in c.proto.spec)
    return json.loads(chart.proto.spec)["title"]["text"]


# --------------------------------------------------------------------------- the rule: a figure carries its sample
def test_every_measure_carries_the_sample_it_was_drawn_from():
    """position_metrics and the shipped look-up carry their Sample; drawing the Sample gives the very sequences
    measured (so its words cannot name another sample)."""
    for task in ("induction", "text"):
        model = shipped(task)
        measured = compute.metrics(model)
        sample = measured.sample
        assert (sample.task, sample.n, sample.T) == (
            task,
            compute.sequences(model.task, model.task.seq_len),
            model.task.seq_len,
        )
        assert sample.held_out == (model.task.held_out is not None) and sample.seed == compute.METRICS_SEED
        tokens, targets = sample.draw()
        again = model.task.fresh(np.random.RandomState(compute.METRICS_SEED), sample.n, sample.T)
        assert np.array_equal(tokens, again[0]) and np.array_equal(targets, again[1])
        assert np.array_equal(measured.count, (targets >= 0).sum(axis=0))
    plain, repeated = language.samples(compute.TEXT_N)
    windows = language.held_out(compute.TEXT_N, language.SEED + 1, plain.T, 1.0)  # as knockouts() draws them
    assert np.array_equal(repeated.draw()[0], windows.tokens)
    assert np.array_equal(plain.draw()[0], language.held_out(compute.TEXT_N).tokens)


def test_a_samples_words_say_what_it_is():
    text = engine.sample.Sample("text", 256, 64, 1, held_out=True)
    assert said(text) == "256 64-token windows of held-out text"
    assert said(engine.sample.Sample("text", 50, 64, 2, True, 0.5)) == (
        "50 64-token windows of held-out text, 50% of them repeating a span of their text"
    )
    assert said(engine.sample.Sample("text", 50, 64, 2, False)) == "50 64-token windows of the training chapters"
    assert said(engine.sample.Sample("induction", 1000, 16, 1, False)) == "1,000 fresh 16-token sequences"


@pytest.mark.parametrize(
    "params, task",
    [
        ({"preset": "trained-text", "task": "text"}, "text"),
        ({"preset": "trained-induction", "task": "induction"}, "induction"),
    ],
)
def test_the_learn_page_names_each_figures_sample(params, task):
    """Items 2 and 8 and the rule: the loss-by-position chart's title, the notice's accuracy and its roles name the
    samples they were measured on, from the model's own measures; on the English text no figure says 'fresh
    sequences' (every one is held-out text), and none says '256 to 256'."""
    model = shipped(task)
    at = learn({**params, "replay": str(model.run.steps)})
    measured, followed = compute.metrics(model).sample, compute.followed(model)
    assert by_position_title(at) == learn_knockout_words.by_position_title(measured)
    assert said(measured) in by_position_title(at)
    page = words_on(at)
    assert f"the scored targets of {said(measured)} right" in page
    assert f"(mean over {said(followed)})" in page
    if task == "text":
        assert measured.held_out and followed.held_out and "held-out" in by_position_title(at)
        assert f"{compute.TEXT_N}" in by_position_title(at) and "fresh" not in page
        assert said(language.plain_sample(compute.TEXT_N)) in page  # the knock-outs' windows
    else:
        assert f"{compute.METRICS_N:,} fresh {model.task.seq_len}-token sequences" in by_position_title(at)
    counts = compute.metrics(model).count[compute.metrics(model).scored]
    assert f"each in {from_to(counts.min(), counts.max())} of the {said(measured)}" in page
    assert not re.search(r"(\d[\d,]*) to \1 of the", page)


# --------------------------------------------------------------------------- item 14
def test_a_range_whose_ends_are_equal_is_one_number():
    assert from_to(256, 256) == "256" and from_to(1000, 1000) == "1,000" and from_to(12, 1000) == "12 to 1,000"
    assert from_to(0.5, 0.5, ".2f") == "0.50" and from_to(0.5, 0.75, ".2f") == "0.50 to 0.75"
    sample = engine.sample.Sample("text", 256, 64, 1, True)
    scored = np.ones(4, dtype=bool)
    said_ = learn_knockout_words.by_position(
        np.arange(4.0), np.zeros(4), scored, np.full(4, 256), "English text", sample
    )
    assert "each in 256 of the 256 64-token windows" in said_ and "256 to 256" not in said_


# --------------------------------------------------------------------------- item 8: the roles on held-out text
def test_the_text_runs_heads_are_followed_on_held_out_text_and_ship_so():
    """The Learn page's roles of the English text model (each head's weight on the previous token and on the
    copies, step by step) are measured on held-out windows, with the training's share of repeated spans; the
    shipped measures hold exactly that (read, not measured again), and a letter task's on its own draws."""
    model = shipped("text")
    sample = compute.followed(model)
    assert sample.held_out and sample.repeats == REPEAT_SHARE and sample.T == model.task.seq_len
    kept = evidence.measures(model)
    assert engine.histories.history_of(kept, sample) and bool(kept["history held out"])
    tokens, _ = sample.draw()
    text = corpus()
    held_out = set(text.starts[text.start_held_out].tolist())
    begins = language.windows("held_out", np.random.RandomState(sample.seed), sample.n, sample.T, sample.repeats).begin
    assert set(begins.tolist()) <= held_out  # every window starts in held-out text
    assert np.array_equal(
        language.windows("held_out", np.random.RandomState(sample.seed), sample.n, sample.T, sample.repeats).tokens,
        tokens,
    )
    last = model.run.checkpoints[-1][1]
    np.testing.assert_allclose(
        kept["history previous share"][-1],
        engine.evidence.previous_share(model.config, last, tokens),
        rtol=0,
        atol=1e-9,
    )
    assert not engine.histories.history_of(kept, engine.sample.Sample("text", sample.n, sample.T, sample.seed, False))
    letters = evidence.measures(shipped("induction"))
    assert engine.histories.history_of(letters, compute.followed(shipped("induction")))


# --------------------------------------------------------------------------- item 13: no forced row in a role
def test_no_role_score_counts_a_forced_row():
    """Row 0 under the causal mask sees one key and gives it weight 1 by force: the 'current token' role (and
    every other) is the mean over the queries that choose; the shipped evidence holds those scores."""
    model = shipped("text")
    cfg, params = model.config, model.params
    n, T = 16, model.task.seq_len
    roles = language.head_roles(cfg, params, n=n)
    tokens = language.held_out(n, language.SEED, T).tokens
    stack = engine.forward(cfg, params, params.embeddings[tokens])
    own = np.stack([np.diagonal(layer.weights, axis1=-2, axis2=-1) for layer in stack.layers])  # (L, n, H, T)
    np.testing.assert_allclose(roles.current, own[..., 1:].mean(axis=(1, 3)), rtol=0, atol=1e-12)
    assert np.all(roles.current < own.mean(axis=(1, 3)))  # counting row 0's forced 1 raised it
    assert not language.chosen_queries(cfg, n, T)[:, 0].any() and language.chosen_queries(cfg, n, T)[:, 1:].all()
    kept = evidence_files.read_evidence(evidence_files.evidence_path(store.SHIPPED, model.digest), model.digest)
    found = evidence_files.evidence_from(kept, cfg, model.digest)
    assert found.n == compute.TEXT_N
    now = language.head_roles(cfg, params, n=found.n)
    for name, scores in now.named().items():
        np.testing.assert_allclose(found.roles.named()[name], scores, rtol=0, atol=1e-9, err_msg=name)


# --------------------------------------------------------------------------- item 7: the steepest fall
def _shipped_runs():
    """Every task's shipped run of its own model (the one-layer run beside induction's stack shows no loss
    sentence: the page gives its accuracy only)."""
    for name in engine.TASKS:
        for one in shipped_runs.runs(name):
            if one.config != engine.TASKS[name].config:
                continue
            run = store.read(
                store.SHIPPED / one.file,
                one.config,
                store.run_key(name, one.config, engine.TASKS[name].steps, shipped_runs.SEED),
            )
            if run is not None:
                yield one.file, run


@pytest.mark.parametrize("file, run", list(_shipped_runs()), ids=lambda x: x if isinstance(x, str) else "")
def test_the_steepest_fall_holds_for_windows_of_half_and_twice_the_size(file, run):
    """Item 7: the sentence names the two neighbouring stretches whose mean losses differ most, with their window;
    read back from the sentence, that range holds the steepest fall of the run's raw losses seen through windows
    of half and twice the size too (the old 'falls fastest at step 125' was the window's own first step)."""
    losses = np.asarray(run.losses, dtype=float)
    found = engine.loss_curve.steepest_fall(losses)
    sentence = learn_words.plateau(losses, found)
    window, first, step, after, last = (
        int(x)
        for x in re.search(
            r"[Aa]veraged over (\d+) steps, the loss (?:then )?falls most from steps (\d+)–(\d+) \(.+?\) to steps "
            r"(\d+)–(\d+)",
            sentence,
        ).groups()
    )
    assert (window, step, after) == (found.window, found.step, found.step + 1)
    assert np.isclose(losses[first - 1 : step].mean(), found.before) and np.isclose(
        losses[after - 1 : last].mean(), found.after
    )
    for other in (max(1, window // 2), window, 2 * window):
        if 2 * other <= len(losses):
            assert first - 1 <= engine.loss_curve.loss_drop_step(losses, other) <= last, (other, sentence)
    if found.at_start:
        assert "at the very start of the run" in sentence


def test_the_text_runs_fall_is_at_its_start_whatever_the_window():
    """The English text's loss falls fastest from its very start: for every window the steepest fall is the
    first one the window can see; the page says so instead of naming the window's own length as a step."""
    losses = np.asarray(shipped("text").run.losses)
    found = engine.loss_curve.steepest_fall(losses)
    assert found.at_start and found.first == 1
    for window in (found.window // 4, found.window // 2, found.window, 2 * found.window):
        assert engine.loss_curve.loss_drop_step(losses, window) == window
    assert f"falls fastest at step {found.step}" not in learn_words.plateau(losses, found)


def test_evidence_kept_before_roles_left_out_forced_rows_is_measured_again(tmp_path, monkeypatch):
    """A text model's evidence kept under the old roles (row 0's forced weight counted: no 'roles version') is not
    read: services.evidence measures it again, so a server's store cannot show the old 'current token'."""
    model = shipped("text")
    kept = evidence_files.read_evidence(evidence_files.evidence_path(store.SHIPPED, model.digest), model.digest)
    assert evidence_files.current(kept) and int(kept["roles version"]) == evidence_files.ROLES_VERSION
    old = {name: array for name, array in kept.items() if name not in ("roles version", "header", "checksum")}
    evidence_files.save_evidence(old, model.digest, evidence_files.evidence_path(tmp_path, model.digest))
    monkeypatch.setattr(store, "SHIPPED", tmp_path)
    monkeypatch.setattr(store, "cache_folder", lambda: None)
    measured = object()
    monkeypatch.setattr(language, "evidence", lambda cfg, params, digest: measured)
    assert evidence.text_evidence(model) is measured
