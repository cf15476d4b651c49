"""The lessons list on the first page: every shipped lesson with its summary, and one control that starts
one (its first step's page and settings). Two elements, drawn last: the first page stays quick. Not in
presenter view (a room's lesson is picked in the room)."""

from __future__ import annotations

import streamlit as st

from ui.lessons import bar, lesson_words, progress, shipped
from ui.prose.text import md_escape


def _take() -> None:
    name = st.session_state.get(progress.TAKE)
    if name:
        bar.start(name)


def draw(view) -> None:
    if view.present:
        return
    lines = [
        f"- **{md_escape(lesson.title)}** "
        f"({lesson_words.steps_summary(len(lesson.steps), len({step.page for step in lesson.steps}))}): "
        f"{md_escape(lesson.summary)}"
        for lesson in shipped.every()
    ]
    st.markdown(
        "**Lessons**: guided paths through these pages, step by step, each with its own settings.\n\n"
        + "\n".join(lines)
    )
    st.session_state[progress.TAKE] = None  # a choice, not a state: every lesson can be taken again
    st.segmented_control(
        "Take a lesson",
        shipped.names(),
        key=progress.TAKE,
        on_change=_take,
        format_func=lambda name: md_escape(shipped.load(name).title),
        help="Opens its first step; a link can too: ?lesson=" + shipped.names()[0],
    )
