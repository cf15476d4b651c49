"""Charts a screen reader can read and numbers anyone can read: every chart the pages draw carries a
description computed from its numbers, and every value printed in a heatmap cell has 4.5:1 contrast
with the cell's colour, over the whole colour scale."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from conftest import PAGES, attention_maps, open_app
from ui.charts import colours as co
from ui.charts import describe

WCAG_AA_TEXT = 4.5


# --------------------------------------------------------------------------- contrast
def chosen_text(test: str, value: float) -> str:
    """The text colour maps.py's Vega test gives a cell holding `value` (the test evaluated as Python)."""
    python = test.replace("datum.value", repr(float(value))).replace("&&", " and ").replace("||", " or ")
    light = eval(python.replace("true", "True").replace("false", "False"), {})  # noqa: S307 (our own string)
    return co.CELL_TEXT_LIGHT if light else co.CELL_TEXT_DARK


@pytest.mark.parametrize(
    "scheme, domain",
    [(co.SIGNED, (-1.0, 1.0)), (co.SIGNED, (-0.3, 2.5)), (co.WEIGHTS, (0.0, 1.0)), (co.WEIGHTS, (0.0, 0.4))],
)
def test_cell_values_have_aa_contrast_over_the_whole_scale(scheme, domain):
    """Sweep every value across the colour scale (and past its ends, where it is clamped): the cell's
    colour as Vega interpolates it, the text colour the chart's test picks, at least 4.5:1."""
    test = co.light_text_test(scheme, domain)
    stops = co.ramp_domain(scheme, domain)
    low, high = domain
    worst = []
    for value in np.linspace(low - 0.1 * (high - low), high + 0.1 * (high - low), 4001):
        position = np.interp(value, stops, np.linspace(0, 1, len(stops)))  # clamped at the ends
        fill = co.colour_at(scheme, position)
        ratio = co.contrast(fill, chosen_text(test, value))
        worst.append((ratio, value, fill))
    ratio, value, fill = min(worst)
    assert ratio >= WCAG_AA_TEXT, f"value {value:.3f} on {fill}: {ratio:.2f}:1"


def test_contrast_matches_wcag_examples():
    assert co.contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert co.contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


# --------------------------------------------------------------------------- descriptions
def test_a_heatmap_description_names_its_extremes_and_where():
    m = np.array([[0.1, 0.9], [0.5, -0.2]])
    text = describe.matrix(m, ["a", "b"], ["x", "y"], "weights", "query", "key")
    assert "2 rows (query) × 2 columns (key)" in text
    assert "largest 0.9 at row 0 'a', column 1 'y'" in text
    assert "smallest -0.2 at row 1 'b', column 1 'y'" in text
    hidden = describe.matrix(m, ["a", "b"], ["x", "y"], mask=np.array([[True, False], [True, True]]))
    assert "largest 0.5" in hidden and "1 cell hidden" in hidden
    tiny = describe.matrix(np.array([[1e-5, 2e-5], [3e-5, -0.0]]), ["a", "b"], ["x", "y"])
    assert "largest 3.00·10⁻⁵" in tiny and "smallest 0 at" in tiny, tiny  # as the pages print them
    assert not re.search(r"e-0|-0\b|nan|inf", tiny), tiny


NUMBER = re.compile(r"-?\d+(\.\d+)?")


def _specs(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]


@pytest.mark.parametrize(
    "params", [{"preset": "part4"}, {"preset": "trained-induction", "layer": "1"}], ids=["part4", "trained-induction"]
)
def test_every_chart_on_every_page_has_a_description_from_its_numbers(params):
    """AppTest every page; each vega_lite chart's spec has a description with its largest and smallest
    numbers, and the marks that draw only outlines are hidden from the accessibility tree; each attention map's
    text alternative (its grid's description) names its largest and smallest numbers, and its cells' printed
    values have 4.5:1 contrast (the ink Python picked per palette colour)."""
    drawn = 0
    for page in PAGES:
        at = open_app(page, params, timeout=120)
        assert not at.exception, at.exception
        for spec in _specs(at):
            drawn += 1
            about = spec.get("description", "")
            assert about and len(NUMBER.findall(about)) >= 2, f"{page}: chart without numbers: {about!r}"
            assert "largest" in about or "point" in about, f"{page}: {about!r}"
            for layer in spec.get("layer", []):
                mark = layer.get("mark", {})
                if isinstance(mark, dict) and mark.get("fill", "") is None:  # an outline
                    assert mark.get("aria") is False, f"{page}: outline layer not hidden: {mark}"
        for m in attention_maps(at):
            drawn += 1
            assert len(NUMBER.findall(m["about"])) >= 2 and "largest" in m["about"], f"{page}: {m['about']!r}"
            values = m["values"][m["shown"]]
            if values.size and np.nanmax(values) != np.nanmin(values):
                assert describe.number(float(np.nanmax(values))).replace("-", "−")[:3] in m["about"].replace("-", "−")
            palette, ink = m["data"]["palette"], m["data"]["ink"]
            for i in set(m["colour"].ravel()) - {255}:
                assert co.contrast(palette[i], "#ffffff" if ink[i] == "1" else "#000000") >= WCAG_AA_TEXT
    assert drawn >= 15
