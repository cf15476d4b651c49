"""Everything a run depends on, read once at the top of the frame: the URL (on a session's first run; after
it, the cell a map's pick wrote there), the sidebar's widgets and the model view's clicks, settled into one
consistent Controls; and the screen the browser shell_screen."""

from __future__ import annotations

import re
from dataclasses import replace

import streamlit as st

from ui.shell import screen as shell_screen
from ui.shell import session, state, url
from ui.shell.state import Controls


def read() -> tuple[Controls, list[str], dict[str, str] | None]:
    """The controls of this run, what had to change to get them (notes for the page), and on a session's
    first run the URL's parameters (for the parts around the page to read theirs; None after)."""
    notes = session.take_notes()
    first = None
    if session.first_run():
        params = first = st.query_params.to_dict()
        controls, problems = url.from_params(params)
        session.load_controls(controls)
        if problems:
            notes.append("Some link parameters were not usable and fell back to defaults: " + "; ".join(problems) + ".")
    head = session.raw(session.FIELD.head)
    if not isinstance(head, int):
        # The head picker's labels name d_model's columns. After d_model moves, the browser still
        # sends the old label, which matches no option, and Streamlit returns it as a plain string.
        match = re.match(r"head (\d+)", str(head))
        session.set_raw(session.FIELD.head, int(match.group(1)) if match else 0)
    layer = session.raw(session.FIELD.layer)
    if not isinstance(layer, int):  # the same for the layer picker's labels
        match = re.match(r"layer (\d+)", str(layer))
        session.set_raw(session.FIELD.layer, int(match.group(1)) if match else 0)
    controls = session.read_controls()
    controls = replace(
        controls, ablate=tuple(sorted({tuple(pair) for pair in controls.ablate}))
    )  # a multiselect's list
    if first is None:  # a pick answered in the browser wrote cell= into the URL: Streamlit's frontend sends the
        # address's own query string only while the server's copy is empty (else that copy), so a share link always
        # carries the pick (read above on its first run) and a later run reads it only then
        linked = url.cell_param(st.query_params.get("cell"))
        if linked is not None and linked != controls.cell:
            controls = replace(controls, cell=linked)
    typed = session.typed_cell()  # the selectors beside the worked calculation: the newer choice
    if typed is not None:
        controls = replace(controls, cell=typed)
    typed = session.typed_head(controls.heads)  # the model view's layer × head selector (a click on a map sets it)
    if typed is not None:
        controls = replace(controls, layer=typed[0], head=typed[1])
    controls, fixes = state.settle(controls)
    session.write_controls(controls)  # the widgets show the settled values
    return controls, notes + fixes, first


def screen(cap: int) -> tuple[int, bool]:
    """The main column's px (at most `cap`, the desktop width laid out for) and whether st.columns stack:
    as the browser measured them in this session, else ui.shell.screen's guess, made once a session (a
    remembered measurement, a phone's), else the desktop's."""
    sent = session.screen()
    measured = sent and shell_screen.believable(*sent)
    width, stacked = measured or session.screen_guess(shell_screen.guess) or (cap, False)
    return min(width, cap), stacked
