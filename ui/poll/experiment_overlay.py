"""The overlay of a class experiment's finished runs (issue 52), for the presenter: the sentence from the numbers
(each group's, and each comparison of two groups: an effect only when its bootstrap interval excludes zero), every
loss curve and the median, the formation steps' histogram, each run's final accuracy, the heads locked on, and the
exports. Drawn by the presenter panel's whole run (ui/poll/experiment.py asks for one when another run finished)."""

from __future__ import annotations

import streamlit as st

from engine.histories import LOCKED
from services.poll.codes import PollError
from ui.charts import class_charts
from ui.poll.db import store
from ui.prose import class_runs as words
from ui.prose.numbers import count
from ui.prose.text import md_escape


def show(slot, code: str, key: str, found, present: bool) -> int:
    """The overlay of experiment `found` (services/poll/experiment.Experiment, as the panel's run read it) into
    `slot` (a container of that whole run); how many finished runs it shows."""
    from services.poll import classview

    eid = found.eid
    try:
        done = classview.finished(store(), code, key, eid)
    except PollError as err:
        slot.warning(md_escape(str(err)))
        return 0
    if not done:
        slot.caption("The hall's runs appear here as they finish.")
        return 0
    plan, shown = found.plan, classview.overlay(done)
    head = words.HEADS[plan.task]
    setting = words.SETTINGS.get(plan.varies or "", "")
    with slot.container():
        st.caption(
            f"A run formed {head} at the first saved step where one head puts {LOCKED:.0%} of its weight on the task's "
            "keys (the Learn page's \u201clocks on\u201d), measured on the Learn page's sample."
        )
        for group in shown.groups:
            said = words.formed(group, head)
            st.markdown(f"**{md_escape(setting)} {md_escape(group.group)}:** {said}" if plan.varies else said)
        for c in shown.comparisons:
            st.markdown(md_escape(words.compared(c, setting)))
        if plan.varies and not shown.comparisons and len(shown.groups) > 1:
            st.caption("Two groups are compared once each has at least two runs that formed the head.")
        class_charts.curves(shown, setting, present)
        class_charts.formed(shown, setting, present)
        class_charts.accuracy(shown, setting, present)
        if shown.roles:
            st.markdown(
                f"**Heads locked on at the end** (a head with {LOCKED:.0%} of its weight on the keys of its role), in "
                f"{count(len(done), 'finished run')}: "
                + "; ".join(f"{md_escape(role)} in {count(n, 'run')}" for role, n in shown.roles)
                + "."
            )
        _downloads(code, key, eid, plan)
    return len(done)


def _downloads(code: str, key: str, eid: int, plan) -> None:
    from services.poll import classview, export

    def made(kind: str):
        done = classview.finished(store(), code, key, eid)
        if kind == "summary":
            return export.for_download(classview.summary_csv(done, plan))
        if kind == "curves":
            return export.for_download(classview.curves_csv(done))
        return classview.npz(done)

    row = st.container(horizontal=True, wrap=True)
    for kind, label, mime, ext in (
        ("summary", "Runs (CSV)", "text/csv", "csv"),
        ("curves", "Curves (CSV)", "text/csv", "csv"),
        ("arrays", "Curves (npz)", "application/octet-stream", "npz"),
    ):
        row.download_button(
            label,
            data=lambda kind=kind: made(kind),
            file_name=f"attention-lab-{code}-experiment-{eid}-{kind}.{ext}",
            mime=mime,
            key=f"poll_experiment_{kind}_{eid}",
            icon=":material/download:",
            on_click="ignore",
        )
