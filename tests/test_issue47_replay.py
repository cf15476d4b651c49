"""Issue 47, item 16: a link's replay step on the Learn page. /learn?…&replay=9999, replay=-5 and replay=50 (no
saved step of the run) showed another step, or the untrained view, without a word, and the address kept the
step asked for; now the nearest saved step is shown, a notice names it, and the address is corrected to it.
replay=abc (no whole number) says what the page shows instead. The steps are read from the shipped run."""

from __future__ import annotations

import pytest

from conftest import open_learn, replay_shown, shipped_model
from ui.sections.learn import words as learn_words
from ui.shell import url

shipped, learn = shipped_model, open_learn


def _replay_case(model, asked: str):
    steps = [s for s, _ in model.run.checkpoints]
    value = int(asked)
    return min(steps, key=lambda s: (abs(s - value), s))


@pytest.mark.parametrize("asked", ["9999", "-5", "50"])
def test_a_replay_step_the_run_did_not_save_is_said_and_the_address_corrected(asked):
    model = shipped("induction")
    shown = _replay_case(model, asked)
    assert shown != int(asked)
    at = learn({"task": "induction", "replay": asked})
    assert replay_shown(at) == shown
    notes = " ".join(i.value for i in at.info).replace("\\", "")
    assert learn_words.replay_rounded(int(asked), shown, [s for s, _ in model.run.checkpoints]) in notes
    assert f"after step {shown}" in notes and at.query_params["replay"] == str(shown)


def test_a_saved_replay_step_is_shown_without_a_notice_and_kept():
    model = shipped("induction")
    step = [s for s, _ in model.run.checkpoints][len(model.run.checkpoints) // 2]
    at = learn({"task": "induction", "replay": str(step)})
    assert replay_shown(at) == step
    assert not [i for i in at.info if "replay=" in i.value.replace("\\", "")]
    assert at.query_params["replay"] == str(step)


def test_an_unreadable_replay_step_says_what_is_shown():
    controls, problems = url.from_params({"task": "induction", "replay": "abc"})
    assert controls.replay_step is None
    assert any("replay='abc'" in p and "the Learn page opens as without one" in p for p in problems)
    at = learn({"task": "induction", "replay": "abc"})
    notes = " ".join(i.value for i in at.info).replace("\\", "")
    assert "replay='abc'" in notes and "the model before training and its Train button" in notes
    assert any(b.key == "learn_train" for b in at.button) and "replay" not in at.query_params
    assert url.from_params({"replay": "-5"})[0].replay_step == -5 and not url.from_params({"replay": "9999"})[1]
    text = learn({"preset": "trained-text", "task": "text", "replay": "abc"})  # too long to train live: its last step
    last = [s for s, _ in shipped("text").run.checkpoints][-1]
    assert replay_shown(text) == last
    assert "a run too long to train live at its last step" in " ".join(i.value for i in text.info).replace("\\", "")
