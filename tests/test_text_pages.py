"""The English text preset on the pages (issue 36): a real sentence, typed ones with unknown words read as
<unk> and named, the model view's measured roles and knock-outs (held-out loss, and the loss on the second
copy of a repeated span, where an induction head's effect shows), the next-word table, and the Learn page
showing the shipped run at once. Every number is held against the shipped run's own measures (its evidence,
named by the weights' digest), never against a run trained here."""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine
from conftest import assert_clean, handle_of, open_app, tables
from engine import language
from factory import evidence_files, store
from ui import compute
from ui.prose.sample import said as said_sample
from ui.shell import site, state, url

MODEL, LEARN, INPUTS = (site.by_path(p).file for p in ("model", "learn", "inputs"))
PRESET = {"preset": "trained-text"}


def _model(params: dict):
    controls, _ = url.from_params(params)
    return handle_of(state.to_config(controls), state.to_training(controls)).trained


def _number(text: str) -> float:
    return float(text.replace("\\", "").replace("−", "-").replace("+", ""))


@pytest.fixture(scope="module")
def view():
    at = open_app(MODEL, PRESET, timeout=300)
    assert_clean(at)
    return at


def test_the_shipped_evidence_is_this_models(view):
    """The measures the pages read are named by the shipped weights' digest, and one of them, measured again
    here, is the same to display precision (another CPU's last bits)."""
    model = _model(PRESET)
    arrays = evidence_files.read_evidence(evidence_files.evidence_path(store.SHIPPED, model.digest), model.digest)
    assert arrays is not None and model.origin == "shipped"
    again = language.knockouts(model.config, model.params, [()], n=language.EVIDENCE_N)[0]
    found = compute.text_evidence(model)
    assert again.overall == pytest.approx(found.base.overall, abs=5e-4)
    assert again.second_copy == pytest.approx(found.base.second_copy, abs=5e-4)


def test_the_model_view_proves_a_previous_token_head_and_an_induction_head(view):
    roles = next(t for t in tables(view) if "strongest measured role" in t.columns)
    found = compute.text_evidence(_model(PRESET))
    base = found.base
    best = {}
    for i, label in enumerate(roles["strongest measured role"]):
        label = label.replace("\\", "")
        name = re.match(r"(.*?) [\d.]+$", label)
        if name:
            best.setdefault(name.group(1), []).append(i)
    assert "previous token" in best and "induction (repeated span)" in best, roles
    previous = max(best["previous token"], key=lambda i: _number(roles["previous token"][i]))
    induction = max(best["induction (repeated span)"], key=lambda i: _number(roles["induction (repeated span)"][i]))
    assert _number(roles["previous token"][previous]) >= 0.4
    assert _number(roles["induction (repeated span)"][induction]) >= 0.3
    # each head's knock-out column is the evidence's, and the induction head's effect is on the second copy
    for i, k in enumerate(found.heads):
        assert _number(roles["held-out loss if knocked out"][i]) == pytest.approx(k.overall - base.overall, abs=6e-4)
        assert _number(roles["second-copy loss if knocked out"][i]) == pytest.approx(
            k.second_copy - base.second_copy, abs=6e-4
        )
    copy_cost = _number(roles["second-copy loss if knocked out"][induction])
    assert copy_cost > 0.3 and copy_cost > 5 * abs(_number(roles["held-out loss if knocked out"][induction]))


def test_knocking_out_the_induction_head_shows_on_the_second_copy():
    found = compute.text_evidence(_model(PRESET))
    L, H = len(found.layers), len(found.heads) // len(found.layers)
    scores = found.roles.induction
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    at = open_app(MODEL, {**PRESET, "ablate": f"{layer}.{head}"}, timeout=300)
    assert_clean(at)
    metrics = {m.label: m for m in at.metric}
    knocked = found.heads[layer * H + head]
    assert _number(metrics["loss, second copy of a span"].value) == pytest.approx(knocked.second_copy, abs=5e-4)
    assert _number(metrics["loss, second copy of a span"].delta) == pytest.approx(
        knocked.second_copy - found.base.second_copy, abs=5e-4
    )
    assert _number(metrics["loss, held-out text"].value) == pytest.approx(knocked.overall, abs=5e-4)
    assert L * H == len(found.heads)


