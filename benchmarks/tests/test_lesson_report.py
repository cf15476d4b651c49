"""The lesson benchmark's hall figures (issue 51), on made-up halls: the presenter's hall table read back, the
time until the hall view is right after a step, answers sent against those stored, the hall view's cost
and the verdict."""

from __future__ import annotations

import pytest

from benchmarks import lesson_report as lr
from benchmarks.lesson_presenter import Seen, hall_count, hall_rows
from ui.poll import hallview

BODY = (
    "**3 in the room now: 2 follow, 1 explores\\; 1 of 3 have answered.**\n\n"
    "| Student | On | Mode | Answered |\n|---|---|---|---|\n"
    "| student 1 | Softmax weights\\, step 5 | follows | yes |\n"
    "| student 2 | Softmax weights\\, step 5 | follows | no |\n"
    "| student 12 | Scaled scores | explores | no |"
)


def test_the_hall_table_is_read_back_as_the_presenter_sees_it():
    assert hall_count(BODY) == 3
    assert hall_rows(BODY) == {1: (5, True), 2: (5, True), 12: (None, False)}
    assert hall_count("**Nobody is in the room now.**") == 0
    assert hall_count("The students: 3 in the room now") is None  # not the hall's sentence


def test_the_apps_own_hall_text_reads_back():
    from services.poll.hallview import Hall, Here
    from services.poll.presence import Seat

    seats = tuple(Here(Seat(h, "softmax", 4, 4, True, 0.0), h == 2) for h in (1, 2))
    hall = Hall(seats, "softmax@4", False, False)
    body = f"**{hallview.summary(hall)}**\n\n{hallview.table(hall)}"  # what the box draws, one element
    assert hall_count(body) == 2 and hall_rows(body) == {1: (4, True), 2: (4, True)}


def seen(at, step, n=3, count=None, follows=True):
    return Seen(at, n if count is None else count, {h: (step, follows) for h in range(1, n + 1)})


def test_the_hall_is_right_once_every_student_is_on_the_step():
    clicks = {2: 10.0, 3: 20.0}
    halls = [
        seen(9.0, 1),
        Seen(11.5, 3, {1: (2, True), 2: (1, True), 3: (2, True)}),  # one still on step 1
        seen(12.0, 2, count=4),  # a fourth counted: wrong
        seen(13.0, 2),
        seen(21.0, 2),
        seen(22.5, 3, follows=False),  # all on the step but not following: wrong
    ]
    assert lr.hall_right_s(halls, clicks, 3) == {2: pytest.approx(3.0), 3: None}
    assert sorted(lr.seat_right_s(halls, clicks, [1, 2, 3])) == pytest.approx([1.5, 1.5, 2.0, 2.5, 2.5, 2.5])
    after = lr.after_kill(halls, 11.0, 2, 3, 20.0)
    assert after == {"halls_drawn": 3, "lowest_count": 3, "right_again_s": pytest.approx(2.0)}


def test_an_answer_is_lost_when_the_store_lacks_it_or_holds_another_choice():
    options = {"q1": [["a", "A"], ["b", "B"]], "q2": [["x", "X"], ["y", "Y"]]}
    sent = {"s1": {"q1": 1, "q2": 0}, "s2": {"q1": 0}}
    stored = [("s1", "q1", "b"), ("s1", "q2", "x"), ("s2", "q1", "a")]
    assert lr.answers_kept(stored, options, sent)["lost"] == 0
    kept = lr.answers_kept([("s1", "q1", "a"), ("s1", "q2", "x")], options, sent)
    assert kept["lost"] == 2 and set(kept["lost_samples"]) == {("s1", "q1", "a", "b"), ("s2", "q1", None, "a")}
    assert kept["sent"] == 3 and kept["stored"] == 2


def test_the_hall_views_cost_is_each_timers_runs_with_the_box_open_less_shut():
    metered = (
        [("panel", True, True, 0.012)] + [("panel", True, False, 0.011)] * 4 + [("panel", False, False, 0.010)] * 5
    )
    metered += [("check", True, False, 0.008), ("check", False, False, 0.008)]
    cost = lr.hall_cost(metered, {"panel": 1.5, "check": 10.0}, (0.025, 0.022), 0.0009)
    assert cost["of_a_run_ms"] == {"check": pytest.approx(0.0), "panel": pytest.approx(1.0)}
    assert cost["open_ms_per_s"] == pytest.approx(1.0 / 1.5, abs=1e-3) and cost["open_runs_that_drew_it"] == "1 of 6"
    assert cost["open_minus_shut_ms_per_s"] == pytest.approx(3.0) and cost["one_student_ms_per_s"] == 0.9
    shut_only = [("panel", False, False, 0.010)] * 3  # never open: no figure, not zero
    assert lr.hall_cost(shut_only, {"panel": 1.0}, (0.02, 0.02), 0.0009)["open_ms_per_s"] is None


def report(**hall):
    base = {
        "errors": 0,
        "lesson": True,
        "missed_steps": 0,
        "replicas": 2,
        "step_s": {"p95": 2.0},
        "students": 100,
        "idle": {"cores": 0.09},
        "sliders": False,
        "answers": {"lost": 0, "lost_samples": []},
    }
    cost = {"open_ms_per_s": 0.5, "one_student_ms_per_s": 0.9}
    base["hall"] = {"never_right": [], "right_s": {"p95": 2.5}, "cost": cost} | hall
    return base


def test_the_verdict_on_the_hall_view_and_the_answers():
    assert lr.verdict(report()) == []
    late = lr.verdict(report(right_s={"p95": 3.4}, never_right=[4]))
    assert len(late) == 2 and "p95 3.4 s > 3.0 s" in late[1] and "[4]" in late[0]
    dear = lr.verdict(report(cost={"open_ms_per_s": 1.2, "one_student_ms_per_s": 0.9}))
    assert dear == ["the open hall view costs 1.2 ms/s, one student 0.9 ms/s"]
    lost = report()
    lost["answers"] = {"lost": 1, "lost_samples": [("s1", "q1")]}
    assert lr.verdict(lost) == ["1 answers lost: [('s1', 'q1')]"]
    small = report(cost={"open_ms_per_s": 5.0, "one_student_ms_per_s": 0.9})
    small["students"] = 10  # a smoke run: no verdict on costs
    assert lr.verdict(small) == []
