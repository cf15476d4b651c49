"""Raster heatmaps: a map of tiny cells painted by NumPy as one PNG (one pixel a cell), drawn under the
same axes, colour legend and outlines as a vector map: a handful of marks for Vega instead of one per cell."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import pyarrow as pa
from PIL import Image

from ui.charts import colours as co
from ui.charts import spec as sp


def paint(matrix: np.ndarray, scheme: str, domain: tuple[float, float]) -> np.ndarray:
    """The heatmap as RGB pixels, one per cell: (R, C) -> (R, C, 3) uint8; NaN (masked) is grey."""
    points = np.asarray(co.ramp_domain(scheme, domain))  # (n,)
    stops = np.array([co.rgb(c) for c in co.scheme_colours(scheme)], float)  # (n, 3)
    values = np.asarray(matrix, dtype=np.float64)  # (R, C)
    clipped = np.clip(np.nan_to_num(values, nan=points[0]), points[0], points[-1])
    rgb = np.stack([np.interp(clipped, points, stops[:, k]) for k in range(3)], axis=-1)  # (R, C, 3)
    rgb[np.isnan(values)] = co.rgb(co.MASK_FILL)
    return np.rint(rgb).astype(np.uint8)


@lru_cache(maxsize=64)
def template(
    n_rows: int,
    n_cols: int,
    row_chars: int,
    col_chars: int,
    tilted: bool,
    x_title: str,
    y_title: str,
    scheme: str,
    present: bool,
    width: int,
    area: int,
) -> sp.Template:
    """One raster shape: the picture, an invisible layer that draws the colour legend, the outlines."""
    size = sp.fit(n_rows, n_cols, row_chars, col_chars, tilted, True, present, width, area)
    picture = {
        "data": {"name": "picture"},
        "mark": {
            "type": "image",
            "width": size.width,
            "height": size.height,
            "aspect": False,
            "align": "left",
            "baseline": "top",
            "smooth": False,
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
                "scale": sp.colour_scale(co.scheme_colours(scheme)),
                "legend": sp.legend(present, size.height, size.below),
            }
        },
    }
    outline = {
        "data": {"name": "outline"},
        "mark": {"type": "rect", "fill": None, "aria": False},  # outlines: decoration
        "encoding": {
            "x": {
                "field": "col",
                "type": "nominal",
                "scale": {"domain": []},
                "title": x_title,
                "axis": sp.x_axis(size.cell, tilted, present, sp.label_limit(width)),
            },
            "y": {
                "field": "row",
                "type": "nominal",
                "scale": {"domain": []},
                "title": y_title,
                "axis": sp.y_axis(size.row, present, sp.label_limit(width)),
            },
            "stroke": {"condition": {"test": "datum.hl", "value": co.HIGHLIGHT_STROKE}, "value": co.PICK_STROKE},
            "strokeWidth": {"condition": {"test": "datum.hl", "value": 2.5}, "value": 3.5},
        },
    }
    spec = {
        "width": size.width,
        "height": size.height,
        "autosize": {"type": "pad"},
        "title": sp.title(present, limit=width - 10),
        "layer": [picture, ramp, outline],
    }
    return sp.Template(
        spec=spec,
        slots={
            "title": (("title", "text"),),
            "domain": (("layer", 1, "encoding", "color", "scale", "domain"),),
            "rows": (("layer", 2, "encoding", "y", "scale", "domain"),),
            "cols": (("layer", 2, "encoding", "x", "scale", "domain"),),
        },
    )


def datasets(
    matrix: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    scheme: str,
    domain: tuple[float, float],
    pick: tuple[int, int] | None = None,
    highlight: int | None = None,
) -> dict[str, pa.Table]:
    """A raster heatmap's data: the PNG (a data URL), the colour ramp, and the cells to outline."""
    out = io.BytesIO()
    Image.fromarray(paint(matrix, scheme, domain), "RGB").save(out, format="PNG", compress_level=1)
    url = "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")
    R, C = np.shape(matrix)
    marks = [(pick[0], pick[1], False)] if pick is not None and pick[0] < R and pick[1] < C else []
    if highlight is not None:
        marks += [(highlight, c, True) for c in range(C)] + [(r, highlight, True) for r in range(R) if r != highlight]
    return {
        "picture": pa.table({"url": pa.array([url], pa.string())}),
        "ramp": pa.table({"value": pa.array(co.ramp_domain(scheme, domain), pa.float64())}),
        "outline": pa.table(
            {
                "row": pa.array([str(rows[r]) for r, _, _ in marks], pa.string()),
                "col": pa.array([str(cols[c]) for _, c, _ in marks], pa.string()),
                "hl": pa.array([h for _, _, h in marks], pa.bool_()),
            }
        ),
    }
