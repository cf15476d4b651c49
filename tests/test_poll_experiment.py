"""Issue 52, the class experiment in the room's store: the presenter's plan checked in words, one run per seat
numbered in the order seats ask (a late seat gets the next number, a seat asking again its own), the varied
setting handed out in turn, a worker's take counting tries (a run whose worker died MAX_TRIES times fails), a
result recorded once however often its job is delivered, cancel, the tally, and every row gone with the room.
SQLite and PostgreSQL (the fixtures of test_poll)."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from services.poll import classview
from services.poll import experiment as cx
from services.poll import store as ps
from tests.test_poll import Clock, make, pg_url  # noqa: F401 - fixtures

PLAN = cx.plan("induction", 480, 0.02, 2, 32)
RESULT = {"final_loss": 0.31, "accuracy": 0.97, "formed": 212, "roles": [], "curves": {"loss": [2.0, 0.3]}}


def rows(s: ps.Store, table: str, code: str) -> int:
    with s.engine.connect() as conn:
        return conn.execute(sa.text(f"SELECT COUNT(*) FROM {table} WHERE code = :c"), {"c": code}).scalar()


def test_seats_get_runs_in_order_and_a_seat_asking_again_keeps_its_own(make):
    s, other = make(), make()  # two replicas on one database
    room = s.create_room()
    assert cx.current(s, room.code) is None
    with pytest.raises(ps.PollError, match="not started"):
        cx.claim(s, room.code, "seat-00001")
    assert cx.start(s, room.code, room.key, PLAN) == 1
    got = [cx.claim(s if i % 2 else other, room.code, f"seat-0000{i}") for i in range(1, 4)]
    assert [t.k for t in got] == [1, 2, 3] and got[0].settings == {**PLAN.settings(1)} and got[0].state == "queued"
    assert cx.claim(other, room.code, "seat-00002").k == 2 and got[1].job == "run-1-2"
    assert cx.current(other, room.code) == cx.Experiment(1, PLAN, cx.current(s, room.code).started_at, False)


def test_the_varied_setting_is_handed_out_in_turn(make):
    s = make()
    room = s.create_room()
    cx.start(s, room.code, room.key, cx.plan("previous", 250, 0.06, 1, 16, "lr", [0.06, 0.01, 0.003]))
    given = [cx.claim(s, room.code, f"seat-0000{i}").settings["lr"] for i in range(1, 8)]
    assert given == [0.06, 0.01, 0.003, 0.06, 0.01, 0.003, 0.06]
    with s.engine.connect() as conn:
        values = conn.execute(sa.text("SELECT value FROM poll_runs ORDER BY k")).scalars().all()
    assert values[:3] == ["0.06", "0.01", "0.003"]


def test_first_claims_at_once_on_two_replicas_get_distinct_numbers(make):
    s, other = make(), make()
    room = s.create_room()
    cx.start(s, room.code, room.key, PLAN)
    got, errors = [], []

    def ask(store, i):
        try:
            got.append(cx.claim(store, room.code, f"seat-{i:05d}").k)
        except Exception as err:  # noqa: BLE001 - any error fails the test below
            errors.append(err)

    threads = [threading.Thread(target=ask, args=(s if i % 2 else other, i)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and sorted(got) == list(range(1, 13))


def test_a_run_is_taken_counted_recorded_once_and_failed_after_its_tries(make):
    s = make()
    room = s.create_room()
    cx.start(s, room.code, room.key, PLAN)
    one, two = (cx.claim(s, room.code, f"seat-0000{i}") for i in (1, 2))
    assert cx.take(s, room.code, one.eid, one.k) == PLAN and cx.tally(s, room.code, 1)["running"] == 1
    assert classview.mine(s, room.code, one.eid, "seat-00001").curves is None  # running: nothing to draw yet
    assert cx.record(s, room.code, one.eid, one.k, RESULT)
    shown = classview.mine(s, room.code, one.eid, "seat-00001")  # one read: the student's page draws these
    assert (shown.state, shown.formed, shown.curves) == ("done", 212, RESULT["curves"])
    assert not cx.record(s, room.code, one.eid, one.k, {**RESULT, "formed": 1})  # delivered twice: kept once
    assert not cx.take(s, room.code, one.eid, one.k)  # done: a second delivery trains nothing
    for _ in range(cx.MAX_TRIES):  # its worker died every time
        assert cx.take(s, room.code, two.eid, two.k)
    assert not cx.take(s, room.code, two.eid, two.k)
    assert cx.tally(s, room.code, 1) == {"queued": 0, "running": 0, "done": 1, "failed": 1, "cancelled": 0}
    with s.engine.connect() as conn:
        formed, error = conn.execute(sa.text("SELECT formed, error FROM poll_runs ORDER BY k")).all()
    assert formed[0] == 212 and "every try" in error[1]
    assert cx.take(s, room.code, 9, 9) is None  # no such run


def test_cancel_stops_queued_runs_and_new_seats_but_keeps_finished_ones(make):
    s = make()
    room = s.create_room()
    cx.start(s, room.code, room.key, PLAN)
    done, running, queued = (cx.claim(s, room.code, f"seat-0000{i}") for i in (1, 2, 3))
    cx.take(s, room.code, 1, done.k)
    cx.record(s, room.code, 1, done.k, RESULT)
    cx.take(s, room.code, 1, running.k)
    with pytest.raises(ps.NotPresenter):
        cx.cancel(s, room.code, "x" * 22)
    cx.cancel(s, room.code, room.key)
    assert cx.tally(s, room.code, 1) == {"queued": 0, "running": 1, "done": 1, "failed": 0, "cancelled": 1}
    assert not cx.take(s, room.code, 1, queued.k)
    with pytest.raises(ps.PollError, match="cancelled"):
        cx.claim(s, room.code, "seat-00009")
    assert cx.claim(s, room.code, "seat-00001").state == "done"  # a seat with a run still sees it
    assert cx.start(s, room.code, room.key, PLAN) == 2 and cx.claim(s, room.code, "seat-00001").k == 1  # anew


def test_the_queue_position_counts_every_rooms_queued_runs_before(make):
    from services.poll import classview

    clock = Clock()
    s = make(clock=clock)
    rooms_ = [s.create_room() for _ in range(2)]
    for room in rooms_:
        cx.start(s, room.code, room.key, PLAN)
    seats_ = []
    for i in range(4):
        clock.now += 1
        room = rooms_[i % 2]
        seats_.append((room.code, cx.claim(s, room.code, f"seat-0000{i}").k, f"seat-0000{i}"))
    assert [classview.mine(s, code, 1, seat).ahead for code, _, seat in seats_] == [0, 1, 2, 3]
    cx.take(s, seats_[0][0], 1, seats_[0][1])
    mine = classview.mine(s, seats_[3][0], 1, seats_[3][2])
    assert (mine.k, mine.state, mine.ahead) == (2, "queued", 2)
    assert classview.mine(s, seats_[0][0], 1, seats_[0][2]).ahead == 0  # running: not in the queue
    assert classview.mine(s, seats_[0][0], 1, "seat-00099") is None


def test_closing_or_expiring_a_room_deletes_its_experiment_and_runs(make):
    clock = Clock()
    s = make(clock=clock)
    closed, expiring, kept = (s.create_room() for _ in range(3))
    for room in (closed, expiring, kept):
        cx.start(s, room.code, room.key, PLAN)
        cx.claim(s, room.code, "seat-00001")
    s.close_room(closed.code, closed.key)
    assert rows(s, "poll_runs", closed.code) == rows(s, "poll_experiments", closed.code) == 0
    with pytest.raises(ps.NoRoom):
        cx.claim(s, closed.code, "seat-00002")
    with s.engine.begin() as conn:
        conn.execute(sa.text("UPDATE poll_rooms SET expires_at = 0 WHERE code = :c"), {"c": expiring.code})
    s.purge()
    assert rows(s, "poll_runs", expiring.code) == rows(s, "poll_experiments", expiring.code) == 0
    assert rows(s, "poll_runs", kept.code) == 1
    assert not cx.record(s, closed.code, 1, 1, RESULT)  # a worker finishing after the close writes nothing


@pytest.mark.parametrize(
    "args, said",
    [
        (("text", 100, 0.01, 2, 32), "one of: induction, previous token"),
        (("induction", 5, 0.02, 2, 32), "steps is a number from 20 to 2000; 5 is outside"),
        (("induction", 100.5, 0.02, 2, 32), "steps is a whole number"),
        (("induction", 100, float("nan"), 2, 32), "learning rate is a number"),
        (("induction", 100, True, 2, 32), "learning rate is a number"),
        (("induction", 100, 0.02, 3, 32), "layers is a number from 1 to 2"),
        (("induction", 100, 0.02, 2, 33), "width is even"),
        (("induction", 100, 0.02, 2, 32, "seed", [1, 2]), "The setting that varies is one of"),
        (("induction", 100, 0.02, 2, 32, "lr", [0.02]), "2 to 4 values"),
        (("induction", 100, 0.02, 2, 32, "lr", "0.1,0.2"), "2 to 4 values"),
        (("induction", 100, 0.02, 2, 32, "layers", [1, 1]), "different from each other"),
        (("induction", 100, 0.02, 2, 32, "width", [16, "<b>"]), "width (d_model) is a number"),
    ],
)
def test_a_plan_the_learn_page_would_not_train_is_refused_in_words(args, said):
    with pytest.raises(ps.PollError, match=said.replace("(", r"\(").replace(")", r"\)")):
        cx.plan(*args)


def test_only_the_presenter_starts_and_a_student_seat_must_be_one_a_link_gives(make):
    s = make()
    room = s.create_room()
    with pytest.raises(ps.NotPresenter):
        cx.start(s, room.code, s.create_room().key, PLAN)
    assert cx.current(s, room.code) is None
    cx.start(s, room.code, room.key, PLAN)
    with pytest.raises(ps.PollError):
        cx.claim(s, room.code, "<script>")
    assert cx.tally(s, room.code, 1)["queued"] == 0
