"""What a feature drawn around every page gives the frame (the class poll, the trainer, the lessons):
the frame calls these hooks, in the order the features are listed (once, in ui/app.py), and knows
nothing else of them. A part that moves the view (a lesson's Next, the room's view a student follows)
asks for it with ui.shell.session.ask_goto; the frame shows it from the next run's start. Pure Python."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from services.handle import Handle
    from ui.shell.view import View


@dataclass(frozen=True)
class Part:
    name: str
    read: Callable[[dict[str, str]], list[str]] | None = None  # a session's first run: the URL → notes for the page
    url: Callable[[], dict[str, str]] | None = None  # what it keeps in this browser's own URL
    share: Callable[[], dict[str, str]] | None = None  # what a link for another browser carries (no secret)
    draw: Callable[[View, str], None] | None = None  # above the page: the View, and this view's link for
    # the hall (the sidebar's settings, no presenter view)
    steps: Callable[[], bool] | None = None  # True while it steps through a list of its own (a
    # lesson): PageUp/PageDown are its, not the pages'
    model: Callable[[View], Handle | None] | None = None  # after every part drew: the model the pages show
    # (the trainer part's: it trains a trained preset's first), set on the View once per run
    early: Callable[[], None] | None = None  # every whole run, before the page is chosen and
    # anything drawn: may ask_goto (a pushed room move)


def merged(parts: tuple[Part, ...], hook: str) -> dict[str, str]:
    """Every part's url() or share() parameters, in one dict."""
    out: dict[str, str] = {}
    for part in parts:
        given = getattr(part, hook)
        if given is not None:
            out |= given()
    return out
