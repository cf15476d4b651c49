"""Sections of particular pages: the worked cell and entry, the exercise, the Learn page, the model
view's numbers."""
