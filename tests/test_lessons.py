"""Lesson files (issue 35): the three shipped lessons read, check and fill at every step; a bad file gets a
message that names the step, the field and the fix; a lesson written back reads again the same. The words
tests run over every step of every shipped lesson: no number is typed, every sentence follows the pages'
rules, and the few things the typed words claim hold at the step's own numbers."""

from __future__ import annotations

import re

import pytest
from test_words import bad_words

from tests import rules
from ui import compute
from ui.lessons import check, facts, shipped
from ui.lessons.lesson import MAX_BYTES, Lesson, LessonError, Step, dump, parse, view_of

LESSONS = shipped.names()
STEPS = [(name, i) for name in LESSONS for i in range(1, len(shipped.load(name).steps) + 1)]
GOOD = """title = "A lesson"
summary = "One line."

[[steps]]
title = "Scores"
page = "scores"
text = "The divisor is {scores.divisor}."
note = "Say it."
[steps.settings]
preset = "day33"
seq_len = 6
"""


def filled(name: str, number: int, field: str = "text") -> str:
    step = shipped.load(name).at(number)
    return facts.fill(getattr(step, field), view_of(step), compute)


def refused(text: str | bytes, *fragments: str) -> str:
    with pytest.raises(LessonError) as err:
        parse(text, "x")
    said = str(err.value)
    for fragment in fragments:
        assert fragment in said, said
    return said


# --------------------------------------------------------------------------- the shipped lessons
def test_three_lessons_ship_each_of_six_to_twelve_steps():
    assert LESSONS[:3] == ("self-attention", "multi-head", "induction")
    for name in LESSONS:
        lesson = shipped.load(name)
        assert 6 <= len(lesson.steps) <= 12 and lesson.title and lesson.summary, name


@pytest.mark.parametrize("name", LESSONS)
def test_every_step_s_numbers_can_be_had(name):
    """Every fact has a value, every question can be graded, every replay step is saved (the room's check)."""
    assert check.check(shipped.load(name), compute) == shipped.load(name)


def test_the_induction_lesson_points_at_the_drop_and_the_circuit():
    lesson = shipped.load("induction")
    pages = [s.page for s in lesson.steps]
    assert pages.count("learn") >= 3 and pages.count("model") >= 4
    assert any(
        s.params().get("ablate") == "0.1" and s.params().get("preset") == "trained-induction" for s in lesson.steps
    )
    assert any(s.params().get("layers") == "1" for s in lesson.steps)  # one layer against two
    assert not any(s.params().get("preset") == "trained-text" for name in LESSONS for s in shipped.load(name).steps)


def test_the_day33_lesson_ends_with_the_exercise_and_its_question():
    steps = shipped.load("self-attention").steps
    assert [s.page for s in steps[:5]] == ["inputs", "qkv", "scores", "scores", "softmax"]
    assert any(s.page == "exercise" and s.question for s in steps)
    assert {s.params().get("scale") for s in steps if s.page == "scores"} == {"0", None}  # before and after ÷√d


@pytest.mark.parametrize("name", LESSONS)
def test_a_lesson_written_back_reads_the_same(name):
    lesson = shipped.load(name)
    assert parse(dump(lesson), name) == lesson


def test_any_text_survives_the_round_trip():
    odd = 'quotes " and \\ backslashes,\ttabs,\nnew lines, ‘unicode’ √ ÷ → and a brace-free {scores.T}'
    lesson = Lesson(
        "odd",
        'T "1"',
        "s\\",
        (Step("a\nb", "scores", (("seq_len", "6"), ("beta", "0.5"), ("text", "007"), ("cell", "1,2")), odd, "", True),),
    )
    assert parse(dump(lesson), "odd") == lesson


# --------------------------------------------------------------------------- bad files
def test_a_good_file_reads():
    lesson = parse(GOOD, "x")
    assert lesson.at(1).controls().seq_len == 6 and lesson.at(1).controls().preset == "day33"


def test_an_unknown_page_is_named_with_the_pages():
    refused(
        GOOD.replace('page = "scores"', 'page = "score"'),
        "Step 1 ('Scores'), page: 'score' is not a page",
        "Use one of: inputs, qkv, scores",
    )


def test_a_setting_out_of_range_says_the_range():
    refused(
        GOOD.replace("seq_len = 6", "seq_len = 99"),
        "Step 1 ('Scores'), settings: seq_len='99' is not valid",
        "must be between 2 and 64",
        "leave the key out",
    )


