"""Exercise: append one token to the sentence; predict, then see how the old rows of attention change."""

from ui import app
from ui.sections.exercise import page

page.draw(app.view())
