"""The View: everything a page needs for one run, read once by the frame and frozen. Pure Python."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import engine
from services.handle import Handle
from services.weights import Training
from ui.shell import site, state
from ui.shell.state import Controls


@dataclass(frozen=True)
class View:
    """What every page needs: the controls, the engine config they mean, the tokens and the notes."""

    controls: Controls
    config: engine.Config
    tokens: state.Tokens
    notes: tuple[str, ...]  # things the app changed or cut, to be said on the page
    page: site.Page
    width: int  # px of the main column the page draws in
    training: Training | None  # the trained weights the pages show, or None: the config's own draw
    stacked: bool = False  # st.columns stack, each at full width (a phone)
    model: Handle | None = None  # the model every page shows (services.handle), worked out once by the frame
    # after the trainer part: trained for a trained preset, the config's draw for an article's; None before
    # the trainer part ran, and on the Learn page, whose runs are its task's own, found or trained by its calls

    @property
    def words(self) -> tuple[str, ...]:
        return self.tokens.words

    @property
    def present(self) -> bool:
        return self.controls.present

    @property
    def head(self) -> int:
        return self.controls.head

    @property
    def layer(self) -> int:
        return self.controls.layer

    @property
    def cell(self) -> tuple[int, int] | None:
        return self.controls.cell


_here = threading.local()  # this script thread's View while a page runs (each session has its own)


def current() -> View | None:
    """The View of the page (or fragment) running in this thread, or None before the frame has drawn."""
    return getattr(_here, "view", None)


def set_current(view: View | None, full: bool = True) -> None:
    """The View of this thread's run: a full run's (full) or a fragment's own rerun's."""
    _here.view, _here.full = view, full and view is not None


def full_run() -> bool:
    """Whether the frame has drawn in this thread's current run (a full run; not a fragment's own rerun)."""
    return getattr(_here, "full", False)