def test_a_setting_that_settle_would_change_is_refused_not_moved():
    refused(GOOD.replace("seq_len = 6", "heads = 3"), "3 heads do not divide d_model=8")


def test_an_unknown_setting_and_the_viewer_s_own_are_refused():
    refused(GOOD.replace("seq_len = 6", "seq_lne = 6"), "settings.seq_lne: no such setting", "seq_len")
    refused(GOOD.replace("seq_len = 6", "present = 1"), "settings.present: is the viewer's own choice")


def test_a_steps_pace_reads_and_a_bad_one_says_the_fix():
    two = GOOD + GOOD[GOOD.index("[[steps]]") :]  # two steps
    paced = parse(two.replace('note = "Say it."', 'note = "Say it."\npace = [1, 2]', 1), "x")
    assert (paced.at(1).pace, paced.at(2).pace) == ((1, 2), None)
    assert "pace = [1, 2]" in dump(paced) and parse(dump(paced), "x") == paced
    with_pace = lambda value: two.replace('note = "Say it."', f'note = "Say it."\npace = {value}', 1)  # noqa: E731
    refused(with_pace("[2, 1]"), "Step 1 ('Scores'), pace: [2, 1] is not a range of this lesson's steps", "1 to 2")
    refused(with_pace("[1, 3]"), "pace: [1, 3] is not a range", "from 1 to 2")
    refused(with_pace("[2, 2]"), "pace: [2, 2] must include this step (1)")
    refused(with_pace('"student"'), "Step 1 ('Scores'), pace: must be two step numbers", "pace = [2, 4]")
    refused(with_pace("[1, true]"), "pace: must be two step numbers")
    refused(with_pace("[1.0, 2]"), "pace: must be two step numbers")


def test_a_missing_field_says_what_to_add():
    refused(
        GOOD.replace('text = "The divisor is {scores.divisor}."\n', ""),
        "Step 1 ('Scores'), text: missing",
        'Add text = "…"',
    )
    refused(GOOD.replace('title = "A lesson"\n', ""), "The lesson, title: missing")
    refused(GOOD.split("[[steps]]")[0], "The lesson, steps: none")


def test_two_megabytes_are_refused_before_reading():
    big = GOOD + "# " + "x" * 2_000_000 + "\n"
    refused(big.encode(), "2,000,", f"at most {MAX_BYTES:,}")


@pytest.mark.parametrize("html", ["<b>bold</b>", "<script>alert(1)</script>", "<!-- x -->", "&lt;", "<img src=x>"])
def test_html_in_a_text_is_refused(html):
    refused(
        GOOD.replace("Say it.", f"Say {html} it."),
        "Step 1 ('Scores'), note: HTML is not allowed",
        "shown exactly as typed",
    )


def test_an_unknown_fact_and_a_stray_brace_are_refused():
    said = refused(GOOD.replace("{scores.divisor}", "{scores.divisr}"), "{scores.divisr} is not a number")
    assert "{scores.divisor}" in said  # the page's facts are listed
    refused(GOOD.replace("{scores.divisor}", "{2}"), "a brace that is not a fact's")


def test_not_toml_and_not_text_are_refused():
    refused("title = ", "not valid TOML")
    refused(b"\xff\xfe\x00", "not text")


def test_a_step_whose_numbers_cannot_be_had_is_refused_by_the_check():
    bad = parse(GOOD.replace("seq_len = 6", "scale = 0"), "x")  # no divisor with scaling off
    with pytest.raises(LessonError, match=r"Step 1 \('Scores'\), text: \{scores.divisor\} has no value.*scaling"):
        check.check(bad, compute)
    asks = parse(
        GOOD.replace('page = "scores"', 'page = "qkv"')
        .replace("{scores.divisor}", "x")
        .replace('note = "Say it."', 'note = "Say it."\nquestion = true'),
        "x",
    )
    with pytest.raises(LessonError, match=r"question: the page 'qkv' has no poll question.*question = false"):
        check.check(asks, compute)
    replay = parse(
        GOOD.replace('page = "scores"', 'page = "learn"')
        .replace("{scores.divisor}", "x")
        .replace('preset = "day33"\nseq_len = 6', 'task = "induction"\nreplay = 335'),
        "x",
    )
    with pytest.raises(
        LessonError, match=r"settings.replay: 335 is not a saved step.*nearest saved steps are \d+ and \d+"
    ):
        check.check(replay, compute)


def test_every_problem_is_said_at_once():
    said = refused(GOOD.replace('page = "scores"', 'page = "x"').replace("seq_len = 6", "seq_len = 1"))
    assert "page" in said and "seq_len" in said


