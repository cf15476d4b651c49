"""A lesson run live in a class-poll room, the presenter's side: pick a shipped lesson or upload one (checked
first: a bad file changes nothing), move the room with Back and Next (a step with a question opens it for the
hall), send the current view to the hall (any page and settings, outside the lesson), add the current view
as a step, edit a step's texts, move it earlier or later, download the lesson as a TOML file that loads
again, end the lesson. Every change goes through ui.poll.room (the store's presenter-only update)."""

from __future__ import annotations

import re
import zlib
from dataclasses import replace

import streamlit as st

from ui import compute
from ui.lessons import check, lesson_words, pacing, progress, shipped
from ui.lessons.lesson import Lesson, LessonError, Step, dump, parse, view_of
from ui.lessons.progress import Taking
from ui.poll import participant, questions, room
from ui.poll.link import Link
from ui.prose import room_view
from ui.prose.text import md_escape
from ui.shell import lazy, session, site

PANEL, PICK, START, UPLOAD = "hall_panel", "hall_pick", "hall_start", "hall_upload"
TOOLS, ADD, EARLIER, LATER, SAVE, DOWNLOAD, END = (
    "hall_tools",
    "hall_add",
    "hall_earlier",
    "hall_later",
    "hall_save",
    "hall_download",
    "hall_end",
)
TITLE, TEXT, NOTE = "hall_title", "hall_text", "hall_note"  # prefixes: _keys() adds the step
ADDED = "A view added during the lecture: edit this text (Edit the room's lesson)."
_SAID = "_hall_said"  # a refused file or edit: its problems, for the next run


def _say(problems: list[str]) -> None:
    st.session_state[_SAID] = problems


def _step_view(lesson: Lesson, number: int) -> dict:
    step = lesson.at(number)
    return room.here(step.page, step.controls(), lesson_words.where(number, len(lesson.steps), step.title))


def _ask(link: Link, lesson: Lesson, number: int) -> None:
    """A step with a question opens it for the hall, keyed by the step (two steps on one page apart)."""
    step = lesson.at(number)
    registered = questions.ASKS.get(step.page)
    if not step.question or registered is None:
        return
    try:
        asked = registered.ask(view_of(step), compute)
    except questions.Unanswerable as why:
        participant.say(str(why))
        return
    room.ask(link, questions.step_qid(step.page, number), asked, _step_view(lesson, number))


def move(lesson: Lesson, number: int) -> None:
    """Back, Next or a step picked: the room moves (followers come along), the presenter's page too."""
    link = participant.link()
    if not link.presenter or not 1 <= number <= len(lesson.steps):
        return
    _ask(link, lesson, number)
    if room.update(link, step=number, view=_step_view(lesson, number)) is None:
        return
    progress.set_taking(Taking("", number))
    step = lesson.at(number)
    if step.pace is not None:  # the lesson's default: students move on their own from here
        room.set_pace(link, *step.pace)
    session.ask_goto(step.controls(), step.page)


def read(data: bytes, name: str = "uploaded") -> Lesson:
    """An uploaded lesson file, read and checked as a room's lesson is (LessonError says every problem)."""
    return check.check(parse(data, name), compute)


def _set(lesson: Lesson, number: int) -> None:
    """A lesson becomes the room's, at step `number`, if it reads back and checks (else nothing changes)."""
    try:
        text = dump(lesson)
        read(text.encode(), lesson.name)
    except LessonError as err:
        _say(err.problems)
        return
    if room.update(participant.link(), lesson=text) is not None:
        move(lesson, number)


def _start() -> None:
    _set(shipped.load(st.session_state[PICK]), 1)


def _uploaded() -> None:
    sent = st.session_state.get(UPLOAD)
    if sent is None:
        return
    try:
        _set(read(sent.getvalue()), 1)
    except LessonError as err:
        _say(err.problems)


def _send(link: Link, here: dict) -> None:
    """The presenter's current view to every follower (outside the lesson's steps)."""
    if room.update(link, step=None, view=here) is not None:
        participant.say(room_view.sent(site.by_path(here["page"]).title))


def _edit(lesson: Lesson, steps: list[Step], at: int) -> None:
    """The room's lesson with these steps, at step `at` (checked first)."""
    _set(replace(lesson, steps=tuple(steps)), at)


