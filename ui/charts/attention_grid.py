"""The model view in the attention-map component (ui/charts/attention_map.py): every layer × head as small maps
in one element, layers down and heads across, titled 'layer ℓ · head h', on one colour scale (the weights' scale
of ui.charts.colours, stretched or not as the sidebar says). Each map carries its description computed from its
numbers; the grid carries one more (the sharpest and the flattest map). A click, or Enter or Space on a map's
cell, reports that map (one trigger, `result.pick['map']` = layer × heads + head): the page opens that head.

Token labels sit beside every map while they fit, else they show on hover and focus; from CANVAS_CELLS cells in
all, each map is painted on a canvas. Payload: 1 byte a cell (base64) and each cell's tip as text: 2 layers ×
2 heads of 16 tokens about 9 KB; 4 layers × 16 heads of 64 tokens about 1.6 MB of tips, so from TIP_CELLS cells in
all a cell's tip is its colour level's text (≈ the weight to a 254th of the scale, 256 texts sent once) and the
payload is about 0.4 MB.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence

import numpy as np

from ui.charts import attention_map as am
from ui.charts import colours as co
from ui.charts import map_texts, memo
from ui.charts.describe import matrix as describe_matrix
from ui.charts.describe import number as describe_num

MAX_SIDE, MAX_SIDE_PRESENT = 300, 400  # px: a map is never drawn wider than this (labels fit while they can)
TIP_CELLS = 65_536  # from this many cells in all, a cell's tip is its colour level's text


def level_texts(scheme: str, domain: tuple[float, float], mask_text: str = "masked") -> list[str]:
    """The text of each palette index: the value at that level of the scale ('≈ 0.502'), the mask's at MASKED."""
    points = np.asarray(co.ramp_domain(scheme, domain))
    where = np.linspace(0.0, 1.0, len(points))
    values = np.interp(np.arange(am.LEVELS) / (am.LEVELS - 1), where, points)
    return [f"≈ {map_texts.number(v)}" for v in values] + [mask_text] * (256 - am.LEVELS)


def titles(n_layers: int, n_heads: int) -> list[str]:
    return [f"layer {layer} · head {head}" for layer in range(n_layers) for head in range(n_heads)]


def payload(
    weights: np.ndarray,
    labels: Sequence[str],
    *,
    title: str = "",
    mask: np.ndarray | None = None,
    domain: tuple[float, float] | None = None,
    info: Sequence[Sequence[str]] | None = None,
    pick: tuple[int, int] | None = None,
    present: bool = False,
    report: bool = False,
) -> dict:
    """The component's data for (L, H, T, T) weights: am.payload's maps in H columns, with the grid's heading,
    description, outlined map (pick = (layer, head)) and each map's info line (info[l][h]) as its note."""
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 4 or weights.shape[2] != weights.shape[3]:
        raise ValueError(f"weights must be (layers, heads, T, T), got {weights.shape}")
    L, H, T, _ = weights.shape
    domain = co.weight_domain(weights) if domain is None else (float(domain[0]), float(domain[1]))
    names = titles(L, H)
    cells = L * H * T * T
    exact = cells < TIP_CELLS
    first = am.Panel(weights[0, 0], names[0], mask)  # the shared parts (palette, legend, mask) from one map
    data = am.payload([first], labels, signed=False, domain=domain, present=present, report_pick=report, mask_text="0")
    data["maps"] = [
        panel(weights[m // H, m % H], mask, labels, names[m], domain, exact, info[m // H][m % H] if info else "")
        for m in range(L * H)
    ]
    if not exact:
        data["levels"] = level_texts(co.WEIGHTS, domain, "0")
    data.update(
        columns=H,
        side=MAX_SIDE_PRESENT if present else MAX_SIDE,
        raster=cells >= am.CANVAS_CELLS,
        outline=None if pick is None else int(pick[0]) * H + int(pick[1]),
        heading=title,
        summary=describe(np.where(mask, weights, np.nan) if mask is not None else weights, title),
        hint=(
            "Click or tap a map, or Tab to it and press Enter or Space: that head opens on the per-head page."
            if report
            else "Hover or focus a cell for its weight."
        ),
    )
    return data


def panel(
    values: np.ndarray,
    mask: np.ndarray | None,
    labels: Sequence[str],
    title: str,
    domain: tuple[float, float],
    exact: bool,
    note: str = "",
) -> dict:
    """One map of the grid as the component reads it: its colours, its description (and note), and each cell's
    tip as text when `exact` (else None: the level texts)."""
    shown = np.isfinite(values) & (True if mask is None else np.asarray(mask, bool))
    item = {
        "title": title,
        "about": describe_matrix(values, labels, labels, title, "query", "key", shown) + (f" {note}." if note else ""),
        "colour": base64.b64encode(am.colour_index(values, shown, co.WEIGHTS, domain).tobytes()).decode("ascii"),
        "tips": "|".join(t if ok else "0" for t, ok in zip(map_texts.numbers(values), shown.ravel()))
        if exact
        else None,
        "cells": None,  # no values inside the small maps: the tips have them
    }
    if note:
        item["note"] = note
    return item


def describe(weights: np.ndarray, title: str = "") -> str:
    """The model view: L × H maps of T × T weights; which map is the sharpest and which the flattest."""
    weights = np.asarray(weights, dtype=np.float64)
    L, H, T, _ = weights.shape
    top = np.nan_to_num(weights, nan=0.0).max(axis=-1).mean(axis=-1)  # (L, H) mean largest weight
    sharp = np.unravel_index(np.argmax(top), top.shape)
    flat = np.unravel_index(np.argmin(top), top.shape)
    head = f"{title}. " if title else ""
    return (
        f"{head}Grid of {L} layer{'s' * (L != 1)} × {H} head{'s' * (H != 1)}, each a {T} × {T} map of "
        f"attention weights from {describe_num(np.nanmin(weights))} to {describe_num(np.nanmax(weights))}: sharpest "
        f"layer {sharp[0]} head {sharp[1]} (mean largest weight {describe_num(top[sharp])}), flattest layer "
        f"{flat[0]} head {flat[1]} ({describe_num(top[flat])})."
    )


def colours(data: dict) -> list[np.ndarray]:
    """Each map's palette indices as sent (for tests and the frames' payload)."""
    return [np.frombuffer(base64.b64decode(m["colour"]), np.uint8) for m in data["maps"]]


def model_view(
    weights: np.ndarray,
    *,
    labels: Sequence[str],
    key: str,
    title: str,
    mask: np.ndarray | None = None,
    domain: tuple[float, float] | None = None,
    info: Sequence[Sequence[str]] | None = None,
    pick: tuple[int, int] | None = None,
    present: bool = False,
    on_open: Callable[[], None] | None = None,
):
    """Draw (L, H, T, T) weights as an L × H grid of maps with `labels` as token labels; with on_open, a click on
    a map reports it (one run; on_open is its callback, reading `st.session_state[key]['pick']['map']`)."""
    options = dict(
        title=title, mask=mask, domain=domain, info=info, pick=pick, present=present, report=on_open is not None
    )
    made = lambda: am.encoded(payload(weights, labels, **options))  # noqa: E731
    data = memo.once(("grid", weights, labels, options, co.stretched()), made)  # a stretched scale is another map
    if on_open is not None:
        return am._component(key=key, data=data, on_pick_change=on_open)
    return am._component(key=key, data=data)
