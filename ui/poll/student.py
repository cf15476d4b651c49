"""A student's side of the class poll: the box with "Follow the presenter", the room's questions, their answer
(changeable until the reveal) and the result; the answer bars the presenter's panel draws too (ui/poll/panel.py).
Prompts and options may hold the sidebar's words: always md_escape'd, never HTML."""

from __future__ import annotations

import streamlit as st

from services.poll import drawn
from services.poll.codes import PollError, Question
from ui import charts
from ui.poll import closing, countdown, drawing, eyesup, follow, participant, room
from ui.poll.db import store
from ui.poll.link import Link
from ui.prose.text import md_escape


def answer_bars(q: Question, counts: dict[str, int], present: bool) -> None:
    """A question's answers as bars, one per option; the right ones highlighted once revealed."""
    labels = [f"{chr(65 + i)}. {label[:48]}" for i, (_, label) in enumerate(q.options)]
    right = [i for i, (value, _) in enumerate(q.options) if q.right(value)] if q.revealed else None
    charts.bars(
        [counts.get(value, 0) for value, _ in q.options],
        labels,
        title="answers",
        highlight=right,
        present=present,
        fmt="d",
    )


def draw(view, link: Link, here: dict) -> None:
    """A student's box: follow the presenter, then the room's questions. While eyes up is on, a following
    student's page is the hold card alone (the check still runs: it brings the page back)."""
    if eyesup.held(link):
        eyesup.card()
        follow.watch(link, here)
        st.stop()
    with st.container(border=True, key=participant.BOX):
        follow.switch(view, link, here)
        eyesup.note(link)
        _student_live(link.room, link.seat)
    follow.watch(link, here)


def _answer(code: str, seat: str, qid: str, widget: str, asked_at: float | None = None) -> None:
    choice = st.session_state.get(widget)
    if choice is None:
        return
    try:
        store().answer(code, seat, qid, choice, asked_at)  # asked_at: an answer to a reset question is refused
    except PollError as err:
        participant.say(str(err))
        st.session_state[widget] = room.kept_answer(qid)  # the radio shows what the store holds
        return
    room.answered(qid, choice)


@st.fragment
def _student_live(code: str, seat: str) -> None:
    """The room's questions, the latest first: answer (or change it) until the reveal, then the result."""
    said = participant.said()
    if said:
        st.warning(md_escape(said))
    now = room.current(code)  # the room's counter: what changed since these were read
    rev = None if now is None else now.rev
    try:
        asked = room.questions(code, rev)
        mine = room.mine(code, seat, rev)
        counts = room.counts(code, rev) if any(q.revealed for q in asked) else {}
    except PollError as err:  # no such room, closed, or the database did not answer
        st.warning(md_escape(str(err)), icon=":material/how_to_vote:")
        return
    st.markdown(
        f"**You are in room {code}.** "
        + (
            "Waiting for the presenter's first question…"
            if not asked
            else "Answer below; you can change it until the reveal"
            + (" or the question's countdown ends." if any(q.closes_at is not None for q in asked) else ".")
        )
    )
    st.caption(closing.kept_for_student(store().ttl_s))
    for q in asked:
        if q.kind == drawn.KIND:
            drawing.ask_row(code, seat, q, mine.get(q.qid))
            continue
        widget = participant.answer_key(f"{q.qid}_{int(q.asked_at * 1000)}")  # a question asked afresh: a new radio
        participant.choice(widget, mine.get(q.qid))
        countdown.left(q, key=f"{widget}_countdown")
        closed = q.closes_at is not None and store().clock() > q.closes_at
        st.radio(
            md_escape(q.prompt),
            [value for value, _ in q.options],
            key=widget,
            format_func=lambda v, q=q: md_escape(q.label(v)),
            disabled=q.revealed or closed,
            on_change=_answer,
            args=(code, seat, q.qid, widget, q.asked_at),
        )
        if q.revealed:
            yours = mine.get(q.qid)
            say = st.success if q.right(yours) else st.info
            say(
                f"**Right answer{'s' * (len(q.answers) > 1)}:** {md_escape(q.answer_label())}  \n"
                f"**Yours:** {md_escape(q.label(yours))}"
            )
            answer_bars(q, counts.get(q.qid, {}), False)
