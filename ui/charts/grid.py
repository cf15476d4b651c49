"""The model view: every layer × every head as small maps in one picture, on one colour scale.

One PNG holds every map (NumPy paints it as a palette picture, one block of pixels a cell,
transparent gaps between the maps); over it one invisible rect per map carries the layer and head axes, a tooltip
and the click that opens that head. A handful of marks for Vega at any size: 4 layers × 16 heads of 64 tokens is
still one picture and 64 rects.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence

import numpy as np
import streamlit as st
from PIL import Image

from ui.charts import arrow, raster
from ui.charts import colours as co
from ui.charts import spec as sp
from ui.charts.describe import number as describe_num

MIN_MAP_PX = 40  # a map is painted at least this many pixels wide (a few tokens: blocks of pixels)
GAP = 0.08  # the gap between two maps, as a share of a map's side
MAX_SIDE, MAX_SIDE_PRESENT = 160, 220  # px: a map is never drawn wider than this


def layout(n_layers: int, n_heads: int, T: int) -> tuple[int, int]:
    """(pixels per cell, pixels between maps) of the picture."""
    scale = max(1, math.ceil(MIN_MAP_PX / T))
    return scale, max(1, round(GAP * T * scale))


LEVELS = 254  # colour levels of the picture's palette; index 254 is a masked cell, 255 a gap
MASKED, GAP_INDEX = 254, 255


def palette(domain: tuple[float, float]) -> list[int]:
    """The picture's 256 colours: LEVELS evenly spaced values of the weight scale, the mask's grey, and
    black for the gaps (drawn transparent)."""
    ramp = raster.paint(np.linspace(domain[0], domain[1], LEVELS)[None, :], co.WEIGHTS, domain)[0]  # (LEVELS, 3)
    return [*ramp.ravel().tolist(), *co.rgb(co.MASK_FILL), 0, 0, 0]


def picture(weights: np.ndarray, mask: np.ndarray | None, domain: tuple[float, float]) -> np.ndarray:
    """(L, H, T, T) weights -> the picture's palette indices (rows, cols) uint8: layers down, heads
    across, each weight as the nearest of LEVELS colours of the scale (a step of 1/253 of the domain,
    finer than the eye tells apart on a thumbnail), MASKED where the mask hides a key, GAP_INDEX between."""
    L, H, T, _ = weights.shape
    scale, gap = layout(L, H, T)
    low, high = domain
    level = np.rint((np.clip(weights, low, high) - low) / ((high - low) or 1.0) * (LEVELS - 1)).astype(np.uint8)
    if mask is not None:
        level = np.where(mask, level, MASKED).astype(np.uint8)  # (L, H, T, T)
    level = np.repeat(np.repeat(level, scale, axis=2), scale, axis=3)  # (L, H, side, side)
    side = T * scale
    out = np.full((L, side + gap, H, side + gap), GAP_INDEX, dtype=np.uint8)
    out[:, :side, :, :side] = level.transpose(0, 2, 1, 3)  # (L, side, H, side)
    return out.reshape(L * (side + gap), H * (side + gap))[: L * (side + gap) - gap, : H * (side + gap) - gap]


def _png(indices: np.ndarray, domain: tuple[float, float]) -> str:
    """The picture as a palette PNG (one byte a pixel; gaps transparent), as a data URL."""
    image = Image.fromarray(indices, "P")
    image.putpalette(palette(domain))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1, transparency=GAP_INDEX)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def model_view(
    weights: np.ndarray,
    *,
    width: float,
    title: str,
    mask: np.ndarray | None = None,
    domain: tuple[float, float] | None = None,
    info: Sequence[Sequence[str]] | None = None,
    pick: tuple[int, int] | None = None,
    key: str | None = None,
    present: bool = False,
    selectable: bool = False,
) -> None:
    """Draw (L, H, T, T) weights as an L × H grid of maps no wider than `width` px. info[l][h] is a
    short line for that map's tooltip; pick=(layer, head) outlines one map; with selectable=True a
    click selects a map (its layer as r, its head as c, read from the chart's state under `key`)."""
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 4 or weights.shape[2] != weights.shape[3]:
        raise ValueError(f"weights must be (layers, heads, T, T), got {weights.shape}")
    L, H, T, _ = weights.shape
    domain = co.weight_domain(weights) if domain is None else (float(domain[0]), float(domain[1]))
    scale, gap = layout(L, H, T)
    inner = gap / (T * scale + gap)  # band padding: the picture's gaps, exactly
    size = sp.font(present)
    rows = [f"layer {layer}" for layer in range(L)]
    cols = [f"head {head}" for head in range(H)]
    left = sp.text_px(max(map(len, rows)), size) + 2 * size + 22
    right = sp.legend_px(size)
    room = max(width - left - right, 4.0 * H)
    side = min(room / (H + (H - 1) * inner / (1 - inner)), MAX_SIDE_PRESENT if present else MAX_SIDE)
    step = side / (1 - inner)
    chart_w, chart_h = step * H - step * inner, step * L - step * inner

    pairs = [(layer, head) for layer in range(L) for head in range(H)]  # built from buffers: no pandas import
    boxes = {
        "layer": arrow.strings([rows[layer] for layer, _ in pairs]),
        "head": arrow.strings([cols[head] for _, head in pairs]),
        "r": arrow.numbers(np.array([layer for layer, _ in pairs], dtype=np.int8)),
        "c": arrow.numbers(np.array([head for _, head in pairs], dtype=np.int8)),
        "pick": arrow.flags(np.array([pick == pair for pair in pairs], dtype=bool)),
        "about": arrow.strings([(info[layer][head] if info else "") for layer, head in pairs]),
    }
    band = {"paddingInner": inner, "paddingOuter": 0}
    rect = {
        "data": {"name": "boxes"},
        "mark": {
            "type": "rect",
            "fill": "#ffffff",
            "fillOpacity": 0.001,
            "cursor": "pointer" if selectable else "default",
        },
        "encoding": {
            "x": {
                "field": "head",
                "type": "nominal",
                "sort": cols,
                "scale": {"domain": cols, **band},
                "title": "head",
                "axis": sp.x_axis(step, False, present, labelOverlap=True),
            },
            "y": {
                "field": "layer",
                "type": "nominal",
                "sort": rows,
                "scale": {"domain": rows, **band},
                "title": "layer",
                "axis": sp.y_axis(step, present),
            },
            "stroke": {"condition": {"test": "datum.pick", "value": co.PICK_STROKE}, "value": None},
            "strokeWidth": {"value": 3},
            "tooltip": [
                {"field": "layer", "type": "nominal"},
                {"field": "head", "type": "nominal"},
                {"field": "about", "type": "nominal", "title": "rows"},
            ],
        },
    }
    if selectable:
        rect["params"] = [
            {"name": "cell", "select": {"type": "point", "fields": ["r", "c"], "on": "click", "clear": "dblclick"}}
        ]
    image = {
        "data": {"name": "picture"},
        "mark": {
            "type": "image",
            "width": chart_w,
            "height": chart_h,
            "aspect": False,
            "align": "left",
            "baseline": "top",
            "smooth": side < T,
            "aria": False,
        },
        "encoding": {"url": {"field": "url", "type": "nominal"}, "x": {"value": 0}, "y": {"value": 0}},
    }
    ramp = {
        "data": {"name": "ramp"},
        "mark": {"type": "point", "opacity": 0, "size": 0, "aria": False},
        "encoding": {
            "color": {
                "field": "value",
                "type": "quantitative",
                "scale": {
                    **sp.colour_scale(co.scheme_colours(co.WEIGHTS)),
                    "domain": co.ramp_domain(co.WEIGHTS, domain),
                },
                "legend": {**sp.legend(present, chart_h), "title": co.weight_legend(domain)},
            }
        },
    }
    spec = {
        "width": chart_w,
        "height": chart_h,
        "autosize": {"type": "pad"},
        "description": describe(np.where(mask, weights, np.nan) if mask is not None else weights, title),
        "title": {**sp.title(present, limit=width - 10), "text": title},
        "layer": [image, ramp, rect],
        "datasets": {
            "picture": arrow.table({"url": arrow.strings([_png(picture(weights, mask, domain), domain)])}),
            "ramp": arrow.table(
                {"value": arrow.numbers(np.asarray(co.ramp_domain(co.WEIGHTS, domain), dtype=np.float64))}
            ),
            "boxes": arrow.table(boxes),
        },
    }
    if selectable:
        st.vega_lite_chart(spec=spec, key=key, on_select="rerun", selection_mode="cell", width="content")
    else:
        st.vega_lite_chart(spec=spec, key=key, width="content")


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
