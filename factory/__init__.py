"""Attention Lab's model factory, built on the engine (which never imports it): the runs that ship with the app
(ship, shipped_runs) and their measures (shipped_measures), the disk store of finished runs (store) and of
measures (evidence_files), the corpus builder (corpus) and the text preset's shipped passage (shown)."""
