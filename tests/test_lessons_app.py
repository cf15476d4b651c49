"""A lesson taken alone, under AppTest (issue 35): every step of the three shipped lessons draws with no
exception, on its page, with its settings and its text; Back and Next (and the steps list) go to each step's
own settings while a student may change any on the way; the Inputs page lists the lessons; a bad link gets
a note; the Learn page's replay step is a URL key."""

from __future__ import annotations

import re

import pytest
from test_words import text_of

from conftest import assert_clean, open_app, replay_shown, replay_to, tables
from ui import compute
from ui.lessons import facts, progress, shipped
from ui.lessons.lesson import view_of
from ui.shell import site, url

STEPS = [(name, i) for name in shipped.names() for i in range(1, len(shipped.load(name).steps) + 1)]
# Numbers a step's text prints that its page shows only in a chart's title, another format or another
# sentence of the same function (each checked by the words tests in tests/test_lessons.py).
ELSEWHERE = {
    ("self-attention", 3): {"5", "0.171"},  # T is a chart title; the intro prints std to 2 decimals
    ("multi-head", 4): {"16"},  # W_O's 16 × 16 is a chart title
    ("induction", 2): {"379", "90%"},  # the lock step: the replay's chart of which head locked when
    ("induction", 3): {"379", "90%"},
}


def knockout_elsewhere(step) -> set[str]:
    """A knock-out's numbers the model view shows another way: the accuracy and loss with nothing knocked out
    (the metrics' deltas) and the loss's ratio (the two loss figures' quotient), read from the page's metrics."""
    if "{model.knockout_effect}" not in step.text:
        return set()
    from ui.prose.numbers import fmt
    from ui.sections.model.facts import _model

    view = view_of(step)
    trained, T = _model(view, compute), len(view.words)
    base, out = compute.metrics(trained, T), compute.metrics(trained, T, view.controls.ablate)
    return {
        f"{base.overall_accuracy:.1%}",
        fmt(base.overall_loss, ".3g"),
        fmt(out.overall_loss / base.overall_loss, ".2g"),
    }


def bar_text(at) -> str:
    return " ".join(m.value for m in at.markdown).replace("\\", "")


def page_text(at) -> str:
    return (
        text_of(at) + "\n" + "\n".join(" ".join(map(str, t.astype(str).to_numpy().ravel())) for t in tables(at))
    ).replace("\\", "")


def params(at) -> dict[str, str]:
    return {
        k: at.query_params[k][0] if isinstance(at.query_params[k], list) else at.query_params[k]
        for k in at.query_params
    }


def settings(params_: dict[str, str]) -> dict[str, str]:
    """The view's own settings of a URL (not the lesson's, the poll's or the viewer's)."""
    return {k: v for k, v in params_.items() if k not in ("lesson", "step", "present", "sidebar", "room", "seat")}


def step_settings(step) -> dict[str, str]:
    return url.to_params(step.controls())


@pytest.mark.parametrize("name,number", STEPS, ids=[f"{n}-{i}" for n, i in STEPS])
def test_every_step_draws_on_its_page_with_its_settings_and_its_text(name, number):
    step = shipped.load(name).at(number)
    at = open_app(None, {"lesson": name, "step": str(number)}, timeout=120)
    assert_clean(at)
    assert at.title[0].value == site.by_path(step.page).title
    assert params(at)["lesson"] == name and params(at)["step"] == str(number)
    assert settings(params(at)) == step_settings(step)
    said = bar_text(at)
    lesson = shipped.load(name)
    assert f"Step {number} of {len(lesson.steps)}: {step.title}" in said
    filled = facts.fill(step.text, view_of(step), compute)
    assert filled in said
    shown = page_text(at).replace(filled, "")
    printed = {
        x
        for n in facts.names(step.text)
        for x in re.findall(r"\d+(?:\.\d+)?%?", facts.FACTS[n].value(view_of(step), compute))
    }
    assert printed - ELSEWHERE.get((name, number), set()) - knockout_elsewhere(step) <= {
        x for x in printed if x in shown
    }, sorted(x for x in printed if x not in shown)


