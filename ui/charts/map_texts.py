"""Every number an attention map shows, as text (the component assembles these texts and writes no number of its
own): a tooltip's or a worked calculation's value (describe.number: three significant digits, '−∞', never 0 for a
nonzero number, with a true minus sign), a factor of a written product, a value inside a small map's cell; and the
same for a whole array at once, which the maps' payloads use (a payload of T × T × d products at T = 16 is ~2,000
texts)."""

from __future__ import annotations

import math

import numpy as np

from ui.charts import describe
from ui.prose.numbers import fmt


def number(x: float) -> str:
    """A value as the tooltip and the worked calculation print it: describe.number (3 significant digits,
    '−∞', never 0 for a nonzero number), with a true minus sign."""
    return describe.number(x).replace("-", "\u2212")


def factor(x: float) -> str:
    """A factor of a written product: number(x), in parentheses when negative ('(−0.98)')."""
    text = number(x)
    return f"({text})" if text.startswith("\u2212") else text


def numbers(values: np.ndarray) -> list[str]:
    """number(x) of every entry (flattened), ~6× faster: Python's own '.3g' where it already reads as fmt's rule
    wants (no exponent, not ±∞ or NaN, not '-0'), else number(x) itself (tests/test_attention_map.py checks that
    both agree on every kind of value)."""
    out = []
    for x in np.asarray(values, dtype=np.float64).ravel().tolist():
        text = format(x, ".3g")
        out.append(number(x) if "e" in text or "n" in text or text == "-0" else text.replace("-", "\u2212"))
    return out


def factors(values: np.ndarray) -> list[str]:
    """factor(x) of every entry (flattened), as numbers() is number(x)."""
    return [f"({t})" if t.startswith("\u2212") else t for t in numbers(values)]


def cell_text(x: float, spec: str = ".2f") -> str:
    """A value printed inside a small map's cell, `spec`, except
    that a nonzero value too small for it reads '<0.01' (or '>−0.01'), never 0.00; −∞ reads '−∞'."""
    x = float(x)
    if math.isinf(x) or math.isnan(x):
        return fmt(x, spec)
    decimals = int(spec[1:-1]) if spec[:1] == "." and spec[-1:] == "f" and spec[1:-1].isdigit() else None
    if decimals is not None and x != 0 and abs(x) < 0.5 * 10.0**-decimals:
        unit = f"{10.0**-decimals:.{decimals}f}"
        return f"<{unit}" if x > 0 else f">\u2212{unit}"
    return fmt(x, spec).replace("-", "\u2212")
