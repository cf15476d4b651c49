"""Issue 52 in the app (AppTest): the presenter opens the class experiment's box, starts one (a refused plan says
why in words and starts nothing), students on the Learn page see it and press Train my run (a run number each, in
order, with its seed; the job goes to the queue), a finished run shows the student where it sits among the hall's,
the presenter's overlay says the hall's numbers with the exports, and Cancel stops queued runs and late seats.
The queue and its workers are tests/test_jobs.py's: here runs are trained in-process (services/classwork.work)."""

from __future__ import annotations

import pytest

import engine
from services import classwork
from services.poll import experiment as cx
from tests.conftest import open_app
from tests.test_poll_app import presenter, room_of
from ui.poll import classrun
from ui.poll import experiment as box
from ui.poll.db import store

pytestmark = pytest.mark.usefixtures("poll_db")


@pytest.fixture
def queued(monkeypatch):
    """The jobs the app submits, kept here (no worker starts)."""
    import services.jobrunner
    import services.jobs

    sent = []
    monkeypatch.setattr(services.jobs, "submit", lambda code, eid, k, url=None: sent.append((code, eid, k)))
    monkeypatch.setattr(services.jobs, "cancel", lambda code, eid, url=None: 0)
    monkeypatch.setattr(services.jobrunner, "ensure", lambda count=None: [])
    return sent


def text(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption]).replace("\\", "")


def started(steps: int = 40, varies: str | None = None, values: str = ""):
    at = presenter()
    at.session_state[box.BOX] = True
    at.run()
    at.selectbox(key=box.TASK).set_value("previous").run()
    at.number_input(key=f"{box.STEPS}_previous").set_value(steps)
    at.selectbox(key=f"{box.VARIES}_previous").set_value(varies)
    at.text_input(key=f"{box.VALUES}_previous").set_value(values)
    next(b for b in at.button if b.label == "Start the experiment").click().run()
    assert not at.exception
    return at


def test_the_presenter_starts_an_experiment_and_students_train_their_runs(queued):
    at = started(40, "width", "16, 8")
    code, key = room_of(at)
    assert "Experiment 1:" in text(at) and "the width varies across the hall: 16, 8" in text(at)
    assert "Run k uses k both as its weight seed" in text(at)
    assert [m.value for m in at.metric if m.label in ("queued", "done")] == ["0", "0"]
    students = [open_app("pages/learn.py", {"room": code}) for _ in range(3)]
    for s in students:
        assert "every student trains a run of previous token, 40 steps" in text(s)
        s.button(key=classrun.TRAIN).click().run()
        assert not s.exception
    assert [k for _, _, k in queued] == [1, 2, 3]
    assert "You are run 2: seed 2" in text(students[1]) and "next in the queue" not in text(students[1])
    assert "1 run before it in the queue" in text(students[1])
    for k in (1, 2):
        assert classwork.work(store(), code, 1, k) == "done"
    students[1].run()
    said = text(students[1])
    assert "You are run 2: seed 2" in said and ("Your run formed" in said or "Your run did not form" in said)
    assert "finished run" in said  # two are done: where it sits among the hall's
    specs = [c.proto.spec for c in students[1].get("vega_lite_chart")]
    assert any("Training loss and accuracy" in spec for spec in specs)  # the run itself, as the Learn page draws one
    at.session_state[box.SHOWN] = (1, 0, 0.0)  # an overlay drawn long ago with fewer runs: this run draws it anew
    at.run(timeout=10)  # and asks for no other whole run (it once asked for one again and again, before drawing)
    assert [m.value for m in at.metric if m.label in ("queued", "done")] == ["1", "2"]
    assert at.session_state[box.SHOWN][:2] == (1, 2)
    overlay = text(at)
    assert "width 16:" in overlay and "width 8:" in overlay
    assert len(at.get("vega_lite_chart")) >= 2
    assert {b.label for b in at.get("download_button")} >= {"Runs (CSV)", "Curves (CSV)", "Curves (npz)"}


def test_a_running_run_shows_its_workers_progress_as_the_learn_pages_bar(queued, monkeypatch):
    import services.jobs

    at = started()
    code, _ = room_of(at)
    student = open_app("pages/learn.py", {"room": code})
    student.button(key=classrun.TRAIN).click().run()
    assert cx.take(store(), code, 1, 1) is not None  # a worker took it: running
    said = {}
    monkeypatch.setattr(services.jobs, "progress", lambda c, e, k, url=None: said.get((c, e, k)))
    student.run()
    assert "Your run is training on a worker now." in text(student) and not student.get("progress")
    said[(code, 1, 1)] = (240, 480, 1.23456, 0.4512)
    student.run()
    (bar,) = student.get("progress")
    assert (
        bar.proto.value == 50 and bar.proto.text == "Your run, on a worker: step 240 of 480: loss 1.235, accuracy 45%."
    )

    def unreachable(*args, **kwargs):
        raise OSError("the queue's database is gone")

    monkeypatch.setattr(services.jobs, "progress", unreachable)
    student.run()
    assert not student.exception and "Your run is training on a worker now." in text(student)


def test_the_presenter_reads_each_tasks_cost_per_run_before_starting(queued):
    """The cost is measured: `python -m benchmarks.classrun --task previous --steps 250 --runs 30 --workers 1` gives
    0.21 core-seconds a run; induction's 480 steps 1.01 (README, "How many workers a hall needs")."""
    at = presenter()
    at.session_state[box.BOX] = True
    at.run()
    for task, cost in (("previous", "0.2"), ("induction", "1")):
        at.selectbox(key=box.TASK).set_value(task).run()
        steps = engine.TASKS[task].steps
        assert f"A run of {engine.TASKS[task].title} at its {steps} steps takes about {cost} s of one core" in text(at)


def test_a_plan_the_store_refuses_is_said_and_starts_nothing(queued):
    at = started(40, "lr", "0.02, fast")
    code, _ = room_of(at)
    assert any("numbers separated by commas" in w.value for w in at.warning)
    assert cx.current(store(), code) is None
    at = started(40, "layers", "1, 1")
    assert any("different from each other" in w.value for w in at.warning)


def test_cancel_stops_queued_runs_and_a_late_student_sees_why(queued):
    at = started()
    code, _ = room_of(at)
    first = open_app("pages/learn.py", {"room": code})
    first.button(key=classrun.TRAIN).click().run()
    at.button(key=box.CANCEL).click().run()
    assert not at.exception and "was cancelled" in text(at)
    assert cx.tally(store(), code, 1)["cancelled"] == 1
    first.run()
    assert "cancelled the experiment before your run started" in text(first)
    late = open_app("pages/learn.py", {"room": code})
    assert classrun.TRAIN not in [b.key for b in late.button]  # nothing to join
