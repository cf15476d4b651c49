"""Attention Lab: the frame. Page config, the shared sidebar and navigation (ui/shell/frame.py), then the
page the URL names; every page lives in pages/."""
from ui.shell import frame

frame.run()
