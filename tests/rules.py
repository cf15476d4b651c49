"""Issue 32's rules for words, as checks over any text a page shows (the defect tests and the grid share
them). Each returns what breaks the rule, so a test can print it."""

from __future__ import annotations

import re

from engine.exercise import SAME
from ui.prose.numbers import next_to, parse

_QUOTED = re.compile(r"‘([^’]*)’")
_NUMBER = r"(-?[\d.]+(?:·10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?%?)"


def same_item_twice(text: str) -> list[str]:
    """Every 'from A to B' whose two ends are the same text, or name the same quoted items."""
    found = []
    for m in re.finditer(r"\bfrom (.+?) to ", text):
        a = m.group(1)
        rest = text[m.end() :]
        b = rest[: len(a)]
        names_a, names_b = set(_QUOTED.findall(a)), set(_QUOTED.findall(rest[: len(a) + 40].split(")")[0] + ")"))
        if re.fullmatch(r"[a-z]+", a):  # an idiom: "differ from row to row"
            continue
        if a == b or (names_a and names_a == names_b):
            found.append(f"…{text[max(0, m.start() - 30) : m.end() + len(a) + 10]}…")
    return found


def one_minus_tiny(text: str) -> list[str]:
    """Every '1 − x' (a factor written as 1 minus a share) whose x is rounding: such a factor is 1."""
    return [m.group(0) for m in re.finditer(r"1 − " + _NUMBER, text) if parse(m.group(1)) <= SAME]


def off_scale(text: str) -> list[str]:
    """Every magnitude word that is not the one scale's word for the ratio printed beside it."""
    found = []
    for m in re.finditer(r"e\^s/Z = " + _NUMBER + r": e\^s is (.+?) its old total Z", text):
        value = parse(m.group(1))
        if value > 0 and m.group(2) != next_to(value) and not (value < 0.0005 and m.group(2) == "tiny next to"):
            found.append(m.group(0))
    for m in re.finditer(r"by " + _NUMBER + r" on average per entry, (.+?) the " + _NUMBER, text):
        moved, carried = parse(m.group(1)), parse(m.group(3))
        if carried > 0 and m.group(2) != next_to(moved / carried):
            near = [next_to(moved * (1 + e) / (carried * (1 + f))) for e in (-5e-3, 5e-3) for f in (-5e-3, 5e-3)]
            if m.group(2) not in near:  # printed with 3 decimals: rounding
                found.append(m.group(0))
    # the scores page: the scaled spread next to the product of q's and k's stds (both printed with 2 decimals)
    for m in re.finditer(
        r"spread with std " + _NUMBER + r" \(raw " + _NUMBER + r", every head\): (.+?) the " + _NUMBER + r" \(", text
    ):
        scaled, product = parse(m.group(1)), parse(m.group(4))
        near = {
            next_to((scaled + e) / (product + f)) for e in (-5e-3, 0, 5e-3) for f in (-5e-3, 0, 5e-3) if product + f > 0
        }
        if product > 0 and m.group(3) not in near:
            found.append(m.group(0))
    found += [
        m.group(0)
        for m in re.finditer(r"\b(?:large|small|tiny|huge) next to\b", text)
        if not re.search(r"(e\^s is|average per entry, |every head\): )\s*$", text[max(0, m.start() - 30) : m.start()])
    ]
    return found


def too_few(text: str, minimum: int) -> list[str]:
    """Every 'k of n …' share stated as a finding on fewer than `minimum` cases."""
    return [
        m.group(0)
        for m in re.finditer(r"(\d+) of (\d+) (?:sequences|cases)\b", text)
        if int(m.group(2).replace(",", "")) < minimum and "too few" not in text[m.start() - 80 : m.start()]
    ]
