"""The lessons list on the first page: every shipped lesson with its summary and a button that starts it
(its first step's page and settings). Not in presenter view (a room's lesson is picked in the room)."""
from __future__ import annotations

import streamlit as st

from ui.lessons import bar, place, shipped, words
from ui.prose.text import md_escape


def draw(view) -> None:
    if view.present:
        return
    with st.container(border=True, key=place.LISTING):
        st.subheader("Lessons: a guided path through these pages")
        for lesson in shipped.every():
            pages = len({step.page for step in lesson.steps})
            text, go = st.columns([4, 1], vertical_alignment="center")
            text.markdown(f"**{md_escape(lesson.title)}** ({words.steps_summary(len(lesson.steps), pages)}): "
                          f"{md_escape(lesson.summary)}")
            go.button("Take it", key=place.take_key(lesson.name), on_click=bar.start, args=(lesson.name,),
                      icon=":material/school:", help=f"Opens its first step; or link to ?lesson={lesson.name}")
