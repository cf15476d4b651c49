"""Student pacing in a class-poll room's lesson (issue 51): the presenter lets the hall move between steps a and
b on their own (services/poll/pace.py keeps the range; a lesson step's `pace = [a, b]` sets it when the room
reaches that step), and a following student then gets Previous and Next step buttons (PageUp / PageDown) that
stay within the range. The presenter's moves inside the range do not move such a student; a move outside it,
a view outside the lesson or "Back to presenter-paced" ends the range and brings every follower to the
presenter's step. A student's own step is in their presence beat (ui/poll/hallcount.py), so the hall view shows
where each is. Texts are the app's own (numbers only); step titles are escaped."""

from __future__ import annotations

import streamlit as st

from ui.lessons.lesson import Lesson
from ui.poll import participant, room
from ui.poll.link import Link
from ui.shell import session

FROM, TO, SET, CLEAR = "pace_from", "pace_to", "pace_set", "pace_clear"  # the presenter's widgets
PREVIOUS, NEXT = "pace_previous", "pace_next"  # a student's buttons


def _view(lesson: Lesson, number: int) -> dict:
    step = lesson.at(number)
    return room.here(step.page, step.controls())


# --------------------------------------------------------------------------------------------- the presenter
def presenter(link: Link, lesson: Lesson, number: int | None, rng: tuple[int, int] | None, move) -> None:
    """The range's controls in the presenter's lesson panel: what holds now, two step numbers, set or clear
    (move: ui/lessons/hall.py's, which moves the room to a step)."""
    n = len(lesson.steps)
    if rng is not None:
        st.caption(
            f"Students move on their own between steps {rng[0]} and {rng[1]}. Moving the room outside these "
            "steps, or the button below, brings every student who follows back to your step."
        )
        st.button(
            "Back to presenter-paced", key=CLEAR, on_click=room.set_pace, args=(link, None), icon=":material/group:"
        )
    else:
        st.caption("Presenter-paced: every student who follows moves with you.")
    for widget, start in ((FROM, number or 1), (TO, min(n, (number or 1) + 1))):
        value = st.session_state.get(widget)
        if not isinstance(value, int) or not 1 <= value <= n:
            st.session_state[widget] = start
    first, last, go = st.columns([1, 1, 2], vertical_alignment="bottom")
    first.number_input("From step", min_value=1, max_value=n, step=1, key=FROM)
    last.number_input("To step", min_value=1, max_value=n, step=1, key=TO)
    go.button(
        "Let students move on their own",
        key=SET,
        on_click=_set,
        args=(link, lesson, number, move),
        icon=":material/directions_walk:",
        help="Students who follow you may then go back and forth between these steps; the hall view shows where "
        "each is. The room goes to the first of them if it is elsewhere.",
    )


def _set(link: Link, lesson: Lesson, number: int | None, move) -> None:
    first, last = st.session_state.get(FROM), st.session_state.get(TO)
    if isinstance(first, int) and isinstance(last, int) and first <= last and not (number and first <= number <= last):
        move(lesson, first)  # the room must be at a step of the range
    room.set_pace(link, first, last)


# ----------------------------------------------------------------------------------------------- a student
def own(lesson: Lesson, room_step: int, rng: tuple[int, int]) -> int:
    """A following student's own step under the range: where they went, while inside it; else the room's
    step (or the range's nearest end)."""
    kept = participant.paced()
    if kept is not None and rng[0] <= kept[1] <= rng[1] <= len(lesson.steps):
        step = kept[1]
    else:
        step = min(max(room_step, rng[0]), rng[1], len(lesson.steps))
    participant.set_paced((rng, step, _view(lesson, step)))
    return step


def student(lesson: Lesson, number: int, rng: tuple[int, int]) -> None:
    """A paced student's Previous and Next step (PageUp / PageDown), within the range."""
    st.caption(f"You move on your own between steps {rng[0]} and {rng[1]}: the presenter set this.")
    back, ahead = st.columns(2)
    back.button(
        "◀ Previous step",
        key=PREVIOUS,
        shortcut="pageup",
        width="stretch",
        disabled=number <= rng[0],
        on_click=_go,
        args=(lesson, number - 1, rng),
        help=f"Step {number - 1} (PageUp)" if number > rng[0] else f"Step {rng[0]} is the first you may go to",
    )
    ahead.button(
        "Next step ▶",
        key=NEXT,
        shortcut="pagedown",
        width="stretch",
        disabled=number >= rng[1],
        on_click=_go,
        args=(lesson, number + 1, rng),
        help=f"Step {number + 1} (PageDown)" if number < rng[1] else f"Step {rng[1]} is the last you may go to",
    )


def _go(lesson: Lesson, number: int, rng: tuple[int, int]) -> None:
    if not rng[0] <= number <= rng[1] or number > len(lesson.steps):
        return  # outside the range: the buttons are disabled there
    participant.set_paced((rng, number, _view(lesson, number)))
    step = lesson.at(number)
    session.ask_goto(step.controls(), step.page)