# --------------------------------------------------------------------------- the words
DIGIT = re.compile(r"\d")


@pytest.mark.parametrize("name,number", STEPS)
def test_no_number_is_typed(name, number):
    step = shipped.load(name).at(number)
    for field in ("title", "text", "note"):
        typed = facts.PLACE.sub("", getattr(step, field))
        assert not DIGIT.search(typed), (field, typed)


@pytest.mark.parametrize("name,number", STEPS)
def test_every_step_s_words_follow_the_pages_rules(name, number):
    said = filled(name, number) + "\n" + filled(name, number, "note")
    assert not bad_words(said)
    assert not rules.same_item_twice(said) and not rules.one_minus_tiny(said) and not rules.off_scale(said)
    assert not rules.too_few(said, 30)
    assert "{" not in said and "nan" not in said.lower().split()


# What the typed words claim at a step, checked on the step's own numbers: a claim that stops being true
# (other shipped weights, another rule) fails here, not in a lecture.
def _percent(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"(\d+(?:\.\d+)?)%", text)]


def _shrinks(text: str) -> bool:
    before, after = re.search(r"shrinks from (\d+(?:\.\d+)?) to (\d+(?:\.\d+)?)", text).groups()
    return float(after) < float(before)


def _loss_ratio(text: str) -> float:
    before, after = re.search(r"loss [^()]*\((\d+(?:\.\d+)?) → (\d+(?:\.\d+)?)\)", text).groups()
    return float(after) / float(before)


def _claims():
    return {
        ("self-attention", 4): lambda t: _shrinks(t),
        ("self-attention", 5): lambda t: "spread almost evenly" in t and "untrained" in t,
        ("multi-head", 6): lambda t: "small next to" in t or "tiny next to" in t,
        ("induction", 2): lambda t: "before the loss's steepest fall" in t and "locks on" in t,
        ("induction", 3): lambda t: re.search(r"(during|after) the loss's steepest fall \(steps \d+–\d+", t),
        ("induction", 4): lambda t: (
            re.search(r"previous token is layer 0 head \d", t)
            and re.search(r"earlier copy of the current one is layer 1 head \d", t)
        ),
        ("induction", 5): lambda t: "accuracy falls" in t and "previous token" in t,
        ("induction", 6): lambda t: _percent(t)[-1] > 50 and _loss_ratio(t) >= 3,  # "most first, far less sure"
        ("induction", 7): lambda t: "accuracy falls" in t and _percent(t)[-1] < 20,  # "nothing copies"
        ("induction", 8): lambda t: _percent(t)[0] < _percent(t)[1] - 30,  # one layer cannot
    }


@pytest.mark.parametrize("key", list(_claims()), ids=lambda k: f"{k[0]}-{k[1]}")
def test_what_the_typed_words_claim_holds(key):
    text = filled(*key)
    assert _claims()[key](text), text


def test_the_checks_catch_what_they_must():
    """The rules above fail on words that break them (a test that cannot fail is a defect)."""
    assert DIGIT.search(facts.PLACE.sub("", "at step 3 {learn.step}"))
    assert not DIGIT.search(facts.PLACE.sub("", "at step {learn.step}"))
    assert not _claims()[("induction", 6)](
        "the loss grows to 66 times its value (0.0302 → 1.98), and accuracy falls from 99.5% to 44.9%"
    )
    assert not _claims()[("induction", 6)](
        "accuracy barely moves (99.5% → 97.8%), while the loss barely moves (0.0302 → 0.0310)"
    )
    assert facts.unknown("{model.nothing}") and not facts.unknown("{model.accuracy}")


def test_the_readme_s_lesson_file_loads_and_checks():
    from conftest import ROOT

    readme = (ROOT / "README.md").read_text()
    block = readme.split("**A lesson file.**", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    lesson = check.check(parse(block, "readme"), compute)
    assert [s.page for s in lesson.steps] == ["scores", "scores"] and lesson.at(2).question
    for step in lesson.steps:
        assert "{" not in facts.fill(step.text, view_of(step), compute)
    listed = " ".join(readme.split("The facts, by page:", 1)[1].split("(each described", 1)[0].split())
    parts = listed.split("`")[1:]  # page, its names, page, its names, ...
    said = {
        f"{page.rstrip('.')}.{name.strip()}"
        for page, names in zip(parts[::2], parts[1::2])
        for name in names.strip(" ;").split(",")
    }
    assert said == set(facts.FACTS), said ^ set(facts.FACTS)  # the README lists every fact, no other
