"""A student's run of the class experiment (issue 52), on the Learn page of a student in a room where the presenter
started one: the plan in words, **Train my run** (the room gives the seat its run number k, and the run goes to the
task queue: services/jobs.py), then where it is (its place in the queue, running, done) and, once done, where it
sits among the hall's ("your run formed an induction head at step 212; the hall's median is step 240").

Train my run is a whole run of the page, not a fragment's: a press inside a fragment that reaches the server while
a whole run of the page is under way (a phone's first run redraws the page at its measured width) is dropped by
Streamlit (the fragment it names is not there until that run draws it again), where a whole run's press waits for it
and is kept (tests/test_poll_experiment_browser.py lost 1 press in 2 runs as a fragment, none in 10 as a whole run).
The run trains in a worker, not in this page: the page checks its state every EVERY_S while it waits (one read; while
it trains, one more for its progress: step, loss and accuracy, as the Learn page's bar says them), and runs whole
once when it is done. The experiment is read once per process per change of the room
(ui/poll/room.experiment)."""

from __future__ import annotations

import streamlit as st

import engine
from services.poll.codes import PollError
from ui.poll import participant, room
from ui.poll.db import store
from ui.poll.link import Link
from ui.prose import class_runs as words
from ui.prose.numbers import count, training
from ui.prose.text import md_escape

BOX = "poll_class_run"  # the container's key
TRAIN = "poll_class_run_train"
EVERY_S = 5.0  # a waiting page asks where its run is this often (100 waiting: 20 light runs a second)
SAID = "poll_class_run_said"


def draw(present: bool = False) -> None:
    """The box, for a student in a room with a class experiment (nothing otherwise)."""
    link = participant.link()
    if not link.student or not link.seat:
        return
    now = room.current(link.room)
    try:
        found = None if now is None else room.experiment(link.room, now.rev)
    except PollError:
        return  # the room's own box says why
    if found is None:
        return
    try:
        mine = _mine(link, found.eid)
    except PollError:
        return  # the room's own box says why
    if found.cancelled and mine is None:
        return
    plan = found.plan
    with st.container(border=True, key=BOX):
        said = words.plan(plan.settings(1), plan.varies, plan.values, engine.TASKS[plan.task].title)
        st.markdown(f"**The class experiment:** every student trains a run of {md_escape(said)}.")
        if st.session_state.get(SAID):
            st.warning(md_escape(st.session_state.pop(SAID)), icon=":material/science:")
        if mine is None:
            st.button(
                "Train my run",
                key=TRAIN,
                type="primary",
                on_click=_train,
                args=(link,),
                icon=":material/model_training:",
            )
            st.caption(
                "The room gives you the next run number; your run trains on the class's workers, not in this page."
            )
        elif mine.state in ("queued", "running"):
            _waiting(link.room, found.eid, link.seat)
        else:
            _finished(link, found, mine, present)


def _mine(link: Link, eid: int):
    from services.poll import classview

    return classview.mine(store(), link.room, eid, link.seat)


def _train(link: Link) -> None:
    from services.jobrunner import ensure
    from services.jobs import submit
    from services.poll import experiment

    try:
        ticket = experiment.claim(store(), link.room, link.seat)
        if ticket.state == "queued":
            submit(link.room, ticket.eid, ticket.k)
            ensure()
    except (PollError, OSError) as err:
        st.session_state[SAID] = str(err)


@st.fragment(run_every=EVERY_S)
def _waiting(code: str, eid: int, seat: str) -> None:
    """Where the run is, every EVERY_S; a whole run once it finished."""
    try:
        mine = _mine(Link(code, None, seat), eid)
    except PollError:
        return
    if mine is None or mine.state not in ("queued", "running"):
        st.rerun()
    st.markdown(words.seeds(mine.k))
    if mine.state == "queued":
        ahead = "next in the queue" if mine.ahead == 0 else f"{count(mine.ahead, 'run')} before it in the queue"
        st.caption(f"Your run is waiting for a worker: {ahead}.")
    else:
        said = _progress(code, eid, mine.k)
        if said is None:
            st.caption("Your run is training on a worker now.")
        else:  # the Learn page's progress bar, as its worker last said it (every PROGRESS_EVERY_S)
            step, steps, loss, accuracy = said
            st.progress(step / steps, text=f"Your run, on a worker: {training(step, steps, loss, accuracy)}.")


def _progress(code: str, eid: int, k: int) -> tuple | None:
    """Where the run is, from its job (services/jobs.progress); None before its first word or if the queue cannot
    be read (the page then says it trains, as before)."""
    from services.jobs import if_it_answers, progress

    return if_it_answers(progress, code, eid, k)


def _finished(link: Link, found, mine, present: bool) -> None:
    from services.poll import classview

    st.markdown(words.seeds(mine.k))
    if mine.state == "cancelled":
        st.caption("The presenter cancelled the experiment before your run started.")
        return
    if mine.state == "failed":
        st.warning(
            "Your run failed (its worker stopped every try); the hall's other runs go on.", icon=":material/error:"
        )
        return
    done, steps = classview.hall_formed(store(), link.room, found.eid)
    st.markdown(md_escape(words.yours(mine.formed, mine.accuracy, done, steps, words.HEADS[found.plan.task])))
    curves = mine.curves
    if curves is not None:  # the run itself, as the Learn page draws one
        from ui.charts import run_charts

        run_charts.curves(curves["loss"], curves["batch_accuracy"], at_step=mine.formed, present=present)
        if mine.formed is not None:
            st.caption(f"The dotted line: step {mine.formed:,}, where your run's head formed.")
