"""The app: the frame (ui/shell/frame.py) and the features drawn around every page, listed once. Pages
call view(); the entry script calls run(). A feature around the pages is a Part (ui/shell/parts.py):
adding one is its module and a line here."""

from __future__ import annotations

from ui import trainer
from ui.lessons import bar as lesson_bar
from ui.poll import panel as poll_panel
from ui.shell import frame
from ui.shell.view import View

PARTS = (lesson_bar.PART, poll_panel.PART, trainer.PART)  # in this order above every page: a lesson's bar, the
# class poll, then a trained model's training


def run() -> None:
    """The entry script's whole job: the frame with its parts, then the page the URL names."""
    frame.run(PARTS)


def view() -> View:
    """The View of this run; every page calls this first (see frame.view)."""
    return frame.view(PARTS)
