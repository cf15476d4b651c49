"""The attention map as one Components v2 component (issue 49): every heatmap of the pages (T × T maps on one colour
scale, T × d projections), drawn and clicked in the browser; ui.charts.maps.heatmap is its one-map call.

Python sends everything the browser shows as text: each cell's value (ui.prose.numbers' fmt: nothing nonzero as 0, a
masked score as '−∞'), its colour (an index into one palette of LEVELS colours of a ui.charts.colours scheme), black
or white ink per colour (4.5:1), the legend's ticks and each picked cell's worked calculation (line templates filled
from per-row, per-column and per-cell texts: attention_map.js assembles them and computes no number). Token labels go
as plain strings, written with textContent, never as HTML; the width budget (column px, cell area) sizes cells.

A pick (a click, a tap, arrows then Enter or Space: the ARIA grid pattern with a roving tab index) shows its
worked calculation in an aria-live region below the maps with no server run, and writes `cell=row,col` into the
page's URL (history.replaceState) so a share link carries it; report_pick=True also sends one trigger per pick
(`result.pick`, {'map', 'row', 'col'}) for a server part that needs it.

Payload (UTF-8 JSON bytes; tests/test_attention_map.py measures it): scores and weights maps sharing one worked
calculation (d_head 8): ~33 KB at T = 16, ~155 KB at T = 64 (products, at most PRODUCTS_MAX a map, left out);
without it ~9 KB and 74 KB. Each element also carries the script and style text (~22 KB, Components v2's way).
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import streamlit as st

from ui.charts import colours as co
from ui.charts import describe, memo
from ui.charts.map_texts import cell_text, factors, number, numbers
from ui.prose.numbers import fmt

NAME = "attention_lab_attention_map"  # unique in the app
LEVELS = 255  # colours along a scale; index 255 is a masked cell
MASKED = 255
PRODUCTS_MAX = 8192  # per-dimension products sent per map (T² · d_head)
MAX_LABELLED = 12  # print values inside cells up to this many rows and columns
PICK_HINT = "Click or tap a cell, or Tab to the map, move with the arrow keys and press Enter or Space: its "
CANVAS_CELLS = 1024  # from this many cells a map is painted on a canvas (one focusable cell, no per-cell ARIA)
_HERE = Path(__file__).resolve().parent
# One module: the helpers' top-level functions (export and zoom, sentence view, grid and frames), then the map's.
SCRIPTS = ("attention_map_export.js", "attention_map_sentence.js", "attention_map_frames.js", "attention_map.js")
_component = st.components.v2.component(
    NAME,
    html='<div class="amap"></div>',
    css=(_HERE / "attention_map.css").read_text(encoding="utf-8"),
    js="\n".join((_HERE / name).read_text(encoding="utf-8") for name in SCRIPTS),
)


@dataclass
class Panel:
    """One map of a comparison: its T × T numbers, its title, which cells are shown (mask True) and its
    worked calculation (worked(...)'s dict, or None for 'row → column: value'); expected (bools) dashes the cells
    a task's solution attends to."""

    values: np.ndarray
    title: str = ""
    mask: np.ndarray | None = None
    work: dict | None = None
    expected: np.ndarray | None = None


@cache
def palette(scheme: str) -> tuple[tuple[str, ...], str]:
    """The scheme's LEVELS colours, low to high, and '1' for each where white ink reads better (once a process)."""
    colours = tuple(co.colour_at(scheme, i / (LEVELS - 1)) for i in range(LEVELS))
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


def _legend(scheme: str, domain: tuple[float, float], name: str | None = None) -> dict:
    """The colour bar; its title names the quantity (default 'entry' signed, 'weight (fixed 0–1 or stretched)')."""
    stops = co.ramp_domain(scheme, domain)
    low, high = stops[0], stops[-1]
    colours = co.scheme_colours(scheme)
    span = (high - low) or 1.0
    at = [round(100 * (p - low) / span, 2) for p in stops]
    ticks = [[0.0, number(low)], [100.0, number(high)]]
    if scheme == co.SIGNED and low < 0 < high:
        ticks.insert(1, [round(100 * (0 - low) / span, 2), "0"])
    title = (name or "entry") if scheme == co.SIGNED else f"{name or 'weight'} ({co.weight_legend(domain)})"
    return {"title": title, "stops": [[p, c] for p, c in zip(at, colours)], "ticks": ticks}


def worked(
    q: np.ndarray,
    k: np.ndarray,
    weights: np.ndarray,
    mask: np.ndarray | None = None,
    *,
    why: str = "the key comes after the query",
    products_max: int = PRODUCTS_MAX,
    divide: bool = True,
) -> dict:
    """The worked calculation of every cell of a T × T map, compact: q's entries per row, k's per column
    (texts, '|'-joined), each cell's products (';'-joined, only up to products_max of them), its dot product,
    its score ÷ √d (divide=False: the switch that scales scores is off) and its softmax share, and the line
    templates the script fills in for a pick."""
    q, k, weights = (np.asarray(a, dtype=np.float64) for a in (q, k, weights))
    T, d = q.shape
    dots = q @ k.T
    root = math.sqrt(d)
    scaled = dots / root if divide else dots
    shown = np.ones(dots.shape, bool) if mask is None else np.asarray(mask, bool)
    flat = lambda a: "|".join(numbers(a))  # noqa: E731
    cell = {
        "dot": flat(dots),
        "scaled": "|".join(t if s else "−∞" for t, s in zip(numbers(scaled), shown.ravel())),
        "share": "|".join(fmt(w, ".1%") if s else "0" for w, s in zip(weights.ravel(), shown.ravel())),
    }
    lines = ["query {row} → key {col}", "q·k = {pairs}"]
    if q.shape[0] * k.shape[0] * d <= products_max:
        products = q[:, None, :] * k[None, :, :]  # (T, T, d)
        written = factors(products)  # T · T · d texts, a cell's d in a row
        cell["products"] = "|".join(";".join(written[i : i + d]) for i in range(0, len(written), d))
        lines.append("= {product_terms}")
    divided = "÷ √{d} = ÷ {sqrt_d} → {scaled}" if divide else "not divided (scaling off) → {scaled}"
    lines += ["= {dot}", divided, "softmax share of row {row}: {share}"]
    return {
        "lines": lines,
        "masked": ["query {row} → key {col}", f"masked: {why}; its score is −∞, its softmax share 0"],
        "row": {"q": ["|".join(factors(r)) for r in q]},
        "col": {"k": ["|".join(factors(r)) for r in k]},
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
    width: int | None = None,
    area: int | None = None,
    link: str | None = None,
    across: int | None = None,
    legend: str | None = None,
) -> dict:
    """The component's data (its size: the module's docstring); `link`: the URL parameter a pick writes ('cell'),
    None for none; `across`: the maps a row; `legend`: what the colours stand for ('score', 'spread'; _legend)."""
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
        tips = [t if ok else mask_text for t, ok in zip(numbers(v), s.ravel())]
        item = {
            "title": p.title,
            "about": describe.matrix(v, rows, cols, p.title, y_title, x_title, s),
            "colour": base64.b64encode(colour_index(v, s, scheme, domain).tobytes()).decode("ascii"),
            "tips": "|".join(tips),
            "cells": "|".join(cell_text(x, spec) if ok else mask_text for x, ok in zip(v.ravel(), s.ravel()))
            if labelled
            else None,
        }
        if p.expected is not None:
            item["expected"] = "".join("1" if x else "0" for x in np.asarray(p.expected, bool).ravel())
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
        "legend": _legend(scheme, domain, legend),
        "mask": {"fill": co.MASK_FILL, "ink": co.MASK_TEXT, "word": mask_word, "why": why, "shown": any_hidden},
        "highlight": None if highlight is None else int(highlight),
        "highlightColour": co.HIGHLIGHT_STROKE,
        "pick": None if pick is None else [int(x) for x in pick],
        "present": bool(present),
        "raster": R * C >= CANVAS_CELLS,
        "width": None if width is None else int(width),
        "area": None if area is None else int(area),
        "expectedColour": co.EXPECTED_STROKE,
        "link": link,
        "across": across,  # maps a row (None: all in one row)
        "report": bool(report_pick),
        "hint": f"{PICK_HINT}{'calculation' if works else 'value'} appears below.",
    }


