"""Trained presets on every page: train the sidebar's model first (unless its weights are shipped or
stored), once per server, with a progress bar; then hand the frame the model every page shows (one
Handle per run). With ui/sections/learn's explicit calls, the only place a training starts."""

from __future__ import annotations

import streamlit as st

import engine
from services.handle import Handle
from ui import compute
from ui.shell.parts import Part


def ensure(view) -> Handle:
    """Before a page draws: the model it shows, a trained preset's trained now if need be (progress shown),
    or waited for while another session trains it."""
    found = compute.handle(view.config, view.training)
    if view.training is None or found.is_trained:
        return found
    task = engine.TASKS[view.training.task]
    box = st.empty()
    bar = box.progress(0.0, text=f"Training the block on '{task.title}' …")

    def progress(step, steps, losses, accuracies, params) -> None:
        bar.progress(
            step / steps,
            text=f"Training the block on '{task.title}': step {step} of {steps}, "
            f"loss {losses[-1]:.3f}, accuracy {accuracies[-1]:.0%}",
        )

    trained = compute.train(view.config, view.training, on_progress=progress)
    box.empty()
    return compute.trained_handle(view.config, view.training, trained)


def _model(view) -> Handle | None:
    """The model the pages show; None on a page that trains its own (Learn draws its training live)."""
    return None if view.page.trains else ensure(view)


PART = Part("trainer", model=_model)
