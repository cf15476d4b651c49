"""The class poll in the app (AppTest): a presenter starts a room and asks, students join by link,
answer, and see the result once revealed; the right answers come from the engine's numbers; bad links
get a message, never a traceback; the presenter key is in no URL: it stays in the presenter's session."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine import analysis
from tests.conftest import open_app
from ui.poll import closing, hallcount, participant, questions
from ui.poll import link as poll_link
from ui.poll import panel as poll_panel

pytestmark = pytest.mark.usefixtures("poll_db")  # conftest: a fresh SQLite file a test


def presenter(page="pages/softmax.py"):
    at = open_app(page, {"present": "1"})
    at.button(key=participant.START).click().run()
    at.button(key=participant.ASK).click().run()
    assert not at.exception
    return at


def param(at, name: str) -> str:
    value = at.query_params[name]
    return value if isinstance(value, str) else value[0]


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def room_of(at) -> tuple[str, str]:
    """The room from the presenter's URL, the key from the presenter's session (never in the URL)."""
    assert "key" not in at.query_params and "seat" not in at.query_params
    return param(at, "room"), at.session_state["_poll"].key


def test_presenter_starts_a_room_and_the_join_link_has_no_key():
    at = presenter()
    code, key = room_of(at)
    joins = [c.value for c in at.code if f"room={code}" in c.value]
    assert joins and all(key not in j and "present" not in j for j in joins)
    assert all(key not in c.value for c in at.code)  # the sidebar's "Link to this view" neither


def test_students_answer_and_see_the_result_after_the_reveal():
    at = presenter()
    code, _ = room_of(at)
    students = [open_app("pages/softmax.py", {"room": code}) for _ in range(3)]
    for i, s in enumerate(students):
        assert not s.exception and "seat" in s.query_params and "key" not in s.query_params
        assert any(f"You are in room {code}" in m.value for m in s.markdown)
        s.radio[0].set_value(str(i)).run()
    students[0].radio[0].set_value("1").run()  # changed their mind: still one answer
    at.run()
    assert metric(at, "answered") == "3"
    assert poll_panel.store().counts(code) == {"softmax": {"1": 2, "2": 1}}
    at.button(key=participant.REVEAL).click().run()
    right = poll_panel.store().questions(code)[0].answers
    for s, theirs in zip(students, ("1", "1", "2")):
        s.run()
        boxes = s.success if theirs in right else s.info  # green when they were right
        said = " ".join(e.value for e in boxes).replace("\\", "")
        assert "Right answer:" in said and "Yours:" in said and s.radio[0].disabled


@pytest.mark.parametrize(
    "page,qid,word", [("pages/scores.py", "scores", "spread"), ("pages/exercise.py", "exercise", "appended")]
)
def test_each_page_asks_its_own_question(page, qid, word):
    at = presenter(page)
    code, _ = room_of(at)
    assert [q.qid for q in poll_panel.store().questions(code)] == [qid]
    student = open_app(page, {"room": code})
    assert not student.exception and any(word in r.label for r in student.radio)


def test_pages_without_a_question_say_where_they_are():
    at = open_app(None, {"present": "1"})
    at.button(key=participant.START).click().run()
    assert not at.exception and not any(b.key == participant.ASK for b in at.button)
    assert any("Questions are on" in c.value for c in at.caption)


def test_the_softmax_answer_is_the_row_argmax_of_the_engine():
    cfg = engine.Config(d_model=128, num_heads=1, d_ff=512)  # rows that lean to one key
    words = ("AI", "builds", "neural", "models")
    t = analysis.run(cfg, words).layers[0]
    assert any(r.kind == "lean" for r in analysis.read_rows(t.weights[0], t.visible))
    for row in range(4):
        q = questions.softmax_top_key(t, 0, row)
        if analysis.read_rows(t.weights[0], t.visible)[row].kind == "lean":
            assert q.answers == [str(int(np.argmax(t.weights[0][row])))]
    masked = analysis.run(engine.Config(causal=True), words).layers[0]
    q = questions.softmax_top_key(masked, 0, 1)
    assert [v for v, _ in q.options] == ["0", "1", questions.EVEN]  # a hidden key is never an option


@pytest.mark.parametrize(
    "d_model,heads,scale,answer", [(16, 2, True, "root"), (16, 2, False, None), (16, 16, True, "same")]
)
def test_the_spread_answer_is_measured(d_model, heads, scale, answer):
    cfg = engine.Config(d_model=d_model, num_heads=heads, scale_scores=scale)
    t = analysis.run(cfg, ("AI", "builds", "neural", "models")).layers[0]
    if answer is None:  # the page divides nothing: not asked
        with pytest.raises(questions.Unanswerable, match="Scaling is switched off"):
            questions.scores_spread(t, cfg, 0)
        return
    q = questions.scores_spread(t, cfg, 0)
    assert q.answers == [answer] and len({v for v, _ in q.options}) == len(q.options)


def test_the_exercise_answer_follows_the_mask():
    words = ("AI", "builds", "neural", "models")
    assert questions.exercise_prediction(analysis.extend(engine.Config(), words, "AI"), 0).answers == ["own_factor"]
    masked = analysis.extend(engine.Config(causal=True), words, "AI")
    assert questions.exercise_prediction(masked, 0).answers == ["unchanged", "own_factor"]


@pytest.mark.parametrize(
    "params,said",
    [
        ({"room": "<b>x</b>"}, "not a room code"),
        ({"room": "K7QF", "key": "no"}, "malformed"),
        ({"room": "K7QF"}, "no room K7QF"),
    ],
)
def test_bad_poll_links_get_a_message_not_a_traceback(params, said):
    at = open_app(None, params)
    assert not at.exception
    shown = " ".join(e.value for e in [*at.info, *at.warning]).replace("\\", "")
    assert said in shown


def test_a_student_cannot_reveal_with_a_wrong_key():
    at = presenter()
    code, key = room_of(at)
    thief = open_app(None, {"room": code, "key": "x" * 22, "present": "1"})
    assert not thief.exception
    assert not any(b.key == participant.REVEAL for b in thief.button)
    assert "seat" in thief.query_params and "key" not in thief.query_params
    assert not poll_panel.store().questions(code)[0].revealed


def test_reset_and_close(monkeypatch):
    import services.jobs

    forgotten = []  # a queue is there: closing takes the room's class runs off it too (tests/test_jobs.py: for real)
    monkeypatch.setattr(services.jobs, "exists", lambda url=None: True)
    monkeypatch.setattr(services.jobs, "forget", lambda code, url=None: forgotten.append(code) or 0)
    at = presenter()
    code, key = room_of(at)
    student = open_app("pages/softmax.py", {"room": code})
    student.radio[0].set_value("0").run()
    at.button(key=participant.RESET).click().run()
    assert poll_panel.store().counts(code) == {}
    student.run()
    assert student.radio[0].value is None  # the student's page shows no stale choice
    student.radio[0].set_value("1").run()
    at.button(key=participant.CLOSE).click().run()  # the downloads first, above the confirmation
    assert not at.exception and param(at, "room") == code and poll_panel.store().counts(code) == {"softmax": {"1": 1}}
    offered = [d.proto.id for d in at.get("download_button")]
    assert len(offered) == len(closing.FILES) and all(i.endswith("_closing") for i in offered)
    assert at.button(key=closing.CONFIRM) and at.button(key=closing.CANCEL)
    at.button(key=closing.CANCEL).click().run()  # not closed
    offered = [d.proto.id for d in at.get("download_button")]
    assert len(offered) == len(closing.FILES) and not any(i.endswith("_closing") for i in offered)
    poll_panel.store().check(code, key)
    at.button(key=participant.CLOSE).click().run()
    at.button(key=closing.CONFIRM).click().run()
    assert not at.exception and "room" not in at.query_params
    assert poll_panel.store().counts(code) == {}  # deleted at once
    assert forgotten == [code], "closed once, and only then"
    student.run()
    assert any("closed" in w.value for w in student.warning)


def test_the_hall_is_counted_and_the_bars_wait_for_the_reveal_unless_live():
    at = presenter()
    code, key = room_of(at)
    students = [open_app("pages/softmax.py", {"room": code}) for _ in range(2)]  # each page's check beats
    students[0].radio[0].set_value("1").run()
    at.run()
    assert (metric(at, "in the room now"), metric(at, "answered")) == ("2", "1")
    waiting = "The answers' bars appear when you reveal"
    assert any(waiting in c.value for c in at.caption)
    assert any("nothing else about a student is stored" in c.value for c in at.caption)
    assert all(any("nothing else about you is stored" in c.value for c in s.caption) for s in students)
    at.toggle(key=hallcount.LIVE).set_value(True).run()
    assert not at.exception and not any(waiting in c.value for c in at.caption)
    from services.poll import live

    assert live.counts_live(poll_panel.store(), code)


def test_links_never_carry_the_key_but_a_remembered_key_makes_the_presenter():
    presenter, problems = poll_link.from_params({"room": "k7qf", "key": "A" * 22, "seat": "B" * 12})
    assert presenter.presenter and presenter.seat is None and not problems
    assert presenter.url_params() == {"room": "K7QF"}  # the key leaves the address bar
    assert presenter.share_params() == {"room": "K7QF"}
    student, _ = poll_link.from_params({"room": "K7QF"})
    assert student.student and len(student.seat) >= 12  # a seat is given on joining
    assert student.url_params() == {"room": "K7QF", "seat": student.seat}
    assert student.share_params() == {"room": "K7QF"}
    again, _ = poll_link.from_params(student.url_params())  # a reload: the same seat
    assert again == student
    assert poll_link.from_params({"seq_len": "5"}) == (poll_link.Link(), [])
    reload, _ = poll_link.from_params(presenter.url_params(), remembered="A" * 22)  # the browser's cookie
    assert reload == poll_link.Link("K7QF", "A" * 22)
    seated, _ = poll_link.from_params(student.url_params(), remembered="A" * 22)  # a student's own URL: a student
    assert seated == student
    junk, _ = poll_link.from_params({"room": "K7QF"}, remembered="no")
    assert junk.student
