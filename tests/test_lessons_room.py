"""A lesson run live in a class-poll room, under AppTest (issue 35): the presenter picks a lesson, each Next
moves the room and every following student's page (page and settings) on the student's next run; a step's
question opens for the hall keyed by its step; a student who switched following off stays and is told
where the presenter is; the presenter sends any view, adds the current view as a step, edits, reorders,
downloads a file that loads again, ends the lesson; a bad file changes nothing; no key in any URL."""

from __future__ import annotations

import pytest
from test_lessons_app import bar_text, params, settings, step_settings

from conftest import assert_clean, open_app
from services.poll import live
from ui.lessons import hall, progress, shipped
from ui.lessons.lesson import LessonError, dump, parse
from ui.poll import participant
from ui.poll.db import store

pytestmark = pytest.mark.usefixtures("poll_db")  # conftest: a fresh SQLite file a test


def presenter(lesson: str = "self-attention"):
    at = open_app(None, {"present": "1"}, timeout=120)
    at.button(key=participant.START).click().run()
    at.selectbox(key=hall.PICK).set_value(lesson).run()
    at.button(key=hall.START).click().run()
    assert_clean(at)
    return at


def code_of(at) -> str:
    assert "key" not in at.query_params
    return params(at)["room"]


def student(code: str, page: str | None = None):
    at = open_app(page, {"room": code}, timeout=120)
    assert_clean(at)
    return at


def now(code: str) -> live.Live:
    return live.watch(store(), code)


def test_next_moves_the_room_and_every_follower():
    lesson = shipped.load("self-attention")
    at = presenter()
    code = code_of(at)
    assert now(code).step == 1 and at.title[0].value == "Inputs X" and "Step 1 of 8" in bar_text(at)
    students = [student(code) for _ in range(2)]  # joined with other settings (part4's): moved at once
    for s in students:
        assert s.title[0].value == "Inputs X" and settings(params(s)) == step_settings(lesson.at(1))
        assert "Step 1 of 8" in bar_text(s) and not any(b.key == progress.NEXT for b in s.button)
    for number in (2, 3):
        at.button(key=progress.NEXT).click().run()
        assert_clean(at)
        assert now(code).step == number and settings(params(at)) == step_settings(lesson.at(number))
        for s in students:
            s.run()  # the check runs with the page
            assert_clean(s)
            assert s.title[0].value == at.title[0].value and settings(params(s)) == step_settings(lesson.at(number))
            assert f"Step {number} of 8" in bar_text(s)
    assert all("key" not in s.query_params for s in [at, *students])


def test_a_step_s_question_opens_for_the_hall_keyed_by_its_step_and_the_reveal_reaches_students():
    at = presenter()
    code = code_of(at)
    s = student(code)
    at.session_state[progress.LIST] = True
    at.run()
    at.radio(key=progress.JUMP).set_value(7).run()  # the exercise, with its question
    assert [q.qid for q in store().questions(code)] == ["exercise@7"]
    s.run()
    assert s.title[0].value == "Exercise: one more token"
    s.radio(key=next(r.key for r in s.radio if r.key.startswith("poll_answer_exercise@7"))).set_value("unchanged").run()
    at.button(key=progress.NEXT).click().run()  # the same page again, another step
    assert {q.qid for q in store().questions(code)} == {"exercise@7", "exercise@8"}
    assert store().counts(code) == {"exercise@7": {"unchanged": 1}}  # two steps on one page: apart
    at.button(key=participant.REVEAL).click().run()
    s.run()
    said = " ".join(e.value for e in [*s.success, *s.info]).replace("\\", "")
    assert "Right answer" in said and "exercise" in s.title[0].value.lower()


def test_a_student_who_stops_following_stays_and_sees_where_the_presenter_is():
    at = presenter()
    code = code_of(at)
    s = student(code)
    s.toggle(key=participant.FOLLOW).set_value(False).run()
    at.button(key=progress.NEXT).click().run()
    s.run()
    assert s.title[0].value == "Inputs X"  # stayed
    said = " ".join(c.value for c in s.caption).replace("\\", "")
    assert "The presenter is on Step 2 of 8: Queries, keys and values (Q, K, V projections)" in said
    s.button(key=participant.GO).click().run()
    assert s.title[0].value == "Q, K, V projections"
    at.button(key=progress.NEXT).click().run()
    s.run()
    assert s.title[0].value == "Q, K, V projections"  # still not following
    s.toggle(key=participant.FOLLOW).set_value(True).run()  # on again: to the presenter at once
    assert s.title[0].value == "Scaled scores"


