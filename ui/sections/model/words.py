"""The model view's words: what each map's rows do, and what to notice across the whole stack."""

from __future__ import annotations

import numpy as np

from ui.prose.numbers import count, fmt, names, verb
from ui.prose.rows import SHOWN, even_cause, even_count, rule


def head_line(spread: float, top: float) -> str:
    """A map's tooltip: its mean spread and its rows' mean largest weight."""
    if np.isnan(spread):
        return "every row sees one key only"
    return f"mean spread {fmt(spread, '.2f')}, mean largest weight {fmt(top, '.2f')}"


def notice(
    spread: np.ndarray,
    top: np.ndarray,
    uniform: float,
    trained: bool = False,
    per_row: np.ndarray | None = None,
    labels=None,
    quote=lambda text: "‘" + text + "’",
) -> str:
    """spread, top: (L, H) each map's mean row spread and mean largest weight; uniform: the mean largest
    weight an even spread gives; per_row: (L, H, T) every row's spread, labels its tokens. Names the sharpest and
    the most even head, and how the layers differ; whether the rows are spread almost evenly is judged row
    by row, by the rule the per-head and softmax pages follow (a map's mean can pass where a row does not)."""
    L, H = spread.shape
    if np.all(np.isnan(spread)):
        return "every row sees one key only (one token): each weight is 1, forced, in every map."
    flat = np.where(np.isnan(spread), np.inf, spread)
    sharp = np.unravel_index(int(np.argmin(flat)), flat.shape)
    even = np.unravel_index(int(np.argmax(np.where(np.isnan(spread), -np.inf, spread))), spread.shape)
    who = lambda lh: f"layer {lh[0]} head {lh[1]}" if L > 1 else f"head {lh[1]}"  # noqa: E731
    rows = (
        f"a mean spread of {fmt(spread[sharp], '.2f')} (1 = even, 0 = all weight on one key) and give their "
        f"top key {fmt(top[sharp], '.2f')} on average, where an even spread would give {fmt(uniform, '.2f')}"
    )
    if L * H == 1:
        said = f"in the one map ({who(sharp)}) the rows have {rows}"
    else:
        said = f"of these {count(L * H, 'map')}, {who(sharp)} is the sharpest: its rows have {rows}"
    if L * H > 1:
        said += f"; {who(even)} is the least sharp (spread {fmt(spread[even], '.2f')})"
    said += "."
    if L > 1:
        means = np.nanmean(spread, axis=1)
        said += (
            " Mean spread by layer: "
            + ", ".join(f"layer {layer} {fmt(m, '.2f')}" for layer, m in enumerate(means))
            + "."
        )
    per_row = spread[..., None] if per_row is None else per_row
    n_even, total = even_count(per_row)  # the per-head page's count, every map
    low = float(np.nanmin(per_row))
    if n_even == total:
        said += (
            f" Every row of every map is spread almost evenly (lowest spread {fmt(low, '.3f')}): {even_cause(trained)}."
        )
    elif n_even:
        hits = np.argwhere(per_row <= low + 1e-12)  # (n, 3) ties included
        where = names(
            [
                f"{quote(labels[i]) if labels is not None else f'row {i}'} in {who((layer, head))}"
                for layer, head, i in hits[:SHOWN]
            ]
        )
        tied = f" (tied, {count(len(hits), 'row')})" if len(hits) > 1 else ""
        said += (
            f" {n_even} of {count(total, 'row')} that have a choice {verb(n_even, 'is', 'are')} spread almost "
            f"evenly; the sharpest row is {where}{tied} (spread {fmt(low, '.3f')})."
        )
    if n_even:
        said += f" Here {rule()}."
    return said + " Click a map to open that layer's heads on the per-head page."
