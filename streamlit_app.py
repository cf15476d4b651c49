"""Attention Lab: the frame. Page config, the shared sidebar and navigation (ui/shell/frame.py) with the
features around every page (ui/app.py), then the page the URL names; every page lives in pages/."""

from ui import app

app.run()
