"""Every session-state key the frame and the shared parts use, declared once, with the accessors that read and
write it; a key only one page uses lives in that page's folder (ui/sections/<page>/keys.py, or beside its
widget), declared once there.

Widgets take theirs from here (`key=session.SCORES_MAPS`), and state that is not a widget's is read and written
through the functions below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from types import SimpleNamespace
from typing import Any

import streamlit as st

from ui.shell.state import Controls, switched

# --------------------------------------------------------------------------- the sidebar's widgets
# Each sidebar widget's key is its Controls field's name; `cell` is not a widget (chart clicks set it).
CONTROL_KEYS = tuple(f.name for f in fields(Controls))
FIELD = SimpleNamespace(**{k: k for k in CONTROL_KEYS})  # FIELD.seq_len == "seq_len": a typo fails loudly

# Maps a pick picks the page's cell on (answered in the browser, which writes it into the URL's cell=: a share
# link carries it): the attention-map components' keys.
SCORES_MAPS, SOFTMAX_MAP = "scores_maps", "softmax_map"
CELL_CHARTS = (SCORES_MAPS, SOFTMAX_MAP)
MODEL_MAP = "model_map"  # the model view (ui.charts.attention_grid): a click on a map opens that layer's head
# Widgets beside those charts that pick what a click picks: a keyboard's and a screen reader's path to it.
# Each mirrors a control (the frame writes it from the settled Controls every run); a value the student
# changed since then is read back into the controls (ui.shell.inputs.read), so the click, the widget and
# the URL's cell= always agree.
PICK_QUERY, PICK_KEY = "pick_query", "pick_key"  # the worked calculation's query row and key column
OPEN_HEAD, OPEN_HEAD_GO = "open_head_pick", "open_head_go"  # the model view: layer * heads + head; its button
MIRRORS = (PICK_QUERY, PICK_KEY, OPEN_HEAD)
SCREEN = "screen"  # the screen-measuring component (ui.shell.screen): its value is [px, stacked]

# --------------------------------------------------------------------------- the frame's own widgets
STEP_BACK, STEP_NEXT = "step_back", "step_next"
LINK_OPEN = "link_open"  # the sidebar's "Link to this view" expander is open
SWITCHES_OPEN = "switches_open"  # the sidebar's "Switches" expander is open


def download_key(kind: str, slug: str) -> str:
    return f"{kind}_{slug}"


def export_key(slug: str) -> str:
    """A page's downloads-and-figures expander (open or not)."""
    return f"export_{slug}"


def code_key(slug: str) -> str:
    """A page's "Show the NumPy code" expander (open or not)."""
    return f"code_{slug}"


# --------------------------------------------------------------------------- private state
_CONTROLS = "_controls"  # the last complete Controls (restores widgets a cut-short run dropped)
_LOADED = "_loaded"  # the URL has been read for this session
_NOTES = "_notes"  # notes a callback left for the next run to show
_OPEN_HEAD = "open_head"  # set when a model-view click asked for the per-head page
_VIEW = "_view"  # the View of the latest run (a fragment's rerun may have moved the cell or β)
_MIRRORED = "_mirrored"  # {mirror widget key: the value the frame last wrote to it}
_GOTO = "_goto"  # (Controls, page path) to show next: a lesson's step, the room's view
_SCREEN_GUESS = "_screen_guess"  # the screen guessed before the browser measured it (ui.shell.screen.guess)


def _ss():
    return st.session_state


# -- the controls --------------------------------------------------------------------------------
def first_run() -> bool:
    """True once per session: the run that reads the URL."""
    if _LOADED in _ss():
        return False
    _ss()[_LOADED] = True
    return True


def read_controls() -> Controls:
    """The controls as the widgets (and the cell) hold them now; widgets a cut-short run dropped
    (Streamlit forgets a widget's state when st.switch_page ends a run early) come back from the
    last complete view."""
    ss = _ss()
    if any(k not in ss for k in CONTROL_KEYS) and _CONTROLS in ss:
        write_controls(ss[_CONTROLS])
    return Controls(**{k: ss[k] for k in CONTROL_KEYS})


def load_controls(c: Controls) -> None:
    """A whole new set of controls (a link's, a preset's): written to the widgets, and the Switches
    expander opened when one of them is set, so the student sees it."""
    write_controls(c)
    if switched(c) or c.stretch:
        _ss()[SWITCHES_OPEN] = True


def write_controls(c: Controls) -> None:
    ss = _ss()
    for key in CONTROL_KEYS:
        ss[key] = getattr(c, key)
    ss[FIELD.ablate] = list(c.ablate)  # a multiselect's value is a list (Controls keeps a tuple)
    if c.cell is not None:
        ss[PICK_QUERY], ss[PICK_KEY] = c.cell
    else:  # keep a half-chosen cell (a query, no key yet) while it exists
        for key in (PICK_QUERY, PICK_KEY):
            if not (isinstance(ss.get(key), int) and ss[key] < c.seq_len):
                ss[key] = None
    ss[OPEN_HEAD] = c.layer * c.heads + c.head
    ss[_MIRRORED] = {key: ss.get(key) for key in MIRRORS}


