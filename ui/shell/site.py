"""The app's pages, in navigation order: one list that the frame, the tests and the benchmarks read.

Each page's file is named after its URL path (pages/<path>.py). A freshly started server runs its
very first session through Streamlit's legacy pages/ handling, which finds a page by its file name;
with the names equal, a deep link finds its page on that run too (the page then draws the frame
itself: ui.shell.frame.view).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    path: str                  # URL path, and the file pages/<path>.py
    title: str                 # navigation title (the concept pages' heading too)
    icon: str
    sentence: bool = True      # draws the sidebar's tokens (the Learn page draws its task's own sequence)
    trains: bool = False       # trains its own model (its sidebar shows the training controls, not the sizes)

    @property
    def file(self) -> str:
        return f"pages/{self.path}.py"


PAGES: tuple[Page, ...] = (
    Page("inputs", "Inputs X", ":material/input:"),
    Page("qkv", "Q, K, V projections", ":material/call_split:"),
    Page("scores", "Scaled scores", ":material/calculate:"),
    Page("softmax", "Softmax weights", ":material/percent:"),
    Page("heads", "Per-head maps", ":material/view_column:"),
    Page("output", "Block output", ":material/output:"),
    Page("model", "Model view: every head", ":material/grid_view:"),
    Page("exercise", "Exercise: 5 → 6 tokens", ":material/add_box:"),
    Page("experiments", "Experiments: why?", ":material/science:"),
    Page("learn", "Learn: train a head", ":material/school:", sentence=False, trains=True),
)
CONCEPT_PAGES = PAGES[:6]      # one stage of the block each: Q/K/V to the output


def by_path(path: str) -> Page:
    """The page at a URL path ("" is the default page, the first)."""
    return next((p for p in PAGES if p.path == path), PAGES[0])
