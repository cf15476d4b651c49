"""Trained presets on every page: train the sidebar's model first (unless its weights are shipped or
stored), once per server, with a progress bar."""

from __future__ import annotations

import streamlit as st

import engine
from ui import compute
from ui.shell.parts import Part


def ensure(view) -> None:
    """Before a page draws a trained preset: train it (progress shown), or wait for whoever is."""
    if view.training is None or compute.ready(view.config, view.training):
        return
    task = engine.TASKS[view.training.task]
    box = st.empty()
    bar = box.progress(0.0, text=f"Training the block on '{task.title}' …")

    def progress(step, steps, losses, accuracies, params) -> None:
        bar.progress(
            step / steps,
            text=f"Training the block on '{task.title}': step {step} of {steps}, "
            f"loss {losses[-1]:.3f}, accuracy {accuracies[-1]:.0%}",
        )

    compute.train(view.config, view.training, on_progress=progress)
    box.empty()


def _draw(view, join_url: str) -> None:
    if not view.page.trains:  # a page that trains draws its own training live
        ensure(view)


PART = Part("trainer", draw=_draw)