def _typed(key: str) -> bool:
    """A mirror widget's value was changed by the student since the frame last wrote it."""
    ss = _ss()
    return ss.get(key) is not None and ss.get(key) != ss.get(_MIRRORED, {}).get(key, ss.get(key))


def typed_cell() -> tuple[int, int] | None:
    """The (query, key) chosen in the selectors beside the worked calculation, if one was just chosen
    and the other is set."""
    ss = _ss()
    query, key = ss.get(PICK_QUERY), ss.get(PICK_KEY)
    if (_typed(PICK_QUERY) or _typed(PICK_KEY)) and isinstance(query, int) and isinstance(key, int):
        return query, key
    return None


def typed_head(heads: int) -> tuple[int, int] | None:
    """The (layer, head) just chosen in the model view's selector, or None."""
    return divmod(int(_ss()[OPEN_HEAD]), heads) if _typed(OPEN_HEAD) else None


def remember_controls(c: Controls) -> None:
    _ss()[_CONTROLS] = c


def raw(key: str) -> Any:
    """A widget's value as the browser sent it (may be stale, e.g. an old option label)."""
    return _ss().get(key)


def set_raw(key: str, value: Any) -> None:
    _ss()[key] = value


def leave_note(note: str) -> None:
    _ss()[_NOTES] = [*_ss().get(_NOTES, []), note]


def take_notes() -> list[str]:
    return _ss().pop(_NOTES, [])


# -- chart clicks --------------------------------------------------------------------------------
def _picked(chart_key: str) -> tuple[tuple[int, int] | None, bool]:
    """The (row, col) a selectable chart holds (or None), and whether it changed since the last run took it."""
    ss = _ss()
    points = ((ss.get(chart_key) or {}).get("selection") or {}).get("cell") or []
    picked = (int(points[0]["r"]), int(points[0]["c"])) if points else None
    return picked, picked is not None and picked != ss.get(f"_seen_{chart_key}")


def new_click(chart_key: str) -> tuple[int, int] | None:
    """The (row, col) a selectable chart holds if it changed since the last run, else None."""
    picked, fresh = _picked(chart_key)
    _ss()[f"_seen_{chart_key}"] = picked
    return picked if fresh else None


def frame_pending() -> bool:
    """A move the frame must handle in a whole run (a click on a model map, the layer × head selector changed,
    "Open this head" pressed, a lesson's or the room's view to show), looked at without taking it: a
    fragment's own rerun then reruns the app."""
    ss = _ss()
    return bool(ss.get(_OPEN_HEAD)) or _GOTO in ss or _typed(OPEN_HEAD)


def ask_open_head() -> None:
    _ss()[_OPEN_HEAD] = True


def open_map(index: int) -> None:
    """A click on the model view's map `index` (layer × heads + head): the layer × head selector set to it, as if
    chosen there, and that head opened (a callback: the run it starts reads both)."""
    _ss()[OPEN_HEAD] = int(index)
    ask_open_head()


def ask_goto(c: Controls, path: str) -> None:
    """Show these controls on the page at `path` from the next run's start (the frame switches page if
    need be, before any widget is drawn): a lesson's Back and Next, the room's view a student follows."""
    _ss()[_GOTO] = (c, path)


def take_goto() -> tuple[Controls, str] | None:
    return _ss().pop(_GOTO, None)


def take_open_head() -> bool:
    """True once after a model-view click: the frame then switches to the per-head page."""
    return bool(_ss().pop(_OPEN_HEAD, False))


def screen() -> tuple[int, bool] | None:
    """What the browser measured (main column px, whether columns stack), or None before it has."""
    value = (_ss().get(SCREEN) or {}).get("screen")
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], int):
        return value[0], bool(value[1])
    return None


def screen_guess(guess: Callable[[], tuple[int, bool] | None]) -> tuple[int, bool] | None:
    """guess() on the session's first run that needs it (it reads the request's cookie and User-Agent, ~0.5 ms),
    then the same answer: a browser's request does not change within its session."""
    ss = _ss()
    if _SCREEN_GUESS not in ss:
        ss[_SCREEN_GUESS] = guess()
    return ss[_SCREEN_GUESS]


def remember_view(view) -> None:
    """Keep the View of this session's latest run, full or a fragment's own, for a part drawn outside the page's
    fragments (the poll's button asks about the cell the student picked since the last full run)."""
    _ss()[_VIEW] = view


def latest_view(default):
    """The View of this session's latest run, else default."""
    return _ss().get(_VIEW, default)
