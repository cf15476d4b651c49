"""The lesson bar above the page (a Part): the lesson and "step N of M", the step's text with its numbers
filled in, Back and Next (PageUp / PageDown, as in presenter view), and the list of the lesson's steps.

Self-paced, `?lesson=NAME&step=N` opens the step's page with its settings (a link that carries settings of
its own, such as a reload's, keeps them) and Back and Next go to the steps' own settings; a student may
change any setting on the way. In a class-poll room the bar shows the room's lesson at the room's step:
the presenter's Back and Next move the room (ui/lessons/hall.py), a student's page follows
(ui/poll/follow.py). Every text is escaped: a lesson's words show exactly as written, never as HTML."""

from __future__ import annotations

import streamlit as st

from ui import compute
from ui.lessons import lesson as lessons
from ui.lessons import lesson_words, pacing, progress, shipped
from ui.lessons.lesson import Lesson, LessonError, Step, view_of
from ui.lessons.progress import Taking
from ui.poll import eyesup, participant, room
from ui.prose.text import md_escape
from ui.shell import lazy, session
from ui.shell.parts import Part

ROOM = "room"  # the name a room's lesson is read under


def source(view=None) -> tuple[Lesson, int | None, str, object] | None:
    """The lesson this browser shows: (lesson, step or None, "self" | "presenter" | "student", the room's
    live view or None). A room that follows a lesson wins over a lesson taken alone."""
    link = participant.link()
    if link.room:
        now = room.current(link.room)
        if now is not None and now.lesson:
            text = room.lesson_text(link.room, now)
            try:
                found = shipped.from_text(text, ROOM) if text else None
            except LessonError:
                found = None
            if found is not None:
                if link.presenter and now.step is not None:
                    progress.set_taking(Taking("", now.step))
                if link.presenter:
                    return found, now.step, "presenter", now
                rng = room.pace(link.room, now.rev) if participant.following() and now.step is not None else None
                if rng is None:
                    participant.set_paced(None)
                    return found, now.step, "student", now
                return found, pacing.own(found, now.step, rng), "student", now  # their own step (ui/lessons/pacing.py)
        participant.set_paced(None)  # no lesson in the room: no step of one's own
        taken = progress.taking()
        if taken is not None and taken.in_room:
            progress.set_taking(None)  # the room's lesson ended
    taken = progress.taking()
    if taken is not None and not taken.in_room:
        return shipped.load(taken.name), taken.number, "self", None
    return None


# --------------------------------------------------------------------------- moving
def go(lesson: Lesson, number: int) -> None:
    """A self-paced step: its page with its own settings, from the next run's start."""
    progress.set_taking(Taking(lesson.name, number))
    step = lesson.at(number)
    session.ask_goto(step.controls(), step.page)


def start(name: str) -> None:
    """The Inputs page's 'Take this lesson': its first step."""
    go(shipped.load(name), 1)


def _leave() -> None:
    progress.set_taking(None)


def _hall():
    """The presenter's room tools (ui/lessons/hall.py), imported when a lesson or a room first needs them."""
    from ui.lessons import hall

    return hall


def _jump(lesson: Lesson, role: str) -> None:
    number = st.session_state.get(progress.JUMP)
    if isinstance(number, int):
        (_hall().move if role == "presenter" else go)(lesson, number)


def _restore(lesson: Lesson, number: int) -> None:
    step = lesson.at(number)
    session.ask_goto(step.controls(), step.page)


# --------------------------------------------------------------------------- the bar
def _text(view, step: Step) -> None:
    """The step's text, its numbers computed at the step's own settings."""
    from ui.lessons import facts  # here, not at the top: a page outside a lesson never needs it

    try:
        st.markdown(md_escape(facts.fill(step.text, view_of(step, view.controls), compute)))
    except facts.NoFact as why:
        st.markdown(md_escape(facts.PLACE.sub("…", step.text)))
        st.caption(md_escape(f"A number of this step could not be computed: {why}."))


