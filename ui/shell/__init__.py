"""The frame around every page and its state: the page list, session keys, the controls and the
URL, the sidebar, the screen, presenter view, the presets."""
