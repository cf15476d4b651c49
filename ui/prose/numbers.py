"""Numbers as a sentence, a table or a formula shows them, true by construction:

* a nonzero number never prints as 0: below the shown precision it switches to scientific notation
  (2.5·10⁻⁹), and so does a huge one (9.4·10¹⁰, never a 19-digit float);
* −∞ prints as "−∞" (a masked score), never "inf"; NaN prints as "—" (callers say why: "—, one key");
* no negative zero;
* one amount next to another is worded on one scale (next_to).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

ROUNDING = 1e-12  # a difference this small (relative to the numbers compared) is floating-point rounding
HUGE = 1e6  # from here on a fixed-point number is written in scientific notation
SIG = 2  # significant digits of a number in scientific notation
MASKED = "−∞ (masked)"  # a score the causal mask hides, in a table cell
ONE_KEY = "—, one key"  # a row that sees one key has no spread
_SUPER = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_FIXED = re.compile(r"([+ ]?)(?:,?)\.(\d+)([f%])")


def is_rounding(x: float, scale: float = 1.0) -> bool:
    """|x| is at most ROUNDING times the size of the numbers it is a difference of (at least 1)."""
    return abs(float(x)) <= ROUNDING * max(1.0, abs(float(scale)))


def _sci(x: float, tex: bool, decimals: int = SIG - 1) -> str:
    """x in scientific notation (SIG significant digits unless told): '2.5·10⁻⁹', or LaTeX '2.5 \\cdot 10^{-9}'."""
    mantissa, exponent = f"{x:.{decimals}e}".split("e")
    power = int(exponent)
    if tex:
        return rf"{mantissa} \cdot 10^{{{power}}}"
    return f"{mantissa}·10{str(power).translate(_SUPER)}"


def fmt(x: float, spec: str, tex: bool = False) -> str:
    """format(x, spec), true to the number: scientific notation where the spec would print a nonzero
    number as 0 or print a huge one in full, '−∞'/'∞' for infinities, '—' for NaN, no '−0'.
    tex=True gives the same number for st.latex."""
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return (r"-\infty" if x < 0 else r"\infty") if tex else ("−∞" if x < 0 else "∞")
    fixed = _FIXED.fullmatch(spec)
    if fixed and x != 0:
        digits, percent = int(fixed.group(2)), fixed.group(3) == "%"
        shown = abs(x) * (100 if percent else 1)
        if shown < 0.5 * 10**-digits or shown >= HUGE:
            return _sci(x * (100 if percent else 1), tex) + (r"\%" if tex and percent else "%" if percent else "")
    text = format(x, spec)
    if "e" in text.lower():  # a 'g' or 'e' spec chose an exponent: write it out
        if x == 0:
            return "0"
        if spec.endswith(("e", "E")):
            digits = re.search(r"\.(\d+)", spec)
            return _sci(x, tex, int(digits.group(1)) if digits else 6)
        digits = re.search(r"\.(\d+)", spec)
        return _sci(x, tex, max(0, (int(digits.group(1)) if digits else 6) - 1))
    mantissa = text.split("e")[0]
    if text.startswith("-") and not any(ch in "123456789" for ch in mantissa):
        text = text[1:]
    return text.replace("%", r"\%") if tex else text


def parse(text: str) -> float:
    """A number as fmt wrote it, read back (for tests and exports): '2.5·10⁻⁹', '−∞', '—', '12.5%'."""
    text = str(text).strip().replace("\\", "").replace("−", "-")
    if text in ("—", "") or text.startswith("—"):
        return float("nan")
    if text.endswith(("∞", "∞ (masked)")) or "∞" in text:
        return float("-inf") if text.startswith("-") else float("inf")
    percent = text.endswith("%")
    text = text.rstrip("%").strip()
    if "·10" in text:
        mantissa, power = text.split("·10")
        value = float(mantissa) * 10.0 ** int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
    else:
        value = float(text)
    return value / 100 if percent else value


def power(x: float) -> str:
    """A power of ten as a sentence writes it: power(1e-12) -> '10⁻¹²'."""
    return "10" + str(round(math.log10(float(x)))).translate(_SUPER)


def tex(x: float, spec: str) -> str:
    """fmt for a formula (st.latex)."""
    return fmt(x, spec, tex=True)


def score(x: float, spec: str = ".4f") -> str:
    """A score for a table cell: a masked one (−∞) says so."""
    return MASKED if x == -math.inf else fmt(x, spec)


def spread(x: float, spec: str = ".3f") -> str:
    """A row's spread for a table cell: a row that sees one key has none."""
    return ONE_KEY if math.isnan(float(x)) else fmt(x, spec)


def metric(x: float, scale: float = 1.0) -> str:
    """A difference, error or check for a metric or table cell: '0' when it is rounding, else 2 digits."""
    return "0" if is_rounding(x, scale) else fmt(x, ".2g")


