"""The frame around every page: read the run's inputs once, configure the page, navigate, draw the
sidebar, write the URL; then the page runs with one frozen View.

One slider move: inputs.read (URL once, widgets, chart clicks → settled Controls) → View → the URL
→ the page reads frame.view() and draws. Nothing flows back: pages never write the controls.
"""

from __future__ import annotations

import copy
import functools
import importlib
import threading
from dataclasses import replace

import streamlit as st

from ui import streamlit_internals as internals
from ui.charts import colours as charts_colours
from ui.shell import inputs, presenter, screen, session, sidebar, site, state, url
from ui.shell.parts import Part, merged
from ui.shell.state import Controls
from ui.shell.view import View, current, full_run, set_current

MAIN_PX = 790  # the main column at 1280 px with the sidebar open (the narrowest laptop laid out for)
MAIN_PX_PRESENT = 1100  # presenter view: the sidebar starts collapsed
# A Markdown table (ui.page.tables.table) wider than its column (a phone) scrolls sideways in its own box, as
# an st.table does, instead of widening the page; its type and padding are an st.table's, so a table
# looks the same at 12 rows (Markdown) and at 13 (st.table). A long header may break inside a word rather than
# push a desktop table past its column (the model view's knock-out table of the text model: 810 px in 791), where
# its box would scroll with no keyboard stop. Static CSS: no user text reaches st.html.
TABLE_CSS = (
    "<style>[data-testid='stMarkdownContainer'] table "
    "{ display: block; max-width: 100%; overflow-x: auto; font-size: 0.875em; }"
    "[data-testid='stMarkdownContainer'] table :is(th, td) { padding: 0.25rem 0.5rem; }"
    "[data-testid='stMarkdownContainer'] table th { overflow-wrap: anywhere; }</style>"
)

# Accessibility, static CSS as well. A focus ring on every control, in light and dark themes and in presenter
# view: a dark outline around a white one, so one of them stands out on any background (Streamlit's own
# rings are faint or missing on some widgets). Formulas wrap at their = and + and between equations
# (KaTeX's break points; ui.page.layout.latex) instead of scrolling sideways in a box a keyboard cannot reach.
# With reduced motion asked for, no transitions or spinners, and the Learn page's live maps and curves stay
# hidden while training runs.
FOCUS = (
    ":is(button, a, summary, input, textarea, [role='slider'], [role='tab'], [role='radio'], [role='checkbox'], "
    "[role='switch'], [role='option'], [tabindex]:not([tabindex='-1'])):focus-visible, "
    ":is([data-baseweb='select'], [data-baseweb='input'], [data-baseweb='textarea'], [data-baseweb='checkbox'])"
    ":has(input:focus-visible, textarea:focus-visible), "
    "div:has(> div > input[type='range']:focus-visible), "  # a slider's thumb (its input is a 1 px box)
    "[role='group']:has(> input:focus-visible), label:has(input[type='checkbox']:focus-visible)"
)  # select, toggle
A11Y_CSS = (
    "<style>" + FOCUS + " { outline: 3px solid #111827 !important; outline-offset: 2px !important;"
    " box-shadow: 0 0 0 2px #ffffff !important; }"
    ".katex-display { overflow: visible !important; }"
    ".katex-display > .katex, .katex-display > .katex > .katex-html { white-space: normal; }"
    ".katex-display > .katex > .katex-html { text-wrap: balance; }"  # even lines: a break between
    # equations, not a '+ b₂' alone below
    ".st-key-learn_still { display: none; }"
    "@media (prefers-reduced-motion: reduce) {"
    " *, *::before, *::after { animation-duration: 0s !important; animation-iteration-count: 1 !important;"
    " transition-duration: 0s !important; scroll-behavior: auto !important; }"
    " .st-key-learn_live { display: none !important; } .st-key-learn_still { display: flex; } }</style>"
)


@functools.cache
def _built_pages() -> tuple:
    return tuple(
        st.Page(p.file, title=p.title, icon=p.icon, url_path=p.path, default=i == 0) for i, p in enumerate(site.PAGES)
    )


def _navigation_pages() -> list:
    """This run's st.Page objects: built once per server (each resolves its file on disk, ~0.4 ms a
    page), copied per run because st.navigation marks the one it returns as callable once."""
    return [copy.copy(page) for page in _built_pages()]


def sidebar_state(controls: Controls) -> str:
    """Collapsed in presenter view; open where the link asks for it (?sidebar=1); else Streamlit's
    "auto": open on a wide screen, collapsed on a narrow one, where the page comes first."""
    return "collapsed" if controls.present else "expanded" if controls.sidebar else "auto"


