"""Vega-Lite specs (bars and lines; the heatmaps are the attention-map component's) written as plain dicts: the
font, label widths and title they share, and templates whose per-chart values are set on a copy.

A spec depends on small things only (shape, titles, colour domain, sizes). A template is built once
per shape and remembers where its per-chart values go (its slots); filling it copies just the dicts
along those paths, so a new title or domain costs microseconds and the shared template is never
changed. The cells travel separately, as Arrow tables in the spec's named datasets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

FONT, FONT_PRESENT = 13, 17  # axis labels and titles; presenter view is for a projector
LABEL_LIMIT = 140  # px: Vega cuts longer axis labels with …
LABEL_FONT_MIN = 10  # px: axis labels shrink to fit narrow bars, down to this size


def font(present: bool) -> int:
    return FONT_PRESENT if present else FONT


def text_px(chars: int, size: int, limit: int = LABEL_LIMIT) -> float:
    """About how wide a label of `chars` characters is drawn (sans serif), cut at `limit`."""
    return min(limit, 0.58 * size * chars)


def title(present: bool, offset: int | None = 10, limit: float | None = None) -> dict:
    """A chart title whose text is a template slot (cut with … beyond `limit` px)."""
    out = {"text": "", "fontSize": font(present) + 2, "anchor": "start"}
    if limit is not None:
        out["limit"] = limit
    return out if offset is None else {**out, "offset": offset}


# --------------------------------------------------------------------------- templates
def assoc(tree: Any, path: Sequence, value: Any) -> Any:
    """A copy of `tree` with the entry at `path` replaced; only the containers on the path are copied."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = list(tree) if isinstance(tree, list) else dict(tree)
    copy[head] = assoc(tree[head], rest, value)
    return copy


@dataclass(frozen=True)
class Template:
    """A spec shared by every chart of one shape, and where each per-chart value goes."""

    spec: dict
    slots: dict[str, tuple[tuple, ...]]  # slot name -> every path where its value goes

    def fill(self, **values) -> dict:
        """A new spec with these slots set (the template itself is never changed)."""
        spec = dict(self.spec)  # a new top level even with no slot set
        for name, value in values.items():
            for path in self.slots[name]:
                spec = assoc(spec, path, value)
        return spec