def diff(x: float, scale: float = 1.0) -> str:
    """A difference where its size is the point: '0', '0 up to rounding (6·10⁻¹⁷)', or its value."""
    x = float(x)
    if x == 0:
        return "0"
    if is_rounding(x, scale):
        return f"0 up to rounding ({fmt(abs(x), '.0e')})"
    return fmt(x, ".3g")


MIN_CASES = 30  # a share or rate measured on fewer cases than this is "too few … to tell", never a finding

# One scale for the words of magnitude, wherever one amount is compared with another (a / b): "tiny next
# to" under a thousandth, "small next to" up to a fifth, "large next to" from five times up; in between
# the ratio itself is the word ("33% of", "1.7 times"): a third is neither small nor large.
TINY, SMALL, LARGE = 1e-3, 0.2, 5.0


def next_to(ratio: float) -> str:
    """How a compares with b, from a / b, on the one scale: 'tiny next to', 'small next to', '33% of',
    'about as large as', '1.7 times', 'large next to'."""
    ratio = float(ratio)
    if math.isnan(ratio):
        raise ValueError("a ratio of NaN compares nothing")
    if ratio < TINY:
        return "tiny next to"
    if ratio <= SMALL:
        return "small next to"
    if ratio < 0.95:
        return f"{fmt(ratio, '.0%')} of"
    if ratio < 1.05:
        return "about as large as"
    return f"{fmt(ratio, '.2g')} times" if ratio < LARGE else "large next to"


def training(step: int, steps: int, loss: float, accuracy: float) -> str:
    """A training's progress line (the Learn page's bar; a class run's): 'step 240 of 480: loss 1.234, accuracy
    45%'."""
    return f"step {step} of {steps}: loss {fmt(loss, '.3f')}, accuracy {fmt(accuracy, '.0%')}"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """'1 row', '2 rows', '8,192 hidden values': the one helper for a count and its noun (thousands separated,
    as fmt(n, ',.0f') prints every other count)."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def verb(n: int, singular: str, plural: str) -> str:
    """The verb agreeing with a count: verb(1, 'is', 'are') -> 'is'."""
    return singular if n == 1 else plural


def names(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def every(n: int, noun: str, plural: str | None = None) -> str:
    """'the only row', 'both rows', 'all 3 rows'."""
    if n == 1:
        return f"the only {noun}"
    return f"both {plural or noun + 's'}" if n == 2 else f"all {n} {plural or noun + 's'}"


def vocabulary(vocab) -> str:
    """A task's tokens for a sentence: every one where they are few, else how many and what they are."""
    if len(vocab) <= 20:
        return " ".join(vocab)
    return (
        f"{len(vocab):,} tokens ({vocab[0]} for every other word, and the {len(vocab) - 1:,} most frequent of its text)"
    )


def from_to(low: float, high: float, spec: str = ",") -> str:
    """A range as a sentence says it: '12 to 256', or one number where its ends are equal ('256', never
    '256 to 256'); each end through fmt (spec ',' for whole counts)."""

    def one(x: float) -> str:
        return f"{int(x):,}" if spec == "," else fmt(x, spec)

    low_said, high_said = one(low), one(high)
    return low_said if low_said == high_said else f"{low_said} to {high_said}"


def three(x: float) -> str:
    """Three decimals from 1 up, three significant digits below (0.00136, not 0.001): a ratio of two such
    numbers reads true to about 1%."""
    return fmt(x, ".3f") if abs(x) >= 1 else fmt(x, "#.3g")


def pairs(found: list[tuple[int, int]], labels, quote: Callable[[str], str], shown: int = 6) -> str:
    """(query, key) pairs tied at the top, named: 'query ‘a’ with key ‘b’', 'query ‘a’ with keys ‘b’ and ‘c’,
    tied', 'queries … with keys …, tied (n pairs)' where every such query ties with every such key, else
    the pairs (the first `shown`, then how many more)."""

    def some(idx):
        said = [quote(labels[k]) for k in idx]
        return names(said[:shown] + ([f"{len(said) - shown} more"] if len(said) > shown else []))

    queries = sorted({i for i, _ in found})
    keys = sorted({j for _, j in found})
    if len(found) == 1:
        return f"query {quote(labels[queries[0]])} with key {quote(labels[keys[0]])}"
    if len(found) == len(queries) * len(keys):
        who = f"query {some(queries)}" if len(queries) == 1 else f"queries {some(queries)}"
        return f"{who} with keys {some(keys)}, tied" + (f" ({len(found)} pairs)" if len(queries) > 1 else "")
    listed = [f"{quote(labels[i])} → {quote(labels[j])}" for i, j in found]
    return "the tied pairs " + names(
        listed[:shown] + ([count(len(listed) - shown, "more pair")] if len(listed) > shown else [])
    )