def start(parts: tuple[Part, ...]):
    """Draw the frame and the parts around the page, and return the page to run (its View is then what
    view() gives)."""
    controls, notes, first = inputs.read()
    for part in parts if first is not None else ():
        notes += part.read(first) if part.read else []
    cap = MAIN_PX_PRESENT if controls.present else MAIN_PX
    width, stacked = inputs.screen(cap)
    st.set_page_config(
        page_title="Attention Lab",
        page_icon="assets/icon.png",  # a local file: no icon CDN
        layout="wide",
        initial_sidebar_state=sidebar_state(controls),
    )
    st.html(TABLE_CSS + A11Y_CSS)
    pages = _navigation_pages()
    current = st.navigation(pages)
    for part in parts:
        if part.early:
            part.early()
    goto = session.take_goto()  # a lesson's step, the room's view: before any widget is drawn
    if goto is not None:
        controls = replace(goto[0], present=controls.present, sidebar=controls.sidebar)  # the viewer's own
        session.write_controls(controls)
        session.remember_controls(controls)
        if goto[1] != site.by_path(current.url_path).path:
            for note in notes:  # said on the page switched to
                session.leave_note(note)
            st.switch_page(next(p for p in pages if site.by_path(p.url_path).path == goto[1]))
    if session.take_open_head():  # a click on the model view: open that head's page
        session.write_controls(controls)
        session.remember_controls(controls)
        st.switch_page(next(p for p in pages if p.url_path == "heads"))
    params = url.to_params(controls)
    theirs = merged(parts, "share")  # what a link for someone else carries of the parts
    wanted = params | merged(parts, "url")
    if wanted != st.query_params.to_dict():
        st.query_params.from_dict(wanted)  # written once, after every input was read
    shared = url.share_link(st.context.url or "", params | theirs)  # never a part's secret
    page = site.by_path(current.url_path)
    sidebar.draw(controls, shared, trains=page.trains)
    screen.watch(cap, (width, stacked))
    session.remember_controls(controls)
    tokens = state.to_tokens(controls)
    charts_colours.stretch_weights(controls.stretch)
    said = [tokens.note] if tokens.note and page.sentence else []  # what was done to the sidebar's tokens
    here = View(
        controls=controls,
        config=state.to_config(controls),
        tokens=tokens,
        notes=tuple(notes + said),
        page=page,
        width=width,
        training=state.to_training(controls),
        stacked=stacked,
    )
    if controls.present:
        presenter.bar(pages, current, keys=not any(part.steps and part.steps() for part in parts))
    join = {k: v for k, v in params.items() if k != "present"} | theirs  # the hall: this view, no presenter view
    set_current(here)
    session.remember_view(here)
    for part in parts:
        if part.draw:
            part.draw(here, url.share_link(st.context.url or "", join))
    for part in parts:
        if part.model:  # the trainer part: the model every page shows, worked out once (None on Learn)
            here = replace(here, model=part.model(here))
            set_current(here)
            session.remember_view(here)
    return current


IMPORT_LATER_S = 2.0  # after a fresh server's first page: then import pandas in the background
_warmed = threading.Event()  # set once the import is on its way (once per server)


def _import_later() -> None:
    """Once per server, IMPORT_LATER_S after its first page: import pandas in the background. A first
    page needs none (its tables are Markdown, its chart's columns Arrow built from buffers), so a fresh
    server's first visitor does not wait 0.34 s for it; most other pages use it, and then find it
    imported. Not at once: the import holds the interpreter's lock for 0.34 s, and the server's event
    loop, which sends the first page's elements after the script has run, would wait for it (the page
    was drawn ~0.1 s later)."""
    if not _warmed.is_set():
        _warmed.set()
        later = threading.Timer(IMPORT_LATER_S, importlib.import_module, args=("pandas",))
        later.daemon = True
        later.start()


def run(parts: tuple[Part, ...]) -> None:
    """The entry script's whole job: the frame with its parts, then the page."""
    try:
        page = start(parts)  # a part may end the run here (st.stop: the eyes-up hold card; st.rerun)
        page.run()
    finally:
        set_current(None)
    _import_later()


def refreshed(here: View) -> View:
    """Inside a fragment's own rerun (a click on a map, β, a knock-out pick, a replay step): the View with the
    controls as the page's widgets now set them, read by the frame's own reader, and the URL written (a part's
    parameters, such as a poll room's, kept). What the fragment's widgets cannot change (the config, the
    tokens, the width) is the full run's. A click that asks for another page reruns the whole app. In the full
    run itself the frame has just read everything: the View is returned as it is."""
    if not internals.fragment_rerun():  # a full run: the frame read it all
        return here
    if session.frame_pending():  # opening a head is the whole run's: it switches page
        st.rerun(scope="app")  # (read nothing here: the whole run reads it once)
    controls, notes, _ = inputs.read()
    if controls == here.controls:
        set_current(here, full=False)  # the tables and the footer read it
        return here
    address(controls)
    here = replace(here, controls=controls, notes=tuple(notes))
    set_current(here, full=False)
    session.remember_view(here)
    return here


def address(controls: Controls) -> None:
    """The controls remembered and the URL written from them (a part's parameters, such as a poll room's, kept):
    after a fragment's widgets moved, or when a page shows another value than the link named (the Learn page's
    replay step, rounded to a saved step of its run), so the address names what is shown."""
    session.remember_controls(controls)
    own = url.to_params(controls)
    ours = {url.URL_KEY.get(key, key) for key in state.KEYS}  # every control's URL key (replay_step's: replay)
    kept = {k: v for k, v in st.query_params.to_dict().items() if k not in ours}  # the parts' own
    if own | kept != st.query_params.to_dict():
        st.query_params.from_dict(own | kept)


def fragment(draw):
    """A page's part that reruns alone on its own widgets (st.fragment), drawn with the View as those widgets now
    set it (refreshed): every fragment goes through here, so none runs without the frame's View."""

    @st.fragment
    @functools.wraps(draw)
    def run(here: View, *args, **kwargs):
        return draw(refreshed(here), *args, **kwargs)

    return run


def view(parts: tuple[Part, ...]) -> View:
    """The View of this run; every page calls this first.

    A freshly started server runs its first session through Streamlit's legacy pages/ handling, which
    starts a deep link's page file without the entry script. Then the frame is drawn here, first, as
    the entry script draws it: under the entry script's identity, so the sidebar's widgets are the
    same widgets on the next run, and the page's own widgets keep the page's identity (st.navigation
    switches the identity to the entry script's; the scope puts the page's back), so the student's
    first click is an ordinary rerun of the same page.
    """
    if not full_run():
        with internals.as_entry_script():
            start(parts)
    return current()
