"""Numbers as a sentence or a table shows them: no negative zero, and rounding-sized values as 0."""
from __future__ import annotations

import math

ROUNDING = 1e-12      # a difference this small (relative to the numbers compared) is floating-point rounding


def is_rounding(x: float, scale: float = 1.0) -> bool:
    """|x| is at most ROUNDING times the size of the numbers it is a difference of (at least 1)."""
    return abs(float(x)) <= ROUNDING * max(1.0, abs(float(scale)))


def fmt(x: float, spec: str) -> str:
    """format(x, spec), with '−0.000' (a negative number that rounds to zero) printed as '0.000'."""
    text = format(float(x), spec)
    mantissa = text.split("e")[0]
    return text[1:] if text.startswith("-") and not any(ch in "123456789" for ch in mantissa) else text


def metric(x: float, scale: float = 1.0) -> str:
    """A difference, error or check for a metric or table cell: '0' when it is rounding, else 2 digits."""
    return "0" if is_rounding(x, scale) else fmt(x, ".2g")


def diff(x: float, scale: float = 1.0) -> str:
    """A difference where its size is the point: '0', '0 up to rounding (6e-17)', or its value."""
    x = float(x)
    if x == 0:
        return "0"
    if is_rounding(x, scale):
        return f"0 up to rounding ({abs(x):.0e})"
    return fmt(x, ".3g") if math.isfinite(x) else str(x)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """'1 row', '2 rows'."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def names(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def every(n: int, noun: str, plural: str | None = None) -> str:
    """'the only row', 'both rows', 'all 3 rows'."""
    if n == 1:
        return f"the only {noun}"
    return f"both {plural or noun + 's'}" if n == 2 else f"all {n} {plural or noun + 's'}"
