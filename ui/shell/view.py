"""The View: everything a page needs for one run, read once by the frame and frozen. Pure Python."""
from __future__ import annotations

import threading
from dataclasses import dataclass

import engine
from services.weights import Training
from ui.shell import site, state
from ui.shell.state import Controls


@dataclass(frozen=True)
class View:
    """What every page needs: the controls, the engine config they mean, the tokens and the notes."""

    controls: Controls
    config: engine.Config
    tokens: state.Tokens
    notes: tuple[str, ...]          # things the app changed or cut, to be said on the page
    page: site.Page
    width: int                      # px of the main column the page draws in
    training: Training | None       # the trained weights the pages show, or None: the config's own draw
    stacked: bool = False           # st.columns stack, each at full width (a phone)

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


_here = threading.local()      # this script thread's View while a page runs (each session has its own)


def current() -> View | None:
    """The View of the page running in this thread (set by the frame before the page runs), or None."""
    return getattr(_here, "view", None)


def set_current(view: View | None) -> None:
    _here.view = view
