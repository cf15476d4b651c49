"""The Experiments page's menu: one experiment at a time (its choice kept for the session)."""

from __future__ import annotations

import streamlit as st

from ui.sections.experiments import mask, positions, scaling
from ui.sections.experiments.common import SECTION, TITLES
from ui.shell.view import View

SECTIONS = {
    "scale": scaling.random_vectors,
    "init": scaling.in_this_block,
    "positions": positions.positions,
    "mask": mask.mask,
}


def draw(view: View) -> None:
    """The picked experiment."""
    section = (
        st.segmented_control(
            "Experiment",
            options=list(TITLES),
            format_func=TITLES.get,
            default="scale",
            required=True,
            key=SECTION,
            persist_state="session",
        )
        or "scale"
    )
    SECTIONS[section](view)
