"""Page 0: the sentence, its tokens and the vectors the block starts from."""

from ui import app
from ui.sections.inputs import page

page.draw(app.view())
