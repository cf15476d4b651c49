"""The app's pages, in navigation order: one list that the frame, the tests and the benchmarks read.

Each page's file is named after its URL path (pages/<path>.py) and calls its folder, ui/sections/<path>/ (a
new page: that folder, that file and its line below). A freshly started server runs its
very first session through Streamlit's legacy pages/ handling, which finds a page by its file name;
with the names equal, a deep link finds its page on that run too (the page then draws the frame
itself: ui.shell.frame.view).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    path: str  # URL path, and the file pages/<path>.py
    title: str  # navigation title (the concept pages' heading too)
    icon: str
    concept: bool = False  # one stage of the block (Q/K/V to the output): its heading is its title
    sentence: bool = True  # draws the sidebar's tokens (the Learn page draws its task's own sequence)
    trains: bool = False  # draws its own training live (the frame trains nothing before it; its sidebar
    # shows the training controls, not the article sizes)
    charts: int = 1  # charts drawn at the default controls (the browser tests wait for them)
    picks: tuple[str, ...] = ()  # keys of its charts where a click picks a cell

    @property
    def file(self) -> str:
        return f"pages/{self.path}.py"


PAGES: tuple[Page, ...] = (
    Page("inputs", "Inputs X", ":material/input:", concept=True),
    Page("qkv", "Q, K, V projections", ":material/call_split:", concept=True, charts=4),
    Page("scores", "Scaled scores", ":material/calculate:", concept=True, charts=2, picks=("scores_maps",)),
    Page("softmax", "Softmax weights", ":material/percent:", concept=True, charts=2, picks=("softmax_map",)),
    Page("heads", "Per-head maps", ":material/view_column:", concept=True, charts=4),
    Page("output", "Block output", ":material/output:", concept=True, charts=3),
    Page("model", "Model view: every head", ":material/grid_view:", charts=0),  # its maps: a component
    Page("exercise", "Exercise: one more token", ":material/add_box:"),  # true at every length
    Page("experiments", "Experiments: why?", ":material/science:"),
    Page("learn", "Learn: train a head", ":material/school:", sentence=False, trains=True),
)
CONCEPT_PAGES = tuple(p for p in PAGES if p.concept)


def by_path(path: str) -> Page:
    """The page at a URL path ("" is the default page, the first)."""
    return next((p for p in PAGES if p.path == path), PAGES[0])


def file(path: str) -> str:
    """The file of the page at a URL path (a path no page has is an error, not the default page)."""
    return next(p.file for p in PAGES if p.path == path)