def _add(lesson: Lesson, number: int | None, here: dict) -> None:
    at = (number or len(lesson.steps)) + 1
    step = Step(site.by_path(here["page"]).title, here["page"], tuple(here["params"].items()), ADDED)
    _edit(lesson, [*lesson.steps[: at - 1], step, *lesson.steps[at - 1 :]], at)


def _shift(lesson: Lesson, number: int, by: int) -> None:
    steps = list(lesson.steps)
    other = number - 1 + by
    steps[number - 1], steps[other] = steps[other], steps[number - 1]
    _edit(lesson, steps, other + 1)


def _keys(lesson: Lesson, number: int) -> tuple[str, str, str]:
    """The edit form's widget keys for this step as it stands (a new step or new text: new widgets)."""
    tag = f"{number}_{zlib.crc32(repr(lesson.at(number)).encode())}"
    return f"{TITLE}_{tag}", f"{TEXT}_{tag}", f"{NOTE}_{tag}"


def _save(lesson: Lesson, number: int) -> None:
    title, text, note = (str(st.session_state.get(key, "")) for key in _keys(lesson, number))
    steps = list(lesson.steps)
    steps[number - 1] = replace(steps[number - 1], title=title, text=text, note=note)
    _edit(lesson, steps, number)


def _end(link: Link) -> None:
    if room.update(link, lesson=None, step=None) is not None:
        progress.set_taking(None)


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40] or "lesson"


def _tools(view, lesson: Lesson, number: int | None, here: dict) -> None:
    """Edit the room's lesson: drawn only while opened (what the projector shows stays short)."""
    box = lazy.opened("Edit the room's lesson", TOOLS, icon=":material/edit_note:")
    if box is None:
        return
    with box:
        st.button(
            f"Add this view as step {(number or len(lesson.steps)) + 1}",
            key=ADD,
            on_click=_add,
            args=(lesson, number, here),
            icon=":material/add:",
        )
        if number is not None:
            step = lesson.at(number)
            title, text, note = _keys(lesson, number)
            with st.form(key="hall_form", border=False):
                st.text_input("Title of this step", value=step.title, key=title, max_chars=80)
                st.text_area(
                    "Text for the students ({page.fact} for a number the page computes)",
                    value=step.text,
                    key=text,
                    max_chars=1200,
                )
                st.text_area("Your note", value=step.note, key=note, max_chars=800)
                st.form_submit_button("Save this step", on_click=_save, args=(lesson, number))
            left, right = st.columns(2)
            left.button(
                "Move this step earlier",
                key=EARLIER,
                on_click=_shift,
                args=(lesson, number, -1),
                disabled=number <= 1,
                icon=":material/arrow_upward:",
            )
            right.button(
                "Move this step later",
                key=LATER,
                on_click=_shift,
                args=(lesson, number, 1),
                disabled=number >= len(lesson.steps),
                icon=":material/arrow_downward:",
            )
        left, right = st.columns(2)
        left.download_button(
            "Download the lesson (TOML)",
            data=dump(lesson),
            file_name=f"{_slug(lesson.title)}.toml",
            mime="application/toml",
            key=DOWNLOAD,
            on_click="ignore",
            icon=":material/download:",
        )
        right.button("End the lesson", key=END, on_click=_end, args=(participant.link(),), icon=":material/stop:")


def panel(view, link: Link, lesson: Lesson | None, number: int | None) -> None:
    """The presenter's lesson panel, above the poll's."""
    here = room.here(view.page.path, view.controls)
    with st.container(border=True, key=PANEL):
        said = st.session_state.pop(_SAID, None)
        if said:
            st.error(md_escape(lesson_words.bad_file(said)), icon=":material/error:")
        if lesson is None:
            pick, go = st.columns([3, 1], vertical_alignment="bottom")
            pick.selectbox(
                "A lesson for the room", shipped.names(), key=PICK, format_func=lambda n: shipped.load(n).title
            )
            go.button("Start it", key=START, on_click=_start, type="primary", icon=":material/play_arrow:")
            st.file_uploader(
                "Or upload a lesson file (.toml, at most 100 KB)", type=["toml"], key=UPLOAD, on_change=_uploaded
            )
        st.button(
            "Send this view to the hall",
            key=participant.SEND,
            on_click=_send,
            args=(link, here),
            icon=":material/cast:",
            help="Every student who follows the presenter sees this page with these settings, in or outside a lesson.",
        )
        if lesson is not None:
            now = room.current(link.room)
            pacing.presenter(link, lesson, number, None if now is None else room.pace(link.room, now.rev), move)
            _tools(view, lesson, number, here)
