"""Page 4: every head's weights on one colour scale, then the concat and the output projection."""

from ui import app
from ui.sections.heads import page

page.draw(app.view())
