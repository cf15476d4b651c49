"""The class poll on screen: the presenter's panel (start, join link and QR code, ask, live counts,
reveal, reset, download, close) and a student's box (follow the presenter, the room's questions, their
answer, the result).

The presenter's counts refresh themselves (st.fragment(run_every=...)); a student's page reruns when the
room's one-row check (ui/poll/follow.py) sees a change: a question asked, revealed or reset, a move. Every
count is read from the store, so every replica shows the same room. Prompts and options may hold the
sidebar's words: always md_escape'd, never HTML.
"""

from __future__ import annotations

import dataclasses
import functools
import io

import streamlit as st

from services.poll import drawn
from services.poll.codes import NoRoom, NotPresenter, PollError, new_seat
from ui import compute
from ui.poll import (
    closing,
    countdown,
    db,
    drawq,
    experiment,
    eyesup,
    follow,
    hallcount,
    hallview,
    keep,
    participant,
    questions,
    room,
    student,
)
from ui.poll import link as links
from ui.poll.db import store
from ui.poll.link import Link
from ui.prose.text import md_escape
from ui.shell import session
from ui.shell.parts import Part

PRESENTER_EVERY_S = hallview.HALL_EVERY_S  # the projector's counts refresh this often (the hall view with them)


@functools.lru_cache(maxsize=16)
def qr_png(url: str) -> bytes:
    """The join link as a QR code, drawn here (no external service)."""
    import segno  # here: only a presenter's panel draws a QR code

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="png", scale=8, border=2)
    return out.getvalue()


def asked_for(view, step: int | None = None) -> questions.Asked | str | None:
    """This page's question, from the presenter's own numbers (keyed by the room's lesson step when the room
    is at a step of this page, so two steps on one page keep their answers apart); why not (a sentence)
    where the page gives no single answer to grade at these settings; None on a page without one."""
    registered = questions.ASKS.get(view.page.path)
    if registered is None:
        return None
    try:
        asked = registered.ask(view, compute)
    except questions.Unanswerable as why:
        return str(why)
    return asked if step is None else dataclasses.replace(asked, qid=questions.step_qid(view.page.path, step))


def draw(view, join_url: str) -> None:
    """The poll's part of the page: the presenter's panel, a student's box, or (presenter view, no room)
    the button that starts one."""
    said = participant.said()
    if said:
        st.warning(md_escape(said), icon=":material/how_to_vote:")
    link = participant.link()
    here = room.here(view.page.path, view.controls)
    if link.presenter:
        _presenter(view, link, join_url, here)
    elif link.student:
        student.draw(view, link, here)
    elif view.present:
        st.button(
            "Start a class poll",
            key=participant.START,
            icon=":material/how_to_vote:",
            on_click=_start,
            help="A room with a short code: the hall joins by link or QR code and answers this page's "
            "question; you see the answers live.",
        )


# ------------------------------------------------------------------------------------ the presenter
def _start() -> None:
    try:
        room = store().create_room()
    except PollError as err:
        participant.say(str(err))
        return
    participant.set_link(Link(room.code, room.key))


def _leave(message: str, link: Link | None = None) -> None:
    participant.set_link(link or Link())
    participant.say(message)


def _presenter(view, link: Link, join_url: str, here: dict) -> None:
    try:
        store().check(link.room, link.key)
    except NotPresenter:
        _leave(
            f"This link's presenter key is not room {link.room}'s: you are in the room as a student.",
            Link(link.room, None, new_seat()),
        )
        st.rerun()
    except NoRoom as err:
        _leave(str(err))
        st.rerun()
    except PollError as err:  # the database did not answer: say so, keep the room
        st.warning(md_escape(str(err)), icon=":material/how_to_vote:")
        return
    now = room.current(link.room)
    step = now.step if now is not None and now.view is not None and now.view["page"] == view.page.path else None
    asked = asked_for(view, step)
    keep.keep(link)
    follow.watch(link, here)  # a move made on another device reaches this screen
    with st.container(border=True, key=participant.PANEL):
        qr, live = st.columns([1, 2])
        with qr:
            st.image(qr_png(join_url), width=220, alt="QR code of the join link printed beside it")
            st.markdown(f"### Room {link.room}")  # a code of ALPHABET only: nothing to escape
            st.caption("Join at (the QR code holds the same link):")
            st.code(join_url, language=None, wrap_lines=True)
            keep.elsewhere(link, join_url)
        with live:
            if isinstance(asked, str):
                st.caption(md_escape(asked))
            elif asked is not None:
                st.button(
                    f"Ask this page's question ({questions.ASKS[view.page.path].title})",
                    key=participant.ASK,
                    type="primary",
                    on_click=_ask,
                    args=(link, view, step),
                    icon=":material/campaign:",
                )
            drawq.ask_button(link, view, step)
            if asked is None:
                st.caption(
                    "Questions are on the Scaled scores, Softmax weights and Exercise pages: open one and ask it."
                )
            countdown.setting()
            counts = st.container()  # the refresh's counts above the hall's box, which the whole run draws
            slot = hallview.box()
            with counts:
                live = _presenter_soon if hallview.soon(None if now is None else now.rev) else _presenter_live
                live(link.room, link.key, questions.step_qid(view.page.path, step), view.present, slot)
            eyesup.switch(link, now)
            experiment.draw(link, view.present)
            closing.draw(link)
    hallview.style()


