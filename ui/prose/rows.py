"""Sentences about weight rows, honest by construction (the rules live in engine.analysis):

* a row whose spread (normalised entropy, H / log2 of the keys it can see) is at least NEAR_UNIFORM is
  "spread almost evenly", and no winner is named for it; the cause given is the true one (β = 0 makes
  every row uniform; untrained weights barely prefer a key; trained weights are never called untrained);
* a row that sees one key only (the first row under the causal mask) has weight 1 by force: never a finding;
* when a winner is named, every key tied with it is named too, and a hidden key never is;
* the uniform baseline is 1 / (keys the row can see).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.analysis import NEAR_UNIFORM, RowReading
from ui.prose import text
from ui.prose.numbers import count, fmt, names, verb
from ui.prose.text import Quote

SHOWN = 6  # rows named one by one in a notice; the rest are counted


def even_cause(trained: bool = False, beta: float = 1.0, rows: int = 2) -> str:
    """Why rows (this many) are spread almost evenly, true for these weights and this β."""
    if beta == 0:
        return "β = 0 multiplies every score by 0, which makes every row exactly uniform whatever the weights"
    if trained:
        return f"the trained weights give {'this row' if rows == 1 else 'these rows'} no key to prefer"
    return "this is what untrained weights do"


def rule() -> str:
    """The threshold, stated."""
    return (
        f"a row counts as spread almost evenly when its spread (entropy ÷ log₂ of the keys it can see) "
        f"is at least {NEAR_UNIFORM:.2f}"
    )


def winner(r: RowReading, labels: Sequence[str], quote: Quote = text.quote) -> str:
    """The top key(s) of a leaning row: "‘a’ (0.412)" or "‘a’ and ‘b’, tied at 0.300"."""
    keys = [quote(labels[j]) for j in r.top]
    if len(keys) == 1:
        return f"{keys[0]} ({fmt(r.weight, '.3f')})"
    return f"{names(keys)}, tied at {fmt(r.weight, '.3f')}"


def top_cell(r: RowReading, labels: Sequence[str]) -> str:
    """A table cell: the top key(s), or why none is named."""
    if r.kind == "forced":
        return "(its only key)"
    if r.kind == "even":
        return "none: spread evenly"
    return " = ".join(labels[j] for j in r.top) + (" (tie)" if len(r.top) > 1 else "")


def softmax_notice(
    rows: list[RowReading], labels: Sequence[str], quote: Quote = text.quote, beta: float = 1.0, trained: bool = False
) -> str:
    """The softmax page's 'what to notice': which rows lean to a key, which are even, which are forced."""
    lean = [i for i, r in enumerate(rows) if r.kind == "lean"]
    even = [i for i, r in enumerate(rows) if r.kind == "even"]
    forced = [i for i, r in enumerate(rows) if r.kind == "forced"]
    parts = []
    at = "" if beta == 1 else f"at β = {beta:g} (the model uses β = 1), "
    if not lean and even:
        largest = max(rows[i].weight for i in even)
        uniform = sorted({rows[i].uniform for i in even})
        base = (
            f"{fmt(uniform[0], '.3f')}"
            if len(uniform) == 1
            else f"1/(keys it can see), {fmt(uniform[0], '.3f')} to {fmt(uniform[-1], '.3f')}"
        )
        whom = "every row" if not forced else "every row that sees more than one key"
        parts.append(
            f"{at}{whom} is spread almost evenly over the keys it can see (largest weight "
            f"{fmt(largest, '.3f')}, uniform {base}): {even_cause(trained, beta)}, so no key "
            f"stands out and none is named here"
        )
    else:
        said = []
        for i in lean[:SHOWN]:
            r = rows[i]
            said.append(
                f"{quote(labels[i])} attends most to {winner(r, labels, quote)}; uniform for its "
                f"{r.keys} keys is {fmt(r.uniform, '.3f')}"
            )
        if len(lean) > SHOWN:
            said.append(f"{count(len(lean) - SHOWN, 'more row')} {verb(len(lean) - SHOWN, 'leans', 'lean')} to a key")
        parts.append(at + "; ".join(said))
        if even:
            parts.append(
                f"{count(len(even), 'row')} {verb(len(even), 'is', 'are')} spread almost evenly "
                f"({even_cause(trained, beta, len(even))}), so no key is named for "
                + ("it" if len(even) == 1 else "them")
            )
    if forced:
        who = names([quote(labels[i]) for i in forced])
        parts.append(f"{who} sees only itself under the causal mask, so its weight 1 is forced, not a finding")
    return "; ".join(parts) + f". Here {rule()}."


def even_count(spread: np.ndarray) -> tuple[int, int]:
    """(rows spread almost evenly, rows that have a choice) among spreads of any shape (NaN: one key)."""
    chosen = spread[~np.isnan(spread)]
    return int(np.count_nonzero(chosen >= NEAR_UNIFORM)), int(chosen.size)


def spread_notice(spread: np.ndarray, labels: Sequence[str], quote: Quote = text.quote, trained: bool = False) -> str:
    """The per-head page's 'what to notice' from (H, T) spreads (NaN where a row sees one key)."""
    H = spread.shape[0]
    chosen = ~np.isnan(spread)
    if not chosen.any():
        return "every row sees one key only, so every weight is 1 by force and no row can be sharper than another."
    low = float(np.nanmin(spread))
    means = np.array([np.nanmean(s) if (~np.isnan(s)).any() else np.nan for s in spread])
    if low >= NEAR_UNIFORM:
        head = "every head" if H > 1 else "the head"
        return (
            f"in {head}, every row is spread almost evenly (lowest spread {fmt(low, '.3f')}, where 1 is "
            f"uniform): {even_cause(trained)}, so no row or head stands out. Here {rule()}."
        )
    hits = np.argwhere(spread <= low + 1e-12)  # (n, 2) ties included
    where = names([f"{quote(labels[t])} in head {h}" for h, t in hits[:SHOWN]])
    tied = f" (tied, {count(len(hits), 'row')})" if len(hits) > 1 else ""
    said = f"the sharpest row is {where}{tied}: spread {fmt(low, '.3f')}, where 0 is all weight on one key"
    even_rows, rows = even_count(spread)
    if even_rows:
        said += (
            f"; {even_rows} of {count(rows, 'row')} that have a choice {verb(even_rows, 'is', 'are')} "
            f"spread almost evenly ({even_cause(trained, rows=even_rows)})"
        )
    if H > 1:
        even = int(np.nanargmax(means))
        said += f"; the most even head is head {even} (mean spread {fmt(float(means[even]), '.3f')})"
    return said + f". Here {rule()}."
