"""The model view: every layer × every head at a glance, on one colour scale; click a map to open it."""

from ui import app
from ui.sections.model import page

page.draw(app.view())
