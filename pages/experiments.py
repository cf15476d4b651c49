"""Experiments: three design choices made visible (÷√d_head, positions, the causal mask), live numbers."""

from ui import app
from ui.sections.experiments import page

page.draw(app.view())