def _buttons(lesson: Lesson, number: int, role: str) -> None:
    move = _hall().move if role == "presenter" else go
    back, ahead, leave = st.columns([2, 2, 3], vertical_alignment="center")
    back.button(
        "◀ Back",
        key=progress.BACK,
        shortcut="pageup",
        width="stretch",
        disabled=number <= 1,
        on_click=move,
        args=(lesson, number - 1),
        help="The step before (PageUp)",
    )
    ahead.button(
        "Next ▶",
        key=progress.NEXT,
        shortcut="pagedown",
        width="stretch",
        disabled=number >= len(lesson.steps),
        on_click=move,
        args=(lesson, number + 1),
        help="The next step, with its own settings (PageDown)",
    )
    if role == "self":
        leave.button("Leave the lesson", key=progress.LEAVE, on_click=_leave, icon=":material/close:")


def _steps(lesson: Lesson, number: int, role: str) -> None:
    box = lazy.opened(f"All {len(lesson.steps)} steps of this lesson", progress.LIST, icon=":material/list:")
    if box is None:
        return
    with box:
        if role == "student":
            st.markdown(
                md_escape("\n".join(lesson_words.steps_list([s.title for s in lesson.steps], number))).replace(
                    "\n", "  \n"
                )
            )
            return
        st.session_state[progress.JUMP] = number
        st.radio(
            "Go to step",
            range(1, len(lesson.steps) + 1),
            key=progress.JUMP,
            on_change=_jump,
            args=(lesson, role),
            format_func=lambda i: md_escape(f"{i}. {lesson.at(i).title}"),
            label_visibility="collapsed",
        )


def draw(view, join_url: str) -> None:
    """The bar, above the page (and the presenter's lesson tools in a room)."""
    found = source(view)
    link = participant.link()
    if found is None:
        if link.presenter:
            _hall().panel(view, link, None, None)
        return
    lesson, number, role, now = found
    if role == "student" and eyesup.held(link):
        return  # eyes up: the poll's part draws the hold card instead of the page (ui/poll/eyesup.py)
    with st.container(border=True, key=progress.BAR):
        if number is None:
            st.markdown(f"**{md_escape(lesson.title)}**")
            st.caption(
                "The presenter is showing a view outside the lesson."
                if role == "student"
                else "You sent the hall a view outside the lesson; Back and Next return to its steps."
            )
            taken = progress.taking()
            if role == "presenter" and taken is not None:
                _buttons(lesson, min(taken.number + 1, len(lesson.steps)), role)
        else:
            step = lesson.at(number)
            where = lesson_words.where(number, len(lesson.steps), step.title)
            st.markdown(f"**{md_escape(lesson.title)}** · {md_escape(where)}")
            _text(view, step)
            moved = not room.same(room.here(view.page.path, view.controls), room.here(step.page, step.controls()))
            if moved and (role != "student" or participant.following()):  # else the poll's box says where it is
                st.caption(lesson_words.changed(room=role == "student"))
                st.button(
                    "Back to this step's settings",
                    key=progress.RESTORE,
                    on_click=_restore,
                    args=(lesson, number),
                    icon=":material/undo:",
                )
            if role != "student":
                _buttons(lesson, number, role)
            elif participant.paced() is not None:
                pacing.student(lesson, number, participant.paced()[0])
            _steps(lesson, number, role)
            if step.note and (role == "presenter" or (role == "self" and view.present)):
                with st.expander("Note for the presenter", icon=":material/sticky_note_2:"):
                    st.markdown(md_escape(step.note))
    if role == "presenter":
        _hall().panel(view, link, lesson, number)


def _read(params: dict[str, str]) -> list[str]:
    """A session's first run: ?lesson=NAME&step=N (a link without settings of its own opens the step's)."""
    if "lesson" not in params:
        return []
    try:
        lesson = shipped.load(str(params["lesson"]))
    except LessonError as err:
        return [str(err)]
    notes, raw = [], str(params.get("step", "1"))
    number = int(raw) if raw.isdigit() and 1 <= int(raw) <= len(lesson.steps) else None
    if number is None:
        notes.append(f"step={raw[:12]!r} is not a step of '{lesson.title}' (1 to {len(lesson.steps)}): showing step 1.")
        number = 1
    progress.set_taking(Taking(lesson.name, number))
    if not any(key in params for key in lessons.SETTINGS):
        step = lesson.at(number)
        session.ask_goto(step.controls(), step.page)
    return notes


def _url() -> dict[str, str]:
    taken = progress.taking()
    return {"lesson": taken.name, "step": str(taken.number)} if taken is not None and not taken.in_room else {}


def _stepping() -> bool:
    return progress.taking() is not None


PART = Part("lessons", read=_read, url=_url, share=_url, draw=draw, steps=_stepping)