def test_next_back_and_a_change_on_the_way():
    lesson = shipped.load("self-attention")
    at = open_app(None, {"lesson": "self-attention", "step": "2"}, timeout=60)
    assert at.title[0].value == "Q, K, V projections"
    at.sidebar.slider(key="seq_len").set_value(7).run()  # allowed: a setting changed on the way
    assert_clean(at)
    assert params(at)["seq_len"] == "7" and "You changed this step's settings" in " ".join(c.value for c in at.caption)
    at.button(key=progress.NEXT).click().run()  # the next step's own settings
    assert at.title[0].value == "Scaled scores" and settings(params(at)) == step_settings(lesson.at(3))
    at.button(key=progress.BACK).click().run()
    assert at.title[0].value == "Q, K, V projections" and params(at)["step"] == "2"
    assert settings(params(at)) == step_settings(lesson.at(2))  # Back also brings the step's own
    at.sidebar.slider(key="seq_len").set_value(3).run()
    at.button(key=progress.RESTORE).click().run()
    assert settings(params(at)) == step_settings(lesson.at(2))


def test_the_steps_list_jumps_and_leaving_ends_the_lesson():
    at = open_app(None, {"lesson": "induction"}, timeout=120)
    assert at.title[0].value == "Learn: train a head" and params(at)["replay"] == "0"
    at.session_state[progress.LIST] = True  # open the list (drawn once opened)
    at.run()
    radio = at.radio(key=progress.JUMP)
    assert list(radio.options)[4].replace("\\", "").startswith("5. Knock out")
    radio.set_value(5).run()
    assert_clean(at)
    assert at.title[0].value == "Model view: every head" and params(at)["ablate"] == "0.1" and params(at)["step"] == "5"
    at.button(key=progress.LEAVE).click().run()
    assert "lesson" not in params(at) and not any(b.key == progress.NEXT for b in at.button)


def test_the_inputs_page_lists_every_lesson_and_starts_one():
    at = open_app(None, {}, timeout=60)
    said = page_text(at)
    for lesson in shipped.every():
        assert lesson.title in said and lesson.summary in said
    at.segmented_control(key=progress.TAKE).set_value("multi-head").run()
    assert_clean(at)
    assert params(at)["lesson"] == "multi-head" and params(at)["step"] == "1"
    assert "Step 1 of 7" in bar_text(at)


def test_presenter_view_leaves_page_up_and_page_down_to_the_lesson():
    at = open_app(None, {"lesson": "multi-head", "present": "1"}, timeout=60)
    keys = {b.key for b in at.button}
    assert progress.NEXT in keys and "step_next" not in keys and "step_back" not in keys
    assert any(e.label == "Note for the presenter" for e in at.expander)
    plain = open_app(None, {"present": "1"}, timeout=60)
    assert "step_next" in {b.key for b in plain.button}  # without a lesson: the pages' own
    assert not any(w.key == progress.TAKE for w in plain.segmented_control)  # no lessons list in presenter view


@pytest.mark.parametrize(
    "link,said",
    [
        ({"lesson": "nope"}, "There is no lesson 'nope'"),
        ({"lesson": "induction", "step": "99"}, "is not a step of"),
        ({"lesson": "<b>x</b>"}, "There is no lesson"),
    ],
)
def test_a_bad_lesson_link_gets_a_note(link, said):
    at = open_app(None, link, timeout=120)
    assert_clean(at)
    assert said in " ".join(i.value for i in at.info).replace("\\", "")


def test_a_link_with_settings_of_its_own_keeps_them():
    """A reload (or a shared link) of a changed view keeps the view; the bar still says which step it is."""
    at = open_app("pages/scores.py", {"lesson": "self-attention", "step": "3", "preset": "day33", "seq_len": "4"})
    assert params(at)["seq_len"] == "4" and "Step 3 of 8" in bar_text(at)


def test_the_learn_replay_step_is_a_url_key_and_needs_no_train_press():
    at = open_app(site.by_path("learn").file, {"task": "induction", "replay": "352"}, timeout=120)
    assert_clean(at)
    assert replay_shown(at) == 352 and not any(b.key == "learn_train" for b in at.button)
    replay_to(at, 320)
    assert params(at)["replay"] == "320"
    fresh = open_app(site.by_path("learn").file, {"task": "induction"}, timeout=120)
    assert any(b.key == "learn_train" for b in fresh.button) and "replay" not in params(fresh)
