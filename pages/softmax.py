"""Page 3: the softmax turns each row of scaled scores into weights that sum to 1; β sharpens or flattens it."""

from ui import app
from ui.sections.softmax import page

page.draw(app.view())
