"""Issue 50 on the pages: the model view's table of every head's role with its controls and the per-head page's
head with its controls and counter-example, for every trained preset, read from the shipped controls and printed
through ui.prose.numbers; and every lesson step that names a head's role, read against the one label rule."""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine
from conftest import assert_clean, attention_maps, gloss_tables, open_app, shipped_model, tables
from engine.roles import role_label
from services import evidence as measured
from ui.lessons import shipped
from ui.prose import controls as controls_words
from ui.prose.numbers import parse
from ui.shell import presets, site

PAGE = {p.path: p.file for p in site.PAGES}
TRAINED = [presets.TRAINED_PREFIX + t for t in presets.TRAINED_TASKS]
ROLE_WORDS = {"previous-token head": "previous token", "induction head": "induction"}  # as a lesson names them


def kept(preset: str):
    model = shipped_model(preset.removeprefix(presets.TRAINED_PREFIX))
    found = measured.kept_roles(model)
    assert found is not None, f"{preset}: no shipped controls (python -m factory.ship --roles)"
    return model, found


def numbers_in(cell: str) -> list[str]:
    return re.findall(r"[+−-]?\d[\d.,]*(?:·10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?", cell)


@pytest.mark.parametrize("preset", TRAINED)
def test_the_model_view_shows_every_heads_controls(preset):
    model, found = kept(preset)
    at = open_app(PAGE["model"], {"preset": preset}, timeout=300)
    assert_clean(at)
    table = next(t for t in tables(at) if "95 % interval" in t.columns)
    assert len(table) == len(found)
    for row, one in zip(table.to_dict("records"), found):
        row = {name: cell.replace("\\", "") for name, cell in row.items()}  # Markdown's escapes
        c = one.controls
        assert row["role"] == c.role and row["label"] == controls_words.label(one)
        assert parse(row["score"]) == pytest.approx(c.score, abs=5e-4)
        assert row["95 % interval"] == controls_words.interval(c.lo, c.hi)
        assert parse(row["initial weights"]) == pytest.approx(c.untrained, abs=5e-4)
        assert parse(row["transfer"]) == pytest.approx(c.transfer, abs=5e-4)
        assert row["mean knock-out"] == controls_words.effect(c.mean)
        assert ("shuffled" in row) == (c.shuffled is not None)
    said = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert controls_words.rule() in said and controls_words.MEAN_WHY in said
    assert (controls_words.TASK_TRANSFER in said) == (model.task.held_out is None)  # why that transfer length
    for one in found:
        assert controls_words.why(one) in said
    for name in table.columns:  # each column's one-line gloss, printed, and on its name (hover and focus)
        assert f"{name}: {controls_words.GLOSSES[name]}" in said
    sent = next(t for t in gloss_tables(at) if "95 % interval" in t["heads"])
    assert sent["by"] == "head" and sent["glosses"] == {n: controls_words.GLOSSES[n] for n in table.columns}


def test_no_nonzero_effect_prints_as_zero():
    tiny = engine.roles.Effect(2e-5, -1e-6, 4e-5)
    said = controls_words.effect(tiny)
    assert "0.000" not in said.replace("0.000·", "") and "·10" in said


@pytest.mark.parametrize("preset", TRAINED)
def test_the_per_head_page_shows_its_heads_controls_and_counter_example(preset):
    model, found = kept(preset)
    last = found[-1]
    params = {"preset": preset, "layer": str(last.layer), "head": str(last.head)}
    at = open_app(PAGE["heads"], params, timeout=300)
    assert_clean(at)
    said = " ".join(m.value for m in at.markdown)
    assert f"**{controls_words.label(last)}.**" in said and controls_words.why(last) in said
    table = next(t for t in tables(at) if list(t.columns) == ["control", "value"])
    values = dict(zip(table["control"], table["value"]))
    assert values["score"] == controls_words.score(last) and values["label"] == controls_words.label(last)
    assert values["mean knock-out"] == controls_words.effect(last.controls.mean)
    sent = next(t for t in gloss_tables(at) if t["heads"] == ["control", "value"])
    assert sent["by"] == "row" and sent["glosses"] == {n: controls_words.GLOSSES[n] for n in values}
    charts_before = len(attention_maps(at))
    at.session_state[f"heads_counter_{last.layer}_{last.head}"] = True
    at.run()
    assert_clean(at)
    assert len(attention_maps(at)) == charts_before + 1  # the counter-example's map
    caption = next(c.value for c in at.caption if c.value.startswith(f"Unit {last.controls.weakest} of"))
    shown = parse(numbers_in(caption.split("puts ")[1])[0])
    assert shown <= last.controls.score  # the unit where it follows its role least


def lesson_role_steps():
    for lesson in shipped.every():
        for number, step in enumerate(lesson.steps, start=1):
            words = (step.title + " " + step.text).lower()
            named = [role for phrase, role in ROLE_WORDS.items() if phrase in words]
            if named and step.params().get("ablate"):
                yield pytest.param(step, named, id=f"{lesson.name}-{number}")


@pytest.mark.parametrize(("step", "named"), list(lesson_role_steps()))
def test_each_lesson_step_naming_a_role_follows_the_label(step, named):
    """A step that knocks out 'the previous-token head' or 'an induction head' knocks out heads the one rule names
    for that role (the shipped controls, labelled by engine.roles.role_label)."""
    _, found = kept(step.params()["preset"])
    H = engine.TASKS[step.params()["preset"].removeprefix(presets.TRAINED_PREFIX)].config.num_heads
    for pair in step.params()["ablate"].split(","):
        layer, head = (int(x) for x in pair.split("."))
        one = found[layer * H + head]
        label = role_label(one.controls)
        assert label.name is not None, (step.title, pair, label.reason)
        assert any(label.name.startswith(role) for role in named), (step.title, pair, label.name)


def test_the_lessons_role_facts_say_the_controlled_label():
    """{model.previous_head} and {model.induction_head}: the head most on the role, with the label its controls
    give (ui.prose.controls.tag), never a bare score."""
    model, found = kept("trained-induction")
    from ui import compute

    scores = compute.head_scores(model)
    for role, array in (("previous token", scores.previous), ("induction", scores.induction)):
        layer, head = np.unravel_index(int(np.argmax(array)), array.shape)
        one = found[layer * model.config.num_heads + head]
        assert controls_words.tag(one).startswith(role), controls_words.tag(one)


def test_an_app_trained_task_models_roles_are_measured_within_5_s(tmp_path, monkeypatch):
    """A model trained in the app (not shipped) has no kept controls: they are measured head by head (one core),
    the whole model within 5 s for a task preset, and kept in the disk store for the next visit."""
    import time

    from threadpoolctl import threadpool_limits

    from engine.params import digest
    from engine.training import train
    from factory import store
    from services.weights import Model

    monkeypatch.setenv(store.CACHE_ENV, str(tmp_path))
    task = engine.TASKS["induction"]
    run = train("induction", task.config, seed=3, stop=60)  # another model than the shipped one
    model = Model(run=run, origin="trained here", digest=digest(run.params))
    assert measured.kept_roles(model) is None
    with threadpool_limits(limits=1):
        started = time.perf_counter()
        names = measured.role_names(model)
        found = tuple(
            measured.head_role(model, layer, head, names[layer][head])
            for layer in range(task.config.n_layers)
            for head in range(task.config.num_heads)
        )
        took = time.perf_counter() - started
    assert took < 5, f"{took:.1f} s"
    measured.keep_roles(model, found)
    assert measured.kept_roles(model) == found
