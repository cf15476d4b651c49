"""The Per-head maps page's sentence view, for a model of text: the head the sidebar picks, read in the running text
(hover, tap or Tab to a word: the words it attends to are shaded by weight, in the browser)."""

from __future__ import annotations

import streamlit as st

from ui import compute
from ui.charts.attention_sentence import sentence_view
from ui.prose import stages
from ui.shell.view import View


def is_text(view: View) -> bool:
    """Whether the page's model learned text (the sentence view reads a text's words, not a task's letters)."""
    trained = view.model.trained
    return trained is not None and trained.task.held_out is not None


def draw(view: View) -> None:
    """The sentence view of head view.head at view.layer, for a model of text; nothing otherwise."""
    if not is_text(view):
        return
    t = compute.trace(view.model, view.words, view.layer)
    h = view.head
    st.subheader("The same head, in the text")
    st.markdown(
        f"Head {h}{stages.where(view.config, view.layer)}, read in the running text: hover, tap or Tab to a word "
        "and the earlier words it attends to are shaded by their weight, each with its share above it."
    )
    sentence_view(
        t.weights[h],
        t.labels,
        key=f"heads_sentence_{view.layer}_{h}",
        title=f"head {h}{stages.where(view.config, view.layer)}, in the text",
        mask=t.mask,
    )
