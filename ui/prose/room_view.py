"""A class-poll room's words about the presenter's view: where the presenter is, and what following does.
Pure Python (labels are a lesson's own text: escape them where Markdown shows them)."""

from __future__ import annotations


def presenter_at(label: str, page_title: str) -> str:
    """Where the room's presenter is, for a student who does not follow."""
    return f"The presenter is on {label} ({page_title})." if label else f"The presenter is on {page_title}."


def follow_help() -> str:
    return (
        "On: each view the presenter shows (a lesson's step, or a view sent to the hall) opens here by itself, "
        "page and settings. Off: you explore on your own; a line says where the presenter is."
    )


def sent(page_title: str) -> str:
    return f"Sent to the hall: {page_title} with these settings. Students who follow see it within seconds."
