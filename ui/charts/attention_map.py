"""The attention map as one Components v2 component (issue 49): T × T maps side by side on one colour scale,
drawn and clicked in the browser. Not yet wired into the pages (they still draw ui/charts/maps.py's Vega-Lite).

Python sends everything the browser shows as text: each cell's value (ui.prose.numbers' fmt: nothing nonzero
as 0, a masked score as '−∞'), its colour (an index into one palette of LEVELS colours along the scheme of
ui.charts.colours, the same scale the raster maps paint), black or white ink per colour (4.5:1), the legend's
ticks and each picked cell's worked calculation (line templates filled from per-row, per-column and per-cell
texts: attention_map.js assembles them and computes no number). Token labels go as plain strings; the script
writes them with textContent, never as HTML.

A pick (a click, a tap, arrows then Enter or Space: the ARIA grid pattern with a roving tab index) shows its
worked calculation in an aria-live region below the maps with no server run; report_pick=True also sends one
trigger per pick (`result.pick`, {'map', 'row', 'col'}) for a server part that needs it.

Payload (the data the page sends per run, compact JSON; tests/test_attention_map.py measures it): a scores map
and a weights map sharing one worked calculation (d_head 8; a calculation shared by several maps is sent once):
about 33 KB at T = 16 (products included) and about 155 KB at T = 64 (products left out); without the worked
calculation about 9 KB and 74 KB. Per cell: its colour (1 byte, base64), its value as text ('|'-joined), and
for the calculation its dot product, scaled score and share; per row and column the q and k entries. The
per-dimension products go only up to PRODUCTS_MAX of them per map (T = 32 at d_head 8); beyond, the panel
writes each q × k pair and their sum. Each mount's element also carries the script and style text (about
21 KB; Components v2 sends them with every inline component's element).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import streamlit as st

from ui.charts import colours as co
from ui.charts import describe
from ui.charts.map_template import CANVAS_CELLS, MAX_LABELLED
from ui.prose.numbers import fmt

NAME = "attention_lab_attention_map"  # unique in the app
LEVELS = 255  # colours along a scale; index 255 is a masked cell
MASKED = 255
PRODUCTS_MAX = 8192  # per-dimension products sent per map (T² · d_head)
_HERE = Path(__file__).resolve().parent
# One module: the helpers' top-level functions (figure export and zoom, the sentence view), then the map's script.
SCRIPTS = ("attention_map_export.js", "attention_map_sentence.js", "attention_map.js")
_HTML = '<div class="amap"></div>'
_component = st.components.v2.component(
    NAME,
    html=_HTML,
    css=(_HERE / "attention_map.css").read_text(encoding="utf-8"),
    js="\n".join((_HERE / name).read_text(encoding="utf-8") for name in SCRIPTS),
)


@dataclass
class Panel:
    """One map of a comparison: its T × T numbers, its title, which cells are shown (mask True) and its
    worked calculation (worked(...)'s dict, or None for 'row → column: value')."""

    values: np.ndarray
    title: str = ""
    mask: np.ndarray | None = None
    work: dict | None = None


def number(x: float) -> str:
    """A value as the tooltip and the worked calculation print it: describe.number (3 significant digits,
    '−∞', never 0 for a nonzero number), with a true minus sign."""
    return describe.number(x).replace("-", "\u2212")


def factor(x: float) -> str:
    """A factor of a written product: number(x), in parentheses when negative ('(−0.98)')."""
    text = number(x)
    return f"({text})" if text.startswith("\u2212") else text


def cell_text(x: float, spec: str = ".2f") -> str:
    """A value printed inside a small map's cell, as ui.charts.map_template.cell_label prints it: `spec`, except
    that a nonzero value too small for it reads '<0.01' (or '>−0.01'), never 0.00; −∞ reads '−∞'."""
    x = float(x)
    if math.isinf(x) or math.isnan(x):
        return fmt(x, spec)
    decimals = int(spec[1:-1]) if spec[:1] == "." and spec[-1:] == "f" and spec[1:-1].isdigit() else None
    if decimals is not None and x != 0 and abs(x) < 0.5 * 10.0**-decimals:
        unit = f"{10.0**-decimals:.{decimals}f}"
        return f"<{unit}" if x > 0 else f">\u2212{unit}"
    return fmt(x, spec).replace("-", "\u2212")


def palette(scheme: str) -> tuple[list[str], str]:
    """The scheme's LEVELS colours, low to high, and for each '1' where white ink reads better than black."""
    colours = [co.colour_at(scheme, i / (LEVELS - 1)) for i in range(LEVELS)]
    return colours, "".join("1" if co.text_colour(c) == co.CELL_TEXT_LIGHT else "0" for c in colours)


def colour_index(values: np.ndarray, shown: np.ndarray, scheme: str, domain: tuple[float, float]) -> np.ndarray:
    """Each cell's palette index (uint8): its place on the scale (the stops over ramp_domain, clamped),
    MASKED where hidden."""
    points = np.asarray(co.ramp_domain(scheme, domain))
    where = np.linspace(0.0, 1.0, len(points))
    safe = np.where(shown, values, points[0])
    t = np.interp(np.clip(safe, points[0], points[-1]), points, where)
    index = np.rint(t * (LEVELS - 1)).astype(np.uint8)
    index[~shown] = MASKED
    return index


def _legend(scheme: str, domain: tuple[float, float]) -> dict:
    stops = co.ramp_domain(scheme, domain)
    low, high = stops[0], stops[-1]
    colours = co.scheme_colours(scheme)
    span = (high - low) or 1.0
    at = [round(100 * (p - low) / span, 2) for p in stops]
    ticks = [[0.0, number(low)], [100.0, number(high)]]
    if scheme == co.SIGNED and low < 0 < high:
        ticks.insert(1, [round(100 * (0 - low) / span, 2), "0"])
    title = "score" if scheme == co.SIGNED else f"weight ({co.weight_legend(domain)})"
    return {"title": title, "stops": [[p, c] for p, c in zip(at, colours)], "ticks": ticks}


def worked(
    q: np.ndarray,
    k: np.ndarray,
    weights: np.ndarray,
    mask: np.ndarray | None = None,
    *,
    why: str = "the key comes after the query",
    products_max: int = PRODUCTS_MAX,
) -> dict:
    """The worked calculation of every cell of a T × T map, compact: q's entries per row, k's per column
    (texts, '|'-joined), each cell's products (';'-joined, only up to products_max of them), its dot product,
    its score ÷ √d and its softmax share, and the line templates the script fills in for a pick."""
    q, k, weights = (np.asarray(a, dtype=np.float64) for a in (q, k, weights))
    T, d = q.shape
    dots = q @ k.T
    root = math.sqrt(d)
    scaled = dots / root
    shown = np.ones(dots.shape, bool) if mask is None else np.asarray(mask, bool)
    flat = lambda a: "|".join(number(x) for x in a.ravel())  # noqa: E731
    cell = {
        "dot": flat(dots),
        "scaled": "|".join(number(x) if s else "−∞" for x, s in zip(scaled.ravel(), shown.ravel())),
        "share": "|".join(fmt(w, ".1%") if s else "0" for w, s in zip(weights.ravel(), shown.ravel())),
    }
    lines = ["query {row} → key {col}", "q·k = {pairs}"]
    if q.shape[0] * k.shape[0] * d <= products_max:
        products = q[:, None, :] * k[None, :, :]  # (T, T, d)
        cell["products"] = "|".join(";".join(factor(x) for x in row) for row in products.reshape(-1, d))
        lines.append("= {product_terms}")
    lines += ["= {dot}", "÷ √{d} = ÷ {sqrt_d} → {scaled}", "softmax share of row {row}: {share}"]
    return {
        "lines": lines,
        "masked": ["query {row} → key {col}", f"masked: {why}; its score is −∞, its softmax share 0"],
        "row": {"q": ["|".join(factor(x) for x in r) for r in q]},
        "col": {"k": ["|".join(factor(x) for x in r) for r in k]},
        "pairs": {"pairs": ["q", "k", "×", " + "]},
        "terms": {"product_terms": ["products", " + "]},
        "cell": cell,
        "scalar": {"d": str(d), "sqrt_d": number(root)},
        "join": ", ",
    }


def payload(
    maps: Sequence[Panel | np.ndarray],
    rows: Sequence[str],
    cols: Sequence[str] | None = None,
    *,
    signed: bool = True,
    domain: tuple[float, float] | None = None,
    x_title: str = "key",
    y_title: str = "query",
    spec: str = ".2f",
    highlight: int | None = None,
    pick: tuple[int, int, int] | None = None,
    present: bool = False,
    report_pick: bool = False,
    mask_word: str = "masked",
    why: str = "the key comes after the query",
    mask_text: str = "−∞",
) -> dict:
    """The component's data: what attention_map sends (see the module's docstring for its size)."""
    panels = [m if isinstance(m, Panel) else Panel(np.asarray(m)) for m in maps]
    if not panels:
        raise ValueError("an attention map needs at least one map")
    rows = [str(r) for r in rows]
    cols = rows if cols is None else [str(c) for c in cols]
    R, C = len(rows), len(cols)
    values = [np.asarray(p.values, dtype=np.float64) for p in panels]
    for v in values:
        if v.shape != (R, C):
            raise ValueError(f"map {v.shape} does not match {R} row and {C} column labels")
    shown = [np.isfinite(v) & (True if p.mask is None else np.asarray(p.mask, bool)) for v, p in zip(values, panels)]
    scheme = co.SIGNED if signed else co.WEIGHTS
    if domain is None:
        finite = [np.where(s, v, 0.0) for v, s in zip(values, shown)]
        domain = co.symmetric_domain(*finite) if signed else co.weight_domain(*finite)
    domain = (float(domain[0]), float(domain[1]))
    colours, ink = palette(scheme)
    labelled = R <= MAX_LABELLED and C <= MAX_LABELLED
    out, works = [], []  # a worked calculation shared by several maps (scores and weights) is sent once
    for p, v, s in zip(panels, values, shown):
        tips = [number(x) if ok else mask_text for x, ok in zip(v.ravel(), s.ravel())]
        item = {
            "title": p.title,
            "about": describe.matrix(v, rows, cols, p.title, y_title, x_title, s),
            "colour": base64.b64encode(colour_index(v, s, scheme, domain).tobytes()).decode("ascii"),
            "tips": "|".join(tips),
            "cells": "|".join(cell_text(x, spec) if ok else mask_text for x, ok in zip(v.ravel(), s.ravel()))
            if labelled
            else None,
        }
        if p.work is not None:
            same = [i for i, w in enumerate(works) if w is p.work]
            item["work"] = same[0] if same else len(works)
            if not same:
                works.append(p.work)
        out.append(item)
    any_hidden = any(not s.all() for s in shown)
    return {
        "rows": rows,
        "cols": cols,
        "xTitle": x_title,
        "yTitle": y_title,
        "axes": f"rows: {y_title} · columns: {x_title}",
        "maps": out,
        "works": works,
        "palette": colours,
        "ink": ink,
        "legend": _legend(scheme, domain),
        "mask": {"fill": co.MASK_FILL, "ink": co.MASK_TEXT, "word": mask_word, "why": why, "shown": any_hidden},
        "highlight": None if highlight is None else int(highlight),
        "highlightColour": co.HIGHLIGHT_STROKE,
        "pick": None if pick is None else [int(x) for x in pick],
        "present": bool(present),
        "raster": R * C >= CANVAS_CELLS,
        "report": bool(report_pick),
        "hint": "Click or tap a cell, or Tab to the map, move with the arrow keys and press Enter or Space: "
        "its calculation appears below.",
    }


def attention_map(
    maps: Sequence[Panel | np.ndarray],
    *,
    key: str,
    rows: Sequence[str],
    cols: Sequence[str] | None = None,
    signed: bool = True,
    domain: tuple[float, float] | None = None,
    x_title: str = "key",
    y_title: str = "query",
    spec: str = ".2f",
    highlight: int | None = None,
    pick: tuple[int, int, int] | None = None,
    present: bool = False,
    report_pick: bool = False,
    mask_word: str = "masked",
    why: str = "the key comes after the query",
    mask_text: str = "−∞",
    on_pick=None,
):
    """Draw `maps` (Panels or bare T × T arrays) side by side on one colour scale (diverging around 0 when
    `signed`, else the weights' sequential one) with `rows`/`cols` as token labels; a pick is answered in the
    browser. `key` keeps the picked cell across runs; `pick` = (map, row, col) picks from the server.
    With report_pick=True each pick also reruns the script once (the result's `pick`; on_pick is its callback)."""
    data = payload(
        maps,
        rows,
        cols,
        signed=signed,
        domain=domain,
        x_title=x_title,
        y_title=y_title,
        spec=spec,
        highlight=highlight,
        pick=pick,
        present=present,
        report_pick=report_pick,
        mask_word=mask_word,
        why=why,
        mask_text=mask_text,
    )
    if report_pick:
        return _component(key=key, data=data, on_pick_change=on_pick or _ignore)
    return _component(key=key, data=data)


def mount(key: str, data: dict):
    """Mount the component with data made elsewhere (ui/charts/attention_sentence.py's sentence view)."""
    return _component(key=key, data=data)


def _ignore() -> None:
    """A reported pick is read from the component's result; nothing to do when it arrives."""
