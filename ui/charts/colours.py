"""Every colour the app draws with, and the colour scales of its heatmaps.

Two colour-blind-safe schemes: blue–orange around 0 for signed values, viridis for weights (both
readable in light and dark themes). A heatmap's colour scale is the scheme's stops over a piecewise
domain, interpolated linearly in RGB; Vega (vector maps) and NumPy (raster maps, ui.charts.raster)
interpolate the same stops the same way, so both kinds of map share one scale.
"""

from __future__ import annotations

import threading
from functools import cache

import numpy as np

SIGNED = "blueorange"
WEIGHTS = "viridis"

MASK_FILL = "#9ca3af"  # a masked cell (a hidden key, a ReLU zero)
MASK_TEXT = "#111827"  # the word printed on a masked cell
# A cell's value, on light and on dark fills. Pure black and white: one of the two has at least 4.58:1
# contrast with any colour (WCAG AA asks 4.5:1); a softer black (#111) falls to 4.3:1 on mid-grey fills.
CELL_TEXT_DARK, CELL_TEXT_LIGHT = "#000000", "#ffffff"
HAIRLINE = "#ffffff22"  # between cells
PICK_STROKE = "#e11d48"  # the clicked cell
EXPECTED_STROKE = "#111827"  # dashed: the cells a task's solution attends to
HIGHLIGHT_STROKE = "#d946ef"  # a whole row and column, e.g. a newly appended token
VALUE_TEXT = "#6b7280"  # values printed outside marks: legible on light and dark backgrounds
BAR_TOP, BAR_REST = "#e66101", "#5e3c99"  # the highlighted bar and the others (colour-blind-safe pair)
ORANGE, BLUE, GREY = "#e8710a", "#3b9ae1", "#8b95a1"  # line series: visible on light and dark backgrounds
RULE = "#9ca3af"  # a dotted marker line
DROP_RULE = "#a855f7"  # the step where the training loss dropped fastest
SERIES = ("#e69f00", "#56b4e9", "#009e73", "#d55e00", "#cc79a7", "#0072b2", "#8b95a1", "#f0e442")  # Okabe-Ito

# The colour stops of Vega's own two schemes (vega-scale's data).
_SCHEME_STOPS = {
    SIGNED: "134b852f78b35da2cb9dcae1d2e5eff2f0ebfce0bafbbf74e8932fc5690d994a07",
    WEIGHTS: "440154470e61481a6c482575472f7d443a834144873d4e8a39568c35608d31688e2d708e2a788e27818e23888e21918d1f"
    "988b1fa08822a8842ab07f35b77943bf7154c56866cc5d7ad1518fd744a5db36bcdf27d2e21be9e51afde725",
}


@cache
def scheme_colours(scheme: str) -> tuple[str, ...]:
    """The scheme's stops as '#rrggbb', low to high."""
    hexes = _SCHEME_STOPS[scheme]
    return tuple("#" + hexes[i : i + 6] for i in range(0, len(hexes), 6))


def rgb(colour: str) -> tuple[int, int, int]:
    """'#rrggbb' -> (r, g, b)."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def ramp_domain(scheme: str, domain: tuple[float, float]) -> list[float]:
    """Where each stop sits: evenly from low to high; a diverging scheme has its middle stop at 0."""
    low, high = float(domain[0]), float(domain[1])
    n = len(scheme_colours(scheme))
    if scheme == SIGNED and low < 0.0 < high:
        half = (n - 1) // 2
        return [*np.linspace(low, 0.0, half + 1).tolist(), *np.linspace(0.0, high, n - half)[1:].tolist()]
    return np.linspace(low, high, n).tolist()


def luminance(colour: str) -> float:
    """WCAG's relative luminance of '#rrggbb' (0 black, 1 white)."""
    c = np.array(rgb(colour)) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)  # undo the sRGB curve
    return float(linear @ [0.2126, 0.7152, 0.0722])


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two colours, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_colour(fill: str) -> str:
    """Black or white, whichever stands out more on `fill`."""
    return CELL_TEXT_LIGHT if contrast(fill, CELL_TEXT_LIGHT) > contrast(fill, CELL_TEXT_DARK) else CELL_TEXT_DARK


