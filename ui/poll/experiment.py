"""The presenter's class experiment (issue 52), a box on the presenter's panel drawn only while open: the form that
starts one (the task, the settings every run shares, optionally one setting that varies across the hall), Cancel,
how many runs are queued, running, done and failed, and the overlay of the hall's runs as they arrive (every loss
curve and the median, the formation steps' histogram, the final accuracies, the heads locked on, the sentence that
says them), with the exports.

The counts refresh every EVERY_S (a fragment: one count on the store), which also starts again an app worker that
died (services/jobrunner.py). The overlay is drawn by the panel's whole run (a read of the finished runs, then the
figures: services/poll/classview.py); the refresh asks for one when more runs are done than it shows, at most
every OVERLAY_EVERY_S, so 300 runs arriving cost the panel a whole run every 5 s, not one each. (Written from the
fragment into a placeholder outside it, the overlay vanished at the fragment's next run in the browser.) Every
text is escaped or made of numbers."""

from __future__ import annotations

import time

import streamlit as st

import engine
from services.poll.codes import PollError
from ui.poll import room
from ui.poll.db import store
from ui.poll.link import Link
from ui.prose import class_runs as words
from ui.prose.text import md_escape
from ui.shell import lazy

BOX = "poll_experiment"
TASK, STEPS, LR, LAYERS, WIDTH, VARIES, VALUES = (
    f"poll_experiment_{n}" for n in ("task", "steps", "lr", "layers", "width", "varies", "values")
)
START, CANCEL = "poll_experiment_start", "poll_experiment_cancel"
EVERY_S = 2.0  # the counts refresh this often
OVERLAY_EVERY_S = 5.0  # the overlay is drawn again (a whole run of the panel) at most this often, when a run finished
SHOWN = "poll_experiment_shown"  # (experiment, finished runs the overlay shows, time.monotonic() it was drawn)
SAID = "poll_experiment_said"  # a refusal to show once (a start the store refused)
# What a run costs (one core of the developers' machine; benchmarks/README.md, "class experiment"), at a task's
# default steps: the time grows with the steps.
COST_S = {"induction": 1.0, "previous": 0.2}


def _experiment():
    from services.poll import experiment

    return experiment


def draw(link: Link, present: bool) -> None:
    """The box (the presenter's own screen: it names no student)."""
    box = lazy.opened("Class experiment: every student trains a run", BOX, icon=":material/science:", keep=True)
    if box is None:
        return
    with box:
        if st.session_state.get(SAID):
            st.warning(md_escape(st.session_state.pop(SAID)), icon=":material/science:")
        try:
            found = _experiment().current(store(), link.room)
        except PollError as err:
            st.warning(md_escape(str(err)), icon=":material/science:")
            return
        if found is None or found.cancelled:
            if found is not None:
                st.caption(
                    f"Experiment {found.eid} was cancelled; its finished runs stay below until you start another."
                )
            _form(link)
        else:
            p = found.plan
            said = words.plan(p.settings(1), p.varies, p.values, engine.TASKS[p.task].title)
            st.markdown(f"**Experiment {found.eid}:** {md_escape(said)}.")
            st.caption(
                words.seeds() + " Students press **Train my run** on the Learn page; a late student gets the next run."
            )
            st.button(
                "Cancel the experiment", key=CANCEL, on_click=_cancel, args=(link, found.eid), icon=":material/cancel:"
            )
        if found is not None:
            from ui.poll import experiment_overlay

            counts = st.container()  # the refresh's counts above the overlay, which this whole run draws first
            drawn = experiment_overlay.show(st.container(), link.room, link.key, found, present)
            st.session_state[SHOWN] = (found.eid, drawn, time.monotonic())
            with counts:  # the refresh run inline now sees the overlay just drawn: no whole run asked for again
                _status(link.room, link.key, found.eid)


def _form(link: Link) -> None:
    task = st.selectbox(
        "Task",
        list(_experiment().TASKS),
        format_func=lambda t: engine.TASKS[t].title,
        key=TASK,
        help="The Learn page's letter tasks (the English text is too slow for a hall).",
    )
    t = engine.TASKS[task]
    st.caption(
        f"A run of {t.title} at its {t.steps} steps takes about {COST_S[task]:g} s of one core of the server's "
        "workers (more steps, more time)."
    )
    with st.form(f"poll_experiment_form_{task}", border=False):  # per task: its defaults when the task changes
        left, right = st.columns(2)
        left.number_input("Steps", 20, 2000, t.steps, step=10, key=f"{STEPS}_{task}")
        right.number_input("Learning rate", 1e-4, 0.5, t.lr, step=0.005, format="%.4f", key=f"{LR}_{task}")
        left.selectbox("Layers", [1, 2], index=t.config.n_layers - 1, key=f"{LAYERS}_{task}")
        right.selectbox(
            "Width (d_model)", [8, 16, 32, 64], index=[8, 16, 32, 64].index(t.config.d_model), key=f"{WIDTH}_{task}"
        )
        st.selectbox(
            "One setting that varies across the hall (optional)",
            [None, "lr", "layers", "steps", "width"],
            format_func=lambda v: "none" if v is None else words.SETTINGS[v],
            key=f"{VARIES}_{task}",
        )
        st.text_input(
            "Its values, separated by commas (each student is given one in turn)",
            key=f"{VALUES}_{task}",
            placeholder="e.g. 0.02, 0.005",
            max_chars=200,
        )
        st.form_submit_button(
            "Start the experiment", type="primary", on_click=_start, args=(link, task), icon=":material/play_arrow:"
        )


def _values(text: str) -> list[float]:
    try:
        return [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise PollError("The values are numbers separated by commas, e.g. 0.02, 0.005.") from None


def _start(link: Link, task: str) -> None:
    experiment, get = _experiment(), st.session_state.get
    try:
        varies = get(f"{VARIES}_{task}")
        chosen = experiment.plan(
            task,
            get(f"{STEPS}_{task}"),
            get(f"{LR}_{task}"),
            get(f"{LAYERS}_{task}"),
            get(f"{WIDTH}_{task}"),
            varies,
            _values(get(f"{VALUES}_{task}") or "") if varies else (),
        )
        experiment.start(store(), link.room, link.key, chosen)
    except PollError as err:
        st.session_state[SAID] = str(err)
    room.forget(link.room)  # this process's pages read the room's news now, not FRESH_S later


def _cancel(link: Link, eid: int) -> None:
    from services.jobs import cancel

    try:
        _experiment().cancel(store(), link.room, link.key)
        cancel(link.room, eid)
    except (PollError, OSError) as err:
        st.session_state[SAID] = str(err)
    room.forget(link.room)


@st.fragment(run_every=EVERY_S)
def _status(code: str, key: str, eid: int) -> None:
    """The runs' counts; a whole run (which draws the overlay) when more runs are done than it shows, at most every
    OVERLAY_EVERY_S."""
    from services.jobrunner import ensure

    try:
        tally = _experiment().tally(store(), code, eid)
    except PollError as err:
        st.warning(md_escape(str(err)))
        return
    if tally["queued"] or tally["running"]:
        ensure()  # an app worker that died starts again (its run is recovered)
    with st.container(horizontal=True, gap="medium"):  # side by side on a phone too (columns would stack)
        for state in ("queued", "running", "done", "failed"):
            st.metric(state, tally[state], width="content")
    shown = st.session_state.get(SHOWN)
    if shown is not None and (shown[0], shown[1]) != (eid, tally["done"]):
        if time.monotonic() - shown[2] >= OVERLAY_EVERY_S:
            st.rerun()
