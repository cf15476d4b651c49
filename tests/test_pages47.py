"""Issue 47's lecturer's read of the English text preset's pages (?preset=trained-text at 32 and 64 tokens, and
another passage): what that read found, each with a test that fails without its fix. Expected numbers are
read from the trace and the tokens shown, not typed."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ui import compute
from ui.sections.inputs import words as inputs_words
from ui.sections.output import words as output_words
from ui.shell import site

TEXT = [
    dict(preset="trained-text", seq_len=32),
    dict(preset="trained-text", seq_len=64),
    dict(preset="trained-text", seq_len=64, passage=3),
]


from conftest import link_trace, link_view  # noqa: E402

view, trace = link_view, link_trace


@pytest.mark.parametrize("params", TEXT, ids=lambda p: "&".join(f"{k}={v}" for k, v in p.items()))
def test_the_inputs_notice_counts_repeated_words_not_repeated_unk(params):
    """It said '25 tokens repeat an earlier word' at 64 tokens, counting each '<unk>' after the first: an '<unk>'
    stands for any word outside the vocabulary (the 64 tokens' six are six different words of the text), so a
    repeated '<unk>' is no repeated word; the notice counts the known words that come again."""
    v = view("inputs", **params)
    words, stand_in = v.words, "<unk>"
    unknown = words.count(stand_in)
    said = inputs_words.inputs_notice(trace(v), words, len(words) - unknown, "Trained: English text", stand_in)
    repeated = sum(w != stand_in and w in words[:i] for i, w in enumerate(words))
    assert repeated and (unknown > 1 or params.get("passage"))  # passage 0 shows several <unk>
    found = re.search(r"(\d+) tokens? repeats? an earlier word", said)
    assert found and int(found.group(1)) == repeated, said


def test_the_inputs_notice_with_only_unk_repeated_does_not_call_every_row_different():
    v = view("inputs", preset="trained-text", seq_len=4)
    shown = ("<unk>", "she", "<unk>", "said")  # two words outside the vocabulary
    said = inputs_words.inputs_notice(trace(v), shown, 2, "Trained: English text", "<unk>")
    assert "every row of X is different" not in said and "every word is different" not in said
    assert "the only equal rows of X are the 2 ‘<unk>’ rows" in said.replace("\\", ""), said


@pytest.mark.parametrize("params", TEXT[:2], ids=lambda p: "&".join(f"{k}={v}" for k, v in p.items()))
def test_a_count_of_thousands_is_printed_with_its_separator(params):
    """The block output page said 'the ReLU zeroed 94% of the 8192 hidden values' while every other count on the
    page prints its thousands (vocabulary of 1,000 tokens)."""
    t = trace(view("output", **params))
    T, F = t.ffn_hidden.shape
    said = output_words.output_notice(t)
    assert f"{T * F:,} hidden values" in said and f"{T * F} hidden" not in said, said


@pytest.mark.parametrize("heads", [1, 2])
def test_the_learn_notice_says_its_weight_for_one_head_their_for_several(heads):
    """The English text's Learn page said 'layer 0 head 0 (69%) put more than half of their weight on the previous
    token': one head, 'its' weight."""
    import numpy as np

    import engine
    import engine.loss_curve
    from ui.sections.learn import words as learn_words

    losses = np.linspace(5.0, 3.0, 200)
    previous = np.zeros((2, 2, 4))
    previous[:, 0, :heads] = 0.7  # layer 0: `heads` heads on the previous token
    shares = np.zeros((2, 2, 4))
    sample = engine.sample.followed("text", 50, 0)
    said = learn_words.depth_notice(
        losses,
        engine.loss_curve.steepest_fall(losses),
        np.array([0, 199]),
        shares,
        previous,
        1,
        0.3,
        "English text",
        "",
        sample,
        sample,
    )
    whose = "its" if heads == 1 else "their"
    assert f"put more than half of {whose} weight on the previous token" in said, said


def test_the_text_runs_steps_print_their_thousands_as_the_learn_page_does():
    """The sidebar said '2500 Adam steps' (and the Learn page's trained-weights caption too) under the Learn
    page's 'Too long to train live in a lecture (2,500 Adam steps …)': one number, one way."""
    import engine
    from ui.shell import presets

    steps = engine.TASKS["text"].steps
    assert steps >= 1000
    said = presets.summary("trained-text", T=32)
    assert f"{steps:,} Adam steps" in said and f"{steps} Adam steps" not in said, said
    source = (__import__("conftest").ROOT / "ui/sections/learn/replay.py").read_text(encoding="utf-8")
    assert "({run.steps:,} Adam steps" in source


@pytest.mark.parametrize("T", [32, 64])
def test_the_exercise_says_when_one_more_token_is_past_the_models_training(T):
    """At 64 tokens under the English text preset the exercise ran 65 tokens through a model trained on 64-token
    sequences and named what the new row attends to without a word that position 64 is outside its training."""
    import engine
    from conftest import open_app

    L = engine.TASKS["text"].seq_len
    at = open_app(site.file("exercise"), {"preset": "trained-text", "seq_len": str(T)}, timeout=120)
    said = " ".join(str(c.value) for c in at.caption).replace("\\", "")
    told = f"The model trained on {L}-token sequences (positions 0–{L - 1})"
    assert (told in said) == (T + 1 > L), said
    if T + 1 > L:
        assert f"sits at position {T}, where it never saw a token in training" in said


@pytest.mark.parametrize("preset", ["trained-induction", "trained-text"])
def test_the_loss_by_position_names_no_extreme_measured_on_too_few_sequences(preset):
    """The induction Learn page (every step of the induction lesson on it) said the mean loss is 'lowest at
    position 8 (0.00849, accuracy 100.0%)', a position scored in 2 of the 1,000 sequences: the app's own rule
    (numbers.MIN_CASES) calls a rate on fewer than 30 cases too few to tell. The extremes are named among the
    positions scored often enough, and the others are named as too few."""
    from services import weights
    from ui.prose.numbers import MIN_CASES
    from ui.sections.learn import words_knockouts as learn_knockout_words
    from ui.shell import presets

    model = weights.find(presets.base_config(preset), presets.training(preset))
    m = compute.metrics(model)
    said = learn_knockout_words.by_position(m.loss, m.accuracy, m.scored, m.count, model.task.title, m.sample)
    named = [int(p) for p in re.findall(r"(?:highest|lowest) at position (\d+)", said)]
    assert len(named) == 2 and all(m.count[p] >= MIN_CASES for p in named), said
    few = [int(p) for p in np.flatnonzero(m.scored) if m.count[p] < MIN_CASES]
    assert (f"in at least {MIN_CASES} of them" in said) == bool(few), said
    if preset == "trained-induction":
        assert few  # the shipped run has such positions
        enough = [p for p in np.flatnonzero(m.scored) if m.count[p] >= MIN_CASES]
        assert named == [enough[int(np.argmax(m.loss[enough]))], enough[int(np.argmin(m.loss[enough]))]]


def test_the_text_tasks_description_does_not_say_one_head_solves_it():
    """The English text's Learn page said 'A head that solves it must look at the token right after an earlier
    copy of the current one … No single pattern solves language': the pattern is what a head that copies must
    do, not a solution of the task; the letter tasks, which one pattern solves, keep their words."""
    import engine
    from ui.sections.learn import words as learn_words

    for name, task in engine.TASKS.items():
        said = learn_words.task(name)
        assert ("A head that solves it must" in said) == (task.held_out is None), (name, said)
    said = learn_words.task("text")
    assert "A head that copies earlier text must" in said and "No single pattern solves language" in said


@pytest.mark.parametrize("task", ["previous", "text"])
def test_the_learn_intro_says_no_one_pattern_answers_english_text(task):
    """The Learn page opened 'Each task has a right answer that an attention pattern gives … its attention maps
    move … to the pattern' above the English text's 'No single pattern solves language'."""
    import engine
    from conftest import open_app

    params = {"task": task} if task != "text" else {"preset": "trained-text", "task": "text"}
    at = open_app(site.file("learn"), params, timeout=120)
    said = " ".join(m.value for m in at.markdown).replace("\\", "")
    one = engine.TASKS[task].held_out is None
    assert ("Each task has a right answer that an attention pattern gives" in said) == one, said[:400]
    assert ("has no answer that one attention pattern gives" in said) == (not one), said[:400]


def test_the_saved_steps_help_says_what_the_steps_show_not_where_attention_changes_fastest():
    """The replay slider's help said the saved steps are 'dense in the first steps, where attention changes
    fastest': nothing measures where attention changes fastest; it states the steps' own spacing."""
    import engine
    from ui.sections.learn import words as learn_words

    steps = engine.training.checkpoint_steps(engine.TASKS["text"].steps)
    said = learn_words.saved_steps(steps, None)
    assert "fastest" not in said, said
    gaps = np.diff(steps)
    assert f"{int(gaps[0])} apart at first, up to {int(gaps.max())} apart later" in said, said
    assert int(np.argmax(gaps)) >= len(gaps) // 2  # 'later': the widest gap is in the second half