def test_the_next_word_table_is_the_models_own(view):
    table = next(t for t in tables(view) if "next token" in t.columns)
    controls, _ = url.from_params(PRESET)
    cfg, words = state.to_config(controls), state.to_tokens(controls).words
    model = _model(PRESET)
    logits = engine.run(cfg, words, model.params).logits[-1]
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    top = np.argsort(-probs, kind="stable")[:5]
    assert [w.replace("\\", "") for w in table["next token"]] == [cfg.vocab[i] for i in top]
    assert [_number(p) for p in table["probability"]] == pytest.approx(probs[top], abs=5e-4)


@pytest.mark.parametrize(
    "typed, T",
    [
        ("It is a truth universally acknowledged by Zebedee.", 9),
        ("Emma", 2),
        ("the " * 70, 64),
        ("Emma's father's house, said Mr. Zebedee's wife.", 12),
    ],
)
def test_typed_text_reads_unknown_words_as_unk_and_names_them(typed, T):
    at = open_app(INPUTS, {**PRESET, "text": typed, "seq_len": str(T)}, timeout=300)
    assert_clean(at)
    controls, _ = url.from_params({**PRESET, "text": typed, "seq_len": str(T)})
    words = state.to_tokens(controls).words
    assert len(words) == T
    said = " ".join(n.value.replace("\\", "") for n in at.info)
    read, unknown = engine.TASKS["text"].read(typed)
    if unknown:
        assert "<unk>" in words and all(repr(w) in said for w in unknown) and "reads <unk> there" in said
    else:
        assert "reads <unk>" not in said
    assert list(words[: min(T, len(read))]) == read[:T]
    intro = at.markdown[0].value.replace("\\", "")
    assert "read as ‘<unk>’" in intro and "left out" not in intro
    notice = at.success[0].value.replace("\\", "")
    unk = sum(w == "<unk>" for w in words)  # typed unknown words and any in the padding's text
    assert f"{T - unk} of {T} tokens are in the" in notice
    if unk:
        assert (f"the other {unk} are ‘<unk>’" if unk > 1 else "the other is ‘<unk>’") in notice
    else:
        assert "(the other" not in notice
    assert unk > 0 or not unknown


def test_the_learn_page_shows_the_shipped_run_at_once_and_says_why():
    at = open_app(LEARN, {"task": "text"}, timeout=300)
    assert_clean(at)
    assert not any(b.key == "learn_train" for b in at.button), "2,500 steps: shown, not trained in a lecture"
    said = " ".join(c.value for c in at.caption)
    assert "Too long to train live in a lecture" in said and "2,500 Adam steps" in said
    notice = next(s.value for s in at.success if "What to notice" in s.value).replace("\\", "")
    found = compute.text_evidence(_model(PRESET))
    assert f"on {said_sample(found.sample)}" in notice and "raises the second copy's loss the most" in notice
    assert any("next token" in t.columns for t in tables(at))
    steps = next(n for n in at.number_input if n.label == "Adam steps")
    assert steps.value == engine.TASKS["text"].steps == 2500  # the sidebar says the run it shows
    at.run()  # any later click: still the shipped run
    assert next(n for n in at.number_input if n.label == "Adam steps").value == 2500
    assert "Too long to train live in a lecture" in " ".join(c.value for c in at.caption)
    other = open_app(LEARN, {"task": "text", "train_seed": "3"}, timeout=300)
    notice = next(s.value for s in other.success if "What to notice" in s.value)
    assert re.search(r"about \d+ min \d+ s, at the time per step the shipped run took", notice), notice


