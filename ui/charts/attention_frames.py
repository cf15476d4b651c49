"""Frames of the attention-map component (ui/charts/attention_map.py): several versions of the same maps (the
weights at each β of the Softmax page, every saved step of a Learn run), sent once and scrubbed in the browser
with a labelled range input (keyboard operable, its aria-valuetext the frame's label) that redraws the maps as it
moves, with no server run. When the control rests (a release, the last of quick arrow presses) it sends one
trigger (`result.frame`, the frame's index; on_frame is its callback) and, for a value the link carries
(`param`), writes that value into the address with history.replaceState.

The starting frame is the component's ordinary payload; every other frame carries per map its colours (1 byte a
cell, base64: the palette index, the colours' only quantization), its title and its description computed from its
numbers, and each cell's tip as text while all the frames hold fewer than EXACT_CELLS cells; beyond, a cell's tip
is its colour level's text ('≈ 0.502', 256 texts sent once). Payload (tests/test_attention_frames.py): β's 10
frames of one 16 × 16 map about 26 KB, of 64 × 64 about 0.33 MB (exact tips); the Learn page's induction run (69
steps of 2 × 2 maps of 16 tokens) about 0.2 MB; the text run (10 steps of 2 × 4 maps of 64 tokens) about 0.7 MB;
a one-layer run (44 to 53 steps of one head's 8-token map, its expected cells dashed) 50 to 77 KB, 0.35 MB at most
at 64 tokens.
A run's frames are thinned to about MAX_BYTES (0.9 MB): past it, saved steps are sent evenly spaced (the first,
the last and the one shown kept) and the page says how many of them.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import streamlit as st

from ui.charts import attention_grid as ag
from ui.charts import attention_map as am
from ui.charts import colours as co
from ui.charts import describe, map_texts

EXACT_CELLS = 65_536  # frames holding more cells in all send their tips as colour levels
MAX_BYTES = 900_000  # a scrubbed run's frames are thinned to about this (a Learn run at 64 tokens stays ≤ 1 MB)
REST_MS = 300  # the control sends its frame once it has rested this long


def thinned(count: int, per_frame_bytes: int, keep: int, budget: int = MAX_BYTES) -> list[int]:
    """Which of `count` frames to send within `budget` bytes: every one if they fit, else evenly spaced ones with
    the first, the last and `keep` among them."""
    most = max(3, budget // max(per_frame_bytes, 1))
    if count <= most:
        return list(range(count))
    picked = {int(round(x)) for x in np.linspace(0, count - 1, most - 1)} | {keep}
    return sorted(picked)


def frame_bytes(cells: int, exact: bool) -> int:
    """About how many bytes a frame of `cells` cells takes (4/3 a cell for its colour, 6 for an exact tip)."""
    return int(cells * (4 / 3 + (6 if exact else 0))) + 400


def domain_of(frames: Sequence[Sequence[am.Panel]], signed: bool) -> tuple[float, float]:
    """One colour scale for every map of every frame."""
    finite = []
    for panels in frames:
        for p in panels:
            v = np.asarray(p.values, dtype=np.float64)
            shown = np.isfinite(v) & (True if p.mask is None else np.asarray(p.mask, bool))
            finite.append(np.where(shown, v, 0.0))
    return co.symmetric_domain(*finite) if signed else co.weight_domain(*finite)


def frame_map(p: am.Panel, rows, cols, scheme, domain, exact: bool, mask_text: str, spec: str, titles) -> dict:
    """One map of a frame as the script reads it (attention_map_frames.js, framed())."""
    v = np.asarray(p.values, dtype=np.float64)
    shown = np.isfinite(v) & (True if p.mask is None else np.asarray(p.mask, bool))
    item = {
        "title": p.title,
        "about": describe.matrix(v, rows, cols, p.title, *titles, shown),
        "colour": base64.b64encode(am.colour_index(v, shown, scheme, domain).tobytes()).decode("ascii"),
    }
    if exact:
        item["tips"] = "|".join(t if ok else mask_text for t, ok in zip(map_texts.numbers(v), shown.ravel()))
        if len(rows) <= am.MAX_LABELLED and len(cols) <= am.MAX_LABELLED:
            item["cells"] = "|".join(
                map_texts.cell_text(x, spec) if ok else mask_text for x, ok in zip(v.ravel(), shown.ravel())
            )
    return item


def scrubbed(data: dict, frames: list, *, start: int, labels, texts, values, label: str, param: str | None) -> dict:
    """The component's data with its frames and the scrubber's texts (frames[start] is the data's own maps)."""
    data.update(
        frames=frames,
        frame=int(start),
        frameLabels=[str(x) for x in labels],
        scrub={
            "label": label,
            "texts": [str(x) for x in texts],
            "values": [str(x) for x in values],
            "param": param,
            "wait": REST_MS,
        },
    )
    return data


@dataclass(frozen=True)
class Framed:
    """Every frame's maps as the script reads them (frame_map, attention_grid.panel), each map a tuple of (field,
    text) pairs: immutable, so a cache may share it across sessions; `exact` says whether they carry their tips."""

    exact: bool
    maps: tuple[tuple[tuple[tuple[str, object], ...], ...], ...]

    def sent(self, start: int) -> list:
        """The frames as the payload sends them: frames[start] is None (its maps are the payload's own)."""
        return [None if f == start else [dict(m) for m in panels] for f, panels in enumerate(self.maps)]


def _framed(exact: bool, frames) -> Framed:
    return Framed(exact, tuple(tuple(tuple(m.items()) for m in panels) for panels in frames))


def map_frames(
    frames: Sequence[Sequence[am.Panel]],
    rows: Sequence[str],
    domain: tuple[float, float],
    *,
    signed: bool = False,
    mask_text: str = "0",
    spec: str = ".2f",
    titles: tuple[str, str] = ("query", "key"),
) -> Framed:
    """Every frame's maps (frames[f] = the Panels of frame f) on one colour scale: the costly part of a payload
    (each map's description, colours and tips), built once where the caller caches it (a replay's release)."""
    rows = [str(r) for r in rows]
    exact = sum(np.asarray(p.values).size for panels in frames for p in panels) < EXACT_CELLS
    scheme = co.SIGNED if signed else co.WEIGHTS
    return _framed(
        exact, ([frame_map(p, rows, rows, scheme, domain, exact, mask_text, spec, titles) for p in ps] for ps in frames)
    )


def maps_payload(
    frames: Sequence[Sequence[am.Panel]],
    rows: Sequence[str],
    *,
    start: int,
    labels: Sequence[str],
    texts: Sequence[str],
    values: Sequence[str],
    label: str,
    param: str | None = None,
    signed: bool = False,
    domain: tuple[float, float] | None = None,
    mask_text: str = "0",
    spec: str = ".2f",
    built: Framed | None = None,
    **options,
) -> dict:
    """Side-by-side maps in frames (frames[f] = the Panels of frame f, the same number and shape in each), one
    colour scale over all of them (`domain`, else their own); options go to attention_map.payload. `built`: the
    frames' maps as map_frames built them with this domain (cached by the caller), else built here; with it only
    frames[start] is read (the others may be None)."""
    if built is not None and domain is None:
        raise ValueError("frames built elsewhere need the domain they were built with")
    domain = domain_of(frames, signed) if domain is None else (float(domain[0]), float(domain[1]))
    rows = [str(r) for r in rows]
    data = am.payload(frames[start], rows, signed=signed, domain=domain, mask_text=mask_text, spec=spec, **options)
    titles = (options.get("y_title", "query"), options.get("x_title", "key"))
    if built is None:
        built = map_frames(frames, rows, domain, signed=signed, mask_text=mask_text, spec=spec, titles=titles)
    if not built.exact:
        data["levels"] = ag.level_texts(co.SIGNED if signed else co.WEIGHTS, domain, mask_text)
    return scrubbed(
        data, built.sent(start), start=start, labels=labels, texts=texts, values=values, label=label, param=param
    )


def grid_frames(
    weights: Sequence[np.ndarray], labels_: Sequence[str], mask: np.ndarray | None, domain: tuple[float, float]
) -> Framed:
    """Every frame's model view (weights[f] is frame f's (L, H, T, T)) as attention_grid's maps."""
    L, H, T, _ = np.asarray(weights[0]).shape
    exact = len(weights) * L * H * T * T < EXACT_CELLS
    names = ag.titles(L, H)
    return _framed(
        exact,
        (
            [ag.panel(np.asarray(w)[m // H, m % H], mask, labels_, names[m], domain, exact) for m in range(L * H)]
            for w in weights
        ),
    )


def grid_payload(
    weights: Sequence[np.ndarray],
    labels_: Sequence[str],
    *,
    start: int,
    labels: Sequence[str],
    texts: Sequence[str],
    values: Sequence[str],
    label: str,
    param: str | None = None,
    mask: np.ndarray | None = None,
    domain: tuple[float, float] = (0.0, 1.0),
    title: str = "",
    present: bool = False,
    built: Framed | None = None,
) -> dict:
    """The model view (attention_grid) in frames: weights[f] is frame f's (L, H, T, T); `built` as grid_frames
    built them with this domain (cached by the caller), else built here."""
    data = ag.payload(weights[start], labels_, title=title, mask=mask, domain=domain, present=present)
    if built is None:
        built = grid_frames(weights, labels_, mask, domain)
    if not built.exact or "levels" in data:
        data["levels"] = ag.level_texts(co.WEIGHTS, domain, "0")
    return scrubbed(
        data, built.sent(start), start=start, labels=labels, texts=texts, values=values, label=label, param=param
    )


def draw(data: dict | bytes, *, key: str, on_frame: Callable[[], None], on_pick: Callable[[], None] | None = None):
    """Mount the component with frames (a payload, or its bytes as ui.charts.memo kept them): on_frame runs once
    per rested scrub (the frame is `result.frame`)."""
    data = data if isinstance(data, bytes) else am.encoded(data)
    if on_pick is not None:
        return am._component(key=key, data=data, on_frame_change=on_frame, on_pick_change=on_pick)
    return am._component(key=key, data=data, on_frame_change=on_frame)


def frame_of(key: str) -> int | None:
    """The frame a component's scrubber just sent (in its on_frame callback), or None."""
    value = st.session_state.get(key) or {}
    frame = value.get("frame") if hasattr(value, "get") else getattr(value, "frame", None)
    return None if frame is None else int(frame)
