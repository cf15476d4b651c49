"""The Experiments page's four sections, one module each (numbered as engine.experiments numbers them)."""