def test_the_shipped_passage_is_the_one_drawn_from_this_corpus():
    """assets/text/shown.json (a fresh server's text preset without reading the corpus) holds passage 0 as
    presets.draw_passage gives it now: one window of the training length, where it starts, its repeat, its
    chapter; every length's sequence is its prefix."""
    from factory import shown
    from ui.shell import presets

    task = engine.TASKS["text"]
    found = shown.lookup("text")
    assert found is not None, "assets/text/shown.json lacks the text passage: python -m ui.shell.presets --ship-shown"
    drawn = presets.draw_passage("text", 0)
    assert len(found.ids) == task.seq_len
    for name in ("ids", "targets"):
        np.testing.assert_array_equal(getattr(found, name), getattr(drawn, name))
    for name in ("begin", "first", "second", "span", "title"):
        assert getattr(found, name) == getattr(drawn, name), name
    for T in range(task.min_len, task.seq_len + 1):
        assert presets.sample(task, T)[0].tolist() == found.ids[:T].tolist()


def test_a_stale_or_broken_shown_file_is_not_used(tmp_path):
    from factory import shown

    ids = np.arange(4)
    passage = shown.Passage(ids=ids, targets=ids + 1, begin=7, first=0, second=2, span=2, title="Emma, chapter 1")
    good = shown.write({"text": passage}, tmp_path / "shown.json")
    found = shown.lookup("text", good)
    assert found.targets.tolist() == [1, 2, 3, 4] and (found.begin, found.second, found.title) == (
        7,
        2,
        "Emma, chapter 1",
    )
    assert shown.lookup("induction", good) is None
    entry = '"ids": [0,1,2,3], "targets": [1,2,3,4], "begin": 7, "first": 0, "second": 2, "span": 2, "title": "t"'
    for body in (
        '{"corpus": "0000", "text": {' + entry + "}}",
        "not json",
        f'{{"corpus": "{shown.corpus_digest()}", "text": {{"ids": [0, 1], "targets": 3}}}}',
        f'{{"corpus": "{shown.corpus_digest()}", "text": {{' + entry.replace('"begin": 7, ', "") + "}}",
    ):
        bad = tmp_path / f"bad{len(body)}.json"
        bad.write_text(body)
        assert shown.lookup("text", bad) is None


def test_a_fresh_process_shows_the_text_preset_without_reading_the_corpus():
    import subprocess
    import sys

    from conftest import ROOT

    code = (
        "import engine; from engine import text; from ui.shell import presets; "
        "presets.default_words('trained-text'); task = engine.TASKS['text']; "
        "[presets.sample(task, T) for T in range(task.min_len, task.seq_len + 2)]; "
        "presets.passage('text', 0).title; print(text.corpus.cache_info().currsize)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "0", done.stdout + done.stderr


def _charts_in_columns(node, inside: bool = False) -> list[bool]:
    """For every chart of an AppTest page, in order: whether it is drawn inside one of st.columns."""
    from ui.charts.attention_map import NAME

    inside = inside or type(node).__name__ == "Column"
    kind = str(getattr(node, "type", ""))
    chart = "vega" in kind or (kind == "bidi_component" and node.proto.component_name.endswith(NAME))  # issue 49
    found = [inside] if chart else []
    for child in node.children.values() if isinstance(getattr(node, "children", None), dict) else ():
        found += _charts_in_columns(child, inside)
    return found


@pytest.mark.parametrize(
    "page, params, expected",
    [
        ("output", {}, [True, True, False]),  # d_model 16: the two T × d maps side by side
        ("output", {"preset": "trained-text"}, [False, False, False]),  # d_model 64: each the full width
        ("inputs", {"preset": "trained-text"}, [True, False, False]),  # X beside its table; P and X + P below
        ("inputs", {"positional": "1"}, [True, True, True]),
    ],
)
def test_wide_maps_get_the_full_width_and_narrow_ones_sit_side_by_side(page, params, expected):
    at = open_app(site.file(page), params)
    assert_clean(at)
    assert _charts_in_columns(at.main) == expected
