"""Page 2: every query meets every key; the scores are divided by √d_head."""

from ui import app
from ui.sections.scores import page

page.draw(app.view())