def colour_at(scheme: str, position: float) -> str:
    """The scheme's colour `position` of the way along its stops (0 first, 1 last), linear in RGB as Vega
    interpolates it."""
    stops = np.array([rgb(c) for c in scheme_colours(scheme)], dtype=np.float64)  # (n, 3)
    x = np.clip(position, 0.0, 1.0) * (len(stops) - 1)
    i = min(int(x), len(stops) - 2)
    r, g, b = np.round(stops[i] + (x - i) * (stops[i + 1] - stops[i])).astype(int)
    return f"#{r:02x}{g:02x}{b:02x}"


LIGHT_TEXT_SAMPLES = 1024  # points along a scheme where the text colour is chosen


@cache
def light_text_spans(scheme: str) -> tuple[tuple[float, float], ...]:
    """Where along the scheme (0..1) white text reads better than black: (start, end) spans."""
    at = np.linspace(0.0, 1.0, LIGHT_TEXT_SAMPLES)
    light = [text_colour(colour_at(scheme, p)) == CELL_TEXT_LIGHT for p in at]
    spans, start = [], None
    for p, on in zip([*at, 2.0], [*light, False]):
        if on and start is None:
            start = p
        elif not on and start is not None:
            spans.append((start, p if p <= 1.0 else 1.0))
            start = None
    return tuple(spans)


def light_text_test(scheme: str, domain: tuple[float, float]) -> str:
    """A Vega test, true for the values whose cells get white text: the scheme's light-text spans
    placed on this map's colour scale (its ramp_domain; beyond the ends the end colours, clamped)."""
    stops = ramp_domain(scheme, domain)
    where = np.linspace(0.0, 1.0, len(stops))

    def value(p: float) -> float:
        return float(np.interp(p, where, stops))

    tests = []
    for start, end in light_text_spans(scheme):
        low = "" if start <= 0.0 else f"datum.value >= {value(start)!r}"
        high = "" if end >= 1.0 else f"datum.value < {value(end)!r}"
        tests.append(" && ".join(t for t in (low, high) if t) or "true")
    return " || ".join(f"({t})" for t in tests) or "false"


def symmetric_domain(*matrices: np.ndarray) -> tuple[float, float]:
    """One colour domain [-m, m] shared by every matrix of a comparison."""
    top = max(float(np.max(np.abs(np.nan_to_num(m, nan=0.0, posinf=0.0, neginf=0.0)))) for m in matrices)
    top = top if top > 0 else 1.0
    return (-top, top)


_run = threading.local()  # this script thread's colour setting (the sidebar's "stretch" control)
FIXED = (0.0, 1.0)  # weights are drawn on 0–1 unless stretched: a colour means the same weight everywhere


def stretch_weights(on: bool) -> None:
    """The frame sets, once a run, whether weight maps stretch their colours (the sidebar's control)."""
    _run.stretch = bool(on)


def stretched() -> bool:
    return getattr(_run, "stretch", False)


def weight_domain(*matrices: np.ndarray, stretch: bool | None = None) -> tuple[float, float]:
    """One colour domain shared by every weight map of a comparison: fixed [0, 1] by default, or stretched
    to [0, largest weight] (fine structure; the legend then says so)."""
    if not (stretched() if stretch is None else stretch):
        return FIXED
    top = max(float(np.max(np.nan_to_num(m, nan=0.0))) for m in matrices)
    return (0.0, top if top > 0 else 1.0)


def weight_legend(domain: tuple[float, float]) -> str:
    """The legend's title for a weight map: the fixed scale, or the stretched one named as such."""
    low, high = float(domain[0]), float(domain[1])
    if (low, high) == FIXED:
        return "fixed 0–1"
    return "stretched"  # to the largest weight on screen: the legend's labels give the range
