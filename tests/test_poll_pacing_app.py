"""Pacing and the countdown on screen, under AppTest (issue 51 item 3): the presenter lets the hall move between
two steps; a following student gets Previous and Next step buttons limited to them, is not moved by the
presenter's moves inside the range, and is brought back by one outside it; the student's step is in the hall;
a reversed range is refused in words; a lesson step's pace sets the range when the room reaches it. A question
asked with a countdown shows the time left to the hall and the presenter, and an answer after it is refused
with the time it closed."""

from __future__ import annotations

import dataclasses
import json

import pytest
from test_lessons_app import bar_text
from test_lessons_room import code_of, now, presenter, student

from conftest import assert_clean, open_app
from services.poll import pace, presence
from ui.lessons import hall, pacing, progress, shipped
from ui.poll import countdown, participant
from ui.poll.db import store
from ui.shell import site

pytestmark = pytest.mark.usefixtures("poll_db")  # conftest: a fresh SQLite file a test
LESSON = shipped.load("self-attention")


def buttons(at) -> dict[str, bool]:
    """The paced student's buttons: key -> disabled."""
    return {b.key: b.disabled for b in at.button if b.key in (pacing.PREVIOUS, pacing.NEXT)}


def set_range(at, first: int, last: int) -> None:
    at.number_input(key=pacing.FROM).set_value(first)
    at.number_input(key=pacing.TO).set_value(last)
    at.button(key=pacing.SET).click().run()
    assert_clean(at)


def test_a_student_moves_within_the_range_and_the_presenter_s_moves_outside_end_it():
    at = presenter()
    code = code_of(at)
    s = student(code)
    assert buttons(s) == {}  # presenter-paced: no buttons of their own
    at.button(key=progress.NEXT).click().run()  # the room at step 2
    s.run()
    set_range(at, 2, 4)
    assert pace.pace(store(), code) == (2, 4)
    assert "Students move on their own between steps 2 and 4" in " ".join(c.value for c in at.caption)
    s.run()
    assert "Step 2 of 8" in bar_text(s) and buttons(s) == {pacing.PREVIOUS: True, pacing.NEXT: False}
    s.button(key=pacing.NEXT).click().run()
    s.button(key=pacing.NEXT).click().run()
    assert_clean(s)
    assert "Step 4 of 8" in bar_text(s) and s.title[0].value == site.by_path(LESSON.at(4).page).title
    assert buttons(s) == {pacing.PREVIOUS: False, pacing.NEXT: True}  # step 4 is the last of the range
    store()._beats.clear()  # the next beat is written now (not 10 s after the last)
    s.run()
    (seat,) = presence.hall(store(), code, at.session_state["_poll"].key)
    assert (seat.step, seat.follows) == (4, True)
    at.button(key=progress.NEXT).click().run()  # the presenter to step 3: inside, the student stays
    s.run()
    assert "Step 4 of 8" in bar_text(s) and pace.pace(store(), code) == (2, 4)
    s.button(key=pacing.PREVIOUS).click().run()
    assert "Step 3 of 8" in bar_text(s)
    for _ in range(3):
        at.button(key=progress.NEXT).click().run()  # to step 6: outside, the range ends
    assert now(code).step == 6 and pace.pace(store(), code) is None
    s.run()
    s.run()
    assert_clean(s)
    assert "Step 6 of 8" in bar_text(s) and s.title[0].value == at.title[0].value and buttons(s) == {}


def test_clearing_the_range_brings_followers_back_and_a_reversed_one_is_refused():
    at = presenter()
    code = code_of(at)
    s = student(code)
    set_range(at, 1, 3)
    s.run()
    s.button(key=pacing.NEXT).click().run()
    assert "Step 2 of 8" in bar_text(s)
    at.button(key=pacing.CLEAR).click().run()
    assert pace.pace(store(), code) is None
    s.run()
    s.run()
    assert "Step 1 of 8" in bar_text(s) and buttons(s) == {}
    at.button(key=pacing.SET).click().run()  # 1 to 3 again
    s.run()
    assert s.session_state["_room_paced"] is not None
    at.session_state[hall.TOOLS] = True
    at.run()
    at.button(key=hall.END).click().run()  # the lesson ends: so does the range and the student's own step
    s.run()
    assert pace.pace(store(), code) is None and s.session_state["_room_paced"] is None
    at.selectbox(key=hall.PICK).set_value("self-attention").run()
    at.button(key=hall.START).click().run()
    set_range(at, 3, 2)
    said = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "Steps 3 to 2 are reversed" in said and pace.pace(store(), code) is None and now(code).step == 1


def test_a_range_elsewhere_moves_the_room_to_its_first_step():
    at = presenter()
    code = code_of(at)
    set_range(at, 3, 5)
    assert now(code).step == 3 and pace.pace(store(), code) == (3, 5)


def test_a_lesson_step_s_pace_sets_the_range_when_the_room_reaches_it(monkeypatch):
    steps = list(LESSON.steps)
    steps[1] = dataclasses.replace(steps[1], pace=(2, 3))
    monkeypatch.setattr(shipped, "load", lambda name: dataclasses.replace(LESSON, steps=tuple(steps)))
    at = presenter()
    code = code_of(at)
    assert pace.pace(store(), code) is None
    at.button(key=progress.NEXT).click().run()
    assert now(code).step == 2 and pace.pace(store(), code) == (2, 3)


# ------------------------------------------------------------------------------------------------ countdown
def timers(at) -> list[dict]:
    return [json.loads(e.proto.json) for e in at.get("bidi_component") if e.proto.component_name.endswith("countdown")]


def test_a_countdown_shows_the_time_left_and_a_late_answer_is_refused_with_the_time(monkeypatch):
    at = open_app("pages/softmax.py", {"present": "1"})
    at.button(key=participant.START).click().run()
    at.number_input(key=participant.COUNTDOWN).set_value(30)
    at.button(key=participant.ASK).click().run()
    assert_clean(at)
    code = code_of(at)
    (q,) = store().questions(code)
    assert q.closes_at == pytest.approx(q.asked_at + 30, abs=0.5)
    assert [t["left"] for t in timers(at)] == [pytest.approx(30, abs=5)]  # the projector's
    s = open_app("pages/softmax.py", {"room": code})
    (shown,) = timers(s)
    assert shown["left"] == pytest.approx(30, abs=5) and shown["what"] == "This question"
    radio = next(r for r in s.radio if r.key.startswith("poll_answer_softmax"))
    assert not radio.disabled
    monkeypatch.setattr(store(), "clock", lambda: q.closes_at + 0.5)  # the countdown ran out while they looked
    radio.set_value("1").run()
    said = " ".join(w.value for w in s.warning).replace("\\", "")
    assert "This question closed at" in said and "answers are no longer taken" in said
    assert store().counts(code) == {}
    s.run()
    assert next(r for r in s.radio if r.key.startswith("poll_answer_softmax")).disabled


def test_a_countdown_the_store_refuses_is_said():
    at = open_app("pages/softmax.py", {"present": "1"})
    at.button(key=participant.START).click().run()
    at.number_input(key=participant.COUNTDOWN).set_value(5)
    at.button(key=participant.ASK).click().run()
    said = " ".join(w.value for w in at.warning)
    assert f"{countdown.MIN_S} to {countdown.MAX_S} seconds" in said
    assert store().questions(code_of(at))[0].closes_at is None
