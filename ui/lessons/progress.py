"""Where this browser is in a lesson, kept in its session: the lesson it takes and its step, and whether a
student in a room follows the presenter; and the lesson bar's widget keys."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

BAR, BACK, NEXT, LEAVE, RESTORE = "lesson_bar", "lesson_back", "lesson_next", "lesson_leave", "lesson_restore"
LIST, JUMP, NOTE = "lesson_list", "lesson_jump", "lesson_note"  # the steps' expander and list, the note's
TAKE = "lesson_take"  # the Inputs page's "Take a lesson"
_TAKING = "_lesson"  # Taking


@dataclass(frozen=True)
class Taking:
    name: str  # a shipped lesson's name (self-paced), or "" for the room's lesson
    number: int  # the step, counted from 1

    @property
    def in_room(self) -> bool:
        return not self.name


def taking() -> Taking | None:
    return st.session_state.get(_TAKING)


def set_taking(value: Taking | None) -> None:
    st.session_state[_TAKING] = value
