"""Draw your prediction in the app (AppTest, issue 51): the presenter asks on the Softmax weights page, the true
row and settings are frozen from the engine's numbers; a student gets the drawing component (its payload) and a
page with the weights hidden until the reveal; the presenter's overlay counts the answer. AppTest runs no JS:
Submit is the store's answer here, and the browser test (test_poll_draw_browser.py) drags and submits."""

from __future__ import annotations

import json

import pytest

import engine
from engine import analysis
from services.poll import drawn
from tests.conftest import open_app
from ui.charts import attention_map as am
from ui.poll import drawing, drawq, participant
from ui.poll import panel as poll_panel
from ui.shell import session

pytestmark = pytest.mark.usefixtures("poll_db")  # conftest: a fresh SQLite file a test


def component(at) -> dict | None:
    found = [am.decoded(e) for e in at.get("bidi_component") if e.proto.component_name.endswith(drawing.NAME)]
    return found[0] if found else None


def has_map(at) -> bool:
    return any(e.key == session.SOFTMAX_MAP for e in at.get("bidi_component"))


def test_ask_draw_answer_overlay_and_reveal():
    at = open_app("pages/softmax.py", {"present": "1", "cell": "2,1", "head": "1"})
    at.button(key=participant.START).click().run()
    at.button(key=drawq.ASK).click().run()
    assert not at.exception
    code = at.query_params["room"]
    code = code if isinstance(code, str) else code[0]
    q = poll_panel.store().questions(code)[0]
    assert q.qid == drawq.QID and q.kind == "draw"
    assert q.frozen["query"] == 2 and q.frozen["head"] == 1
    assert q.frozen["columns"] == list(range(len(q.frozen["keys"]))) and len(q.frozen["keys"]) >= 3
    assert sum(q.frozen["row"]) == pytest.approx(1.0, abs=1e-9)
    assert has_map(at)  # the presenter still sees the weights

    student = open_app("pages/softmax.py", {"room": code, "cell": "2,1", "head": "1"})
    assert not student.exception
    sent = component(student)
    assert sent["keys"] == q.frozen["keys"] and sent["value"] == pytest.approx(
        [1 / len(sent["keys"])] * len(sent["keys"])
    )
    assert not sent["disabled"]
    assert not has_map(student) and any(drawq.HIDDEN in i.value for i in student.info)  # the answer is not shown
    heads = open_app("pages/heads.py", {"room": code})  # every head's weights would show the row too
    assert not heads.exception and not any(e.key == "heads_maps" for e in heads.get("bidi_component"))
    assert any(drawq.HIDDEN in i.value for i in heads.info)
    seat = student.session_state["_poll"].seat
    n = len(q.frozen["keys"])
    mine = [1.0] + [0.0] * (n - 1)
    poll_panel.store().answer(code, seat, q.qid, mine, q.asked_at)  # what Submit sends
    with pytest.raises(drawn.PollError, match="sum to 1"):
        poll_panel.store().answer(code, seat, q.qid, [0.5] * n, q.asked_at)

    at.run()
    assert next(m.value for m in at.metric if m.label == "answered") == "1"
    at.button(key=participant.REVEAL).click().run()
    assert not at.exception
    said = " ".join(m.value for m in at.markdown)
    tv = drawn.tv(mine, q.frozen["row"])
    assert "1 answer." in said and f"median distance is {tv:.2f}" in said

    student.run()
    assert not student.exception and has_map(student)  # shown again after the reveal
    heads.run()
    assert any(e.key == "heads_maps" for e in heads.get("bidi_component"))
    assert component(student)["disabled"] and component(student)["value"] == pytest.approx(mine)
    told = " ".join(i.value for i in student.info).replace("\\", "")
    assert "The true row" in told and f"from the true row: {tv:.2f}" in told


def test_the_frozen_row_is_the_engines_row_at_the_pages_beta():
    t = analysis.run(engine.Config(d_model=16, num_heads=2, causal=True), ("AI", "builds", "neural", "models")).layers[
        0
    ]
    prompt, frozen = drawq.row_question(t, 1, 2, beta=2.0)
    expected = analysis.weights_at(t.scaled[1], 2.0)[2, :3]
    assert frozen["row"] == pytest.approx(expected.tolist(), abs=1e-12) and frozen["columns"] == [0, 1, 2]
    assert frozen["keys"] == list(t.labels[:3]) and frozen["beta"] == 2.0 and frozen["head"] == 1
    assert "query row 2" in prompt and "β = 2" in prompt
    assert json.loads(json.dumps(frozen)) == frozen  # stored as JSON
    long = analysis.run(engine.Config(d_model=16, num_heads=2), tuple(f"w{i}" for i in range(17))).layers[0]
    with pytest.raises(drawn.PollError, match="at most 16 bars"):
        drawq.row_question(long, 0, 0)


def test_a_drawn_question_takes_the_panels_countdown_and_closes_with_it(monkeypatch):
    """The presenter's countdown applies to a drawn question as to a picked one: the hall sees the time left, and
    once it ends the bars are locked, the page says why, and a late row is refused by the store."""
    at = open_app("pages/softmax.py", {"present": "1", "cell": "2,1", "head": "1"})
    at.button(key=participant.START).click().run()
    at.number_input(key=participant.COUNTDOWN).set_value(30)
    at.button(key=drawq.ASK).click().run()
    assert not at.exception
    code = at.query_params["room"]
    code = code if isinstance(code, str) else code[0]
    store = poll_panel.store()
    (q,) = store.questions(code)
    assert q.kind == "draw" and q.closes_at == pytest.approx(q.asked_at + 30, abs=0.5)

    student = open_app("pages/softmax.py", {"room": code, "cell": "2,1", "head": "1"})
    timers = [
        json.loads(e.proto.json) for e in student.get("bidi_component") if e.proto.component_name.endswith("countdown")
    ]
    assert [t["left"] for t in timers] == [pytest.approx(30, abs=5)]
    assert not component(student)["disabled"]
    monkeypatch.setattr(store, "clock", lambda: q.closes_at + 0.5)  # the countdown ran out
    n = len(q.frozen["keys"])
    with pytest.raises(drawn.PollError, match="no longer taken"):
        store.answer(code, student.session_state["_poll"].seat, q.qid, [1.0] + [0.0] * (n - 1), q.asked_at)
    student.run()
    sent = component(student)
    assert sent["disabled"] and sent["status"].startswith("The countdown has ended")


@pytest.mark.parametrize("page", ["scores", "model", "exercise"])
def test_every_page_with_the_models_weights_hides_them_until_the_reveal(page):
    """The Scaled scores page (its worked cell gives a cell's softmax share), the model view (every head) and the
    exercise (its maps before and after) hide their weights from a student while the drawn row is open, as the
    Softmax and Per-head pages do; the reveal brings them back."""
    at = open_app("pages/softmax.py", {"present": "1", "cell": "2,1", "head": "1"})
    at.button(key=participant.START).click().run()
    at.button(key=drawq.ASK).click().run()
    code = at.query_params["room"]
    code = code if isinstance(code, str) else code[0]

    def hidden(app) -> bool:
        return any(drawq.HIDDEN in i.value for i in app.info)

    def maps(app) -> list:
        return [e for e in app.get("bidi_component") if e.proto.component_name.endswith(am.NAME)]

    student = open_app(f"pages/{page}.py", {"room": code})
    assert not student.exception and hidden(student) and not maps(student)
    at.button(key=participant.REVEAL).click().run()
    student.run()
    assert not student.exception and not hidden(student) and maps(student)