def _ask(link: Link, view, step: int | None) -> None:
    """The page's question at the click: from the latest View (a click on a map since the full run moved it),
    keyed by the room's lesson step."""
    asked = asked_for(session.latest_view(view), step)
    if not isinstance(asked, questions.Asked):
        participant.say(asked or "This page has no question to ask.")
        return
    room.ask(link, asked.qid, asked, room.here(view.page.path, session.latest_view(view).controls))


def _act(what: str, link: Link, qid: str) -> None:
    try:
        getattr(store(), what)(link.room, link.key, qid)
    except PollError as err:
        participant.say(str(err))
    room.forget(link.room)


def _live(code: str, key: str, qid: str, present: bool, slot) -> None:
    """The question of this page or step (else the latest asked): how many answered, the distribution; then,
    while the hall view's box is open, the hall into its placeholder `slot` (hallview.box, drawn by the whole
    run) when it changed. One refresh for both (a timer of its own cost the server a run of its own every
    refresh: benchmarks/README.md); the hall's read gives the count of who is in the room."""
    hall = hallview.read(Link(code, key), qid)
    _question_live(code, key, qid, present, hallview.count_of(hall))
    hallview.show(slot, hall)


@st.fragment(run_every=PRESENTER_EVERY_S)
def _presenter_live(code: str, key: str, qid: str, present: bool, slot) -> None:
    """The panel's live part, every HALL_EVERY_S."""
    _live(code, key, qid, present, slot)


@st.fragment(run_every=hallview.SOON_EVERY_S)
def _presenter_soon(code: str, key: str, qid: str, present: bool, slot) -> None:
    """The same for hallview.SOON_S after the room moved, every SOON_EVERY_S (students are arriving); then one
    whole run, which draws _presenter_live again."""
    _live(code, key, qid, present, slot)
    if hallview.settled():
        st.rerun()


def _question_live(code: str, key: str, qid: str, present: bool, in_room: int | None) -> None:
    try:
        asked = store().questions(code)
        counts = store().counts(code)
    except PollError as err:
        st.warning(md_escape(str(err)))
        return
    if not asked:
        st.caption("No question asked yet.")
        return
    link = Link(code, key)
    q = next((q for q in asked if q.qid in (qid, drawq.paired(qid))), asked[0])  # the page's latest asked
    mine = counts.get(q.qid, {})
    st.markdown(f"**{md_escape(q.prompt)}**")
    countdown.left(q, key=f"poll_countdown_left_{q.qid}")
    here_now, answered = st.columns(2)
    n = hallcount.in_room(code) if in_room is None else in_room
    here_now.metric("in the room now", "–" if n is None else n)
    answered.metric("answered", sum(mine.values()))
    shown = hallcount.live_switch(link) or q.revealed
    if shown and q.kind == drawn.KIND:
        drawq.overlay(q, mine, present)
    elif shown:
        student.answer_bars(q, mine, present)
    else:
        st.caption("The answers' bars appear when you reveal (or switch on live counts).")
    left, right = st.columns(2)
    if q.revealed:
        left.success("Revealed" + ("" if q.kind == drawn.KIND else f": {md_escape(q.answer_label())}"))
    else:
        left.button(
            "Reveal the answer",
            key=participant.REVEAL,
            on_click=_act,
            args=("reveal", link, q.qid),
            icon=":material/visibility:",
        )
    right.button(
        "Reset this question",
        key=participant.RESET,
        on_click=_act,
        args=("reset", link, q.qid),
        icon=":material/restart_alt:",
    )
    others = [o for o in asked if o.qid != q.qid]
    if others:
        st.caption(
            "Also asked: "
            + "; ".join(f"{questions.title(o.qid)} ({sum(counts.get(o.qid, {}).values())} answered)" for o in others)
        )


def _read(params: dict[str, str]) -> list[str]:
    """A session's first run: the poll's part of the URL (a student gets a seat here); the process's first
    session also asks for the expired rooms' sweeper (ui/poll/db.sweep_later)."""
    db.sweep_later()
    found, problems = links.from_params(params, keep.remembered(params.get("room")))
    participant.set_link(found)
    return ["The class poll link was not usable: " + "; ".join(problems) + "."] if problems else []


PART = Part(
    "class poll",
    read=_read,
    url=lambda: participant.link().url_params(),
    share=lambda: participant.link().share_params(),
    draw=draw,
    early=follow.early,
)