def test_the_presenter_sends_any_view_and_edits_the_room_s_lesson():
    at = presenter("multi-head")
    code = code_of(at)
    s = student(code)
    at.switch_page("pages/softmax.py").run()
    at.sidebar.slider(key="seq_len").set_value(6).run()
    at.button(key=participant.SEND).click().run()
    assert now(code).step is None and now(code).view["page"] == "softmax"
    s.run()
    assert s.title[0].value == "Softmax weights" and params(s)["seq_len"] == "6"
    at.session_state[hall.TOOLS] = True  # "Edit the room's lesson"
    at.run()
    at.button(key=hall.ADD).click().run()  # this view as step 8
    lesson = shipped.from_text(live.lesson(store(), code)[1], "room")
    assert len(lesson.steps) == 8 and lesson.at(8).page == "softmax" and lesson.at(8).params()["seq_len"] == "6"
    assert now(code).step == 8
    at.button(key=hall.EARLIER).click().run()
    lesson = shipped.from_text(live.lesson(store(), code)[1], "room")
    assert lesson.at(7).page == "softmax" and now(code).step == 7
    title, text, note = hall._keys(lesson, 7)
    at.text_area(key=text).input("Six tokens: {inputs.T} of them, <b>bold</b>?")
    at.button(key="FormSubmitter:hall_form-Save this step").click().run()  # HTML: refused, nothing changes
    assert "HTML is not allowed" in " ".join(e.value for e in at.error).replace("\\", "")
    assert shipped.from_text(live.lesson(store(), code)[1], "room") == lesson
    at.text_area(key=text).input("Now {inputs.T} tokens.")
    at.button(key="FormSubmitter:hall_form-Save this step").click().run()
    assert shipped.from_text(live.lesson(store(), code)[1], "room").at(7).text == "Now {inputs.T} tokens."
    s.run()
    assert "Now 6 tokens." in bar_text(s)
    saved = dump(shipped.from_text(live.lesson(store(), code)[1], "room"))
    assert parse(saved, "again").steps == shipped.from_text(live.lesson(store(), code)[1], "room").steps
    at.button(key=hall.END).click().run()
    assert not now(code).lesson and not any(b.key == progress.NEXT for b in at.button)


def test_a_bad_lesson_file_is_refused_with_its_reasons():
    good = dump(shipped.load("multi-head")).encode()
    assert hall.read(good).title == "The multi-head block"
    for bad, said in (
        (good.replace(b'page = "heads"', b'page = "head"', 1), "is not a page of this app"),
        (good + b"\n" + b"#" * 200_000, "at most 100,000"),
        (good.replace(b"{heads.count}", b"<i>{heads.count}</i>", 1), "HTML is not allowed"),
        (good.replace(b'title = "Heads side by side"', b"", 1), "title: missing"),
        (good.replace(b"layers = 2", b"layers = 9", 1), "must be between 1 and 4"),
    ):
        with pytest.raises(LessonError, match=said):
            hall.read(bad)


def test_the_key_is_in_no_url_and_a_new_session_without_it_is_a_student():
    at = presenter()
    code = code_of(at)
    assert at.session_state["_poll"].key and "key" not in at.query_params
    joins = [c.value for c in at.code if "room=" in c.value]
    assert joins and all("key=" not in j for j in joins)
    again = open_app(None, {"room": code, "present": "1"})  # the same URL elsewhere: a student
    assert again.session_state["_poll"].student and not any(b.key == progress.NEXT for b in again.button)


@pytest.mark.parametrize("pushed", [True, False])
def test_a_pushed_run_moves_a_follower_before_anything_is_drawn(monkeypatch, pushed):
    """A run the room's change started (ui/poll/push.py) moves the follower at the frame's start: the poll
    box is drawn once, on the presenter's page. A run the student started finds the move in the check,
    after the old page's poll box, and runs again."""
    from ui.poll import follow, push

    at = presenter()
    s = student(code_of(at))
    at.button(key=progress.NEXT).click().run()
    taken = iter([pushed])
    monkeypatch.setattr(push, "take", lambda: next(taken, False))
    drawn, real = [], follow.watch
    monkeypatch.setattr(follow, "watch", lambda link, here: drawn.append(here["page"]) or real(link, here))
    s.run()
    assert_clean(s)
    assert s.title[0].value == at.title[0].value == "Q, K, V projections"
    assert drawn == (["qkv"] if pushed else ["inputs", "qkv"])
