"""Learn: train the block in NumPy on a task whose answer is an attention pattern; watch a head learn it."""

from ui import app
from ui.sections.learn import page

page.draw(app.view())
