"""Page 5: the rest of the block: residual, feed-forward layer with ReLU, output."""

from ui import app
from ui.sections.output import page

page.draw(app.view())