def attention_map(
    maps: Sequence[Panel | np.ndarray],
    *,
    key: str | None,
    rows: Sequence[str],
    cols: Sequence[str] | None = None,
    report_pick: bool = False,
    on_pick=None,
    **options,
):
    """Draw `maps` (Panels or bare arrays) side by side on one colour scale (diverging around 0 when `signed`, else
    the weights' sequential one) with `rows`/`cols` as token labels; a pick is answered in the browser. `key` keeps
    the picked cell across runs; `options` are payload's (`pick` = (map, row, col) picks from the server; the maps
    fit `width` px, the column's, their cells at most `area` px wide). With report_pick=True each pick also reruns
    the script once (the result's `pick`; on_pick is its callback)."""
    made = lambda: encoded(payload(maps, rows, cols, report_pick=report_pick, **options))  # noqa: E731
    data = memo.once(("map", maps, rows, cols, report_pick, options, co.stretched()), made)  # the bytes sent before
    picks = {"on_pick_change": on_pick or _read_later} if report_pick else {}
    return _component(key=key, data=data, **picks)


def _read_later() -> None:  # a reported pick is read from the result: nothing to do when it arrives
    pass


def encoded(data: dict) -> bytes:
    """The payload as UTF-8 JSON bytes, forwarded as they are (a dict is scanned for dataframes: pandas imported,
    0.3 s of a fresh server's first page); attention_map.js parses them."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def decoded(element) -> dict:
    """What an attention map's element (AppTest's bidi_component) carries: its payload."""
    return json.loads(element.proto.bytes.decode("utf-8"))
