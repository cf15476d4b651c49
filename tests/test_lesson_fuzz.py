"""Any lesson file a lecturer uploads is read or refused in words, never a traceback: lesson.parse on any
TOML document made of the lesson's own fields and strangers (any value type, at any depth, texts with HTML,
braces, control characters and other scripts) returns a lesson or raises LessonError with each problem as a
sentence; a lesson it returns is written back by dump() and reads back the same. (tests/test_lessons.py
checks each mistake a lecturer makes, one by one; this is the property over any document.)"""

from __future__ import annotations

import datetime
import math

from hypothesis import HealthCheck, given, settings, strategies

from ui.lessons import lesson as ls
from ui.shell import site

PAGES = [p.path for p in site.PAGES]
TEXTS = strategies.one_of(
    strategies.text(max_size=60),
    strategies.sampled_from(
        ["Scores", "{scores.max}", "<b>x</b>", "&amp;", "{", "}", "a\x00b", "ß", "x" * 1300, ""] + PAGES
    ),
)
SCALARS = strategies.one_of(
    TEXTS,
    strategies.integers(-(10**12), 10**12),
    strategies.floats(allow_nan=True),
    strategies.booleans(),
    strategies.just(datetime.date(2026, 12, 3)),
)
VALUES = strategies.recursive(
    SCALARS,
    lambda inner: strategies.one_of(
        strategies.lists(inner, max_size=3),
        strategies.dictionaries(strategies.sampled_from(["a", "b", "x y"]), inner, max_size=3),
    ),
    max_leaves=6,
)
SETTINGS = strategies.dictionaries(
    strategies.sampled_from(list(ls.SETTINGS[:12]) + ["present", "zzz"]),
    strategies.one_of(strategies.integers(-5, 70), TEXTS, strategies.floats(allow_nan=True), strategies.booleans()),
    max_size=4,
)
STEP = strategies.fixed_dictionaries(
    {},
    optional={
        "title": TEXTS,
        "page": strategies.one_of(strategies.sampled_from(PAGES), TEXTS),
        "text": TEXTS,
        "note": TEXTS,
        "question": strategies.one_of(strategies.booleans(), VALUES),
        "pace": strategies.one_of(strategies.lists(strategies.integers(-2, 6), max_size=3), VALUES),
        "settings": strategies.one_of(SETTINGS, VALUES),
        "extra": VALUES,
    },
)
DOC = strategies.fixed_dictionaries(
    {},
    optional={
        "title": TEXTS,
        "summary": TEXTS,
        "steps": strategies.one_of(strategies.lists(STEP, max_size=4), VALUES),
        "other": VALUES,
    },
)


# A well-formed lesson: any letters, digits and punctuation in its texts (no braces, no markup), real pages,
# settings a link may carry.
PLAIN = strategies.text(
    strategies.characters(categories=("L", "N", "Zs"), include_characters=".,;:!?'-()\"\\/"), min_size=1, max_size=60
).filter(str.strip)
GOOD_STEP = strategies.fixed_dictionaries(
    {"title": PLAIN, "page": strategies.sampled_from(PAGES), "text": PLAIN, "note": PLAIN},
    optional={
        "question": strategies.booleans(),
        "settings": strategies.sampled_from(
            [{}, {"seq_len": 8}, {"d_model": 32}, {"preset": "day33"}, {"causal": "1"}]
        ),
    },
)
GOOD = strategies.fixed_dictionaries(
    {"title": PLAIN, "summary": PLAIN, "steps": strategies.lists(GOOD_STEP, min_size=1, max_size=4)}
)


def toml(value) -> str:
    """A value as a TOML expression (inline tables and arrays: any depth on one line)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return ls._string(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{ls._string(k)} = {toml(v)}" for k, v in value.items()) + "}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.one_of(DOC, GOOD))
def test_any_lesson_document_reads_or_is_refused_in_words(doc):
    source = "\n".join(f"{ls._string(key)} = {toml(value)}" for key, value in doc.items())
    try:
        found = ls.parse(source, "uploaded")
    except ls.LessonError as err:
        assert err.problems and all(isinstance(p, str) and p.strip() for p in err.problems)
        return
    assert isinstance(found, ls.Lesson) and found.steps
    assert ls.parse(ls.dump(found), "uploaded") == found


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GOOD)
def test_a_well_formed_lesson_reads_and_writes_back_the_same(doc):
    found = ls.parse("\n".join(f"{ls._string(key)} = {toml(value)}" for key, value in doc.items()), "uploaded")
    assert [step.page for step in found.steps] == [step["page"] for step in doc["steps"]]
    assert ls.parse(ls.dump(found), "uploaded") == found


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GOOD, strategies.data())
def test_a_steps_pace_reads_only_within_the_lesson_and_around_the_step(doc, data):
    """pace = [a, b] on step i of n steps reads iff 1 <= a <= i <= b <= n, and writes back the same."""
    n = len(doc["steps"])
    i = data.draw(strategies.integers(1, n))
    a, b = data.draw(strategies.integers(-1, n + 1)), data.draw(strategies.integers(-1, n + 1))
    doc["steps"][i - 1] = {**doc["steps"][i - 1], "pace": [a, b]}
    source = "\n".join(f"{ls._string(key)} = {toml(value)}" for key, value in doc.items())
    if 1 <= a <= i <= b <= n:
        found = ls.parse(source, "uploaded")
        assert found.at(i).pace == (a, b)
        assert ls.parse(ls.dump(found), "uploaded") == found
    else:
        try:
            ls.parse(source, "uploaded")
        except ls.LessonError as err:
            assert any(f"Step {i} " in p and "pace" in p for p in err.problems), err.problems
        else:
            raise AssertionError(f"pace = [{a}, {b}] on step {i} of {n} was read")


@settings(max_examples=100, deadline=None)
@given(strategies.binary(max_size=400))
def test_any_bytes_read_or_are_refused_in_words(data):
    try:
        ls.parse(data, "uploaded")
    except ls.LessonError as err:
        assert err.problems and all(isinstance(p, str) and p.strip() for p in err.problems)
