"""Heatmap colours: one colour scale whether the attention map's palette, Vega or NumPy paints the cells; specs."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from conftest import MASKED_GREY, assert_clean, attention_maps, open_app, oracle_colour
from ui import charts
from ui.charts import bar_charts, colours, run_charts
from ui.shell import site, state, url

# Written out here, independently of ui/charts.py: the first and last stops of Vega's two schemes.
VIRIDIS_ENDS = ((0x44, 0x01, 0x54), (0xFD, 0xE7, 0x25))
BLUEORANGE_ENDS = ((0x13, 0x4B, 0x85), (0x99, 0x4A, 0x07))
GREY = MASKED_GREY


def test_scheme_stops_are_vegas():
    viridis, blueorange = charts.scheme_colours(charts.WEIGHTS), charts.scheme_colours(charts.SIGNED)
    assert len(viridis) == 31 and len(blueorange) == 11
    for stops, ends in ((viridis, VIRIDIS_ENDS), (blueorange, BLUEORANGE_ENDS)):
        assert tuple(int(stops[0][i : i + 2], 16) for i in (1, 3, 5)) == ends[0]
        assert tuple(int(stops[-1][i : i + 2], 16) for i in (1, 3, 5)) == ends[1]


def test_diverging_ramp_puts_its_middle_stop_at_zero_even_when_lopsided():
    points = charts.ramp_domain(charts.SIGNED, (-1.0, 4.0))
    assert points[0] == -1.0 and points[-1] == 4.0 and points[5] == 0.0
    assert np.all(np.diff(points) > 0)
    assert charts.ramp_domain(charts.WEIGHTS, (0.0, 0.5)) == pytest.approx(np.linspace(0, 0.5, 31))


def _pictures(at) -> dict[str, np.ndarray]:
    """{map title: its cells' colours as (R, C, 3)} for every attention map on the page (its palette indices)."""
    out = {}
    for m in attention_maps(at):
        palette = [colours.rgb(c) for c in m["data"]["palette"]] + [GREY]  # index 255: masked
        out[m["title"]] = np.array([[palette[min(i, len(palette) - 1)] for i in row] for row in m["colour"]])
    return out


@pytest.mark.parametrize("stretch", [False, True], ids=["fixed-0-1", "stretched"])
def test_every_head_map_at_the_maximum_is_a_picture_of_the_traces_weights(stretch):
    """Issue 23 #21: weights on the fixed 0–1 scale by default; stretched (stretch=1) to the largest weight."""
    params = {"seq_len": "64", "d_model": "128", "heads": "16", "d_ff": "512", **({"stretch": "1"} if stretch else {})}
    at = open_app(site.file("heads"), params)
    assert_clean(at)
    controls, _ = url.from_params(params)
    t = engine.run(state.to_config(controls), state.to_tokens(controls).words).layers[0]
    pictures = _pictures(at)
    assert {f"head {h}" for h in range(16)} <= set(pictures), sorted(pictures)
    assert all(m["data"]["raster"] for m in attention_maps(at) if m["title"].startswith("head "))  # on a canvas
    top = float(t.weights.max()) if stretch else 1.0  # one colour scale for all 16 maps
    stops, points = list(charts.scheme_colours(charts.WEIGHTS)), charts.ramp_domain(charts.WEIGHTS, (0.0, top))
    rng = np.random.RandomState(0)
    for h in range(16):
        picture = pictures[f"head {h}"]
        assert picture.shape == (64, 64, 3)
        for r, c in zip(rng.randint(0, 64, 40), rng.randint(0, 64, 40)):
            expect = oracle_colour(float(t.weights[h, r, c]), stops, points)
            assert np.abs(picture[r, c].astype(int) - expect).max() <= 4, (h, r, c)  # one of 255 steps
        r, c = np.unravel_index(np.argmax(t.weights[h]), (64, 64))
        if t.weights[h, r, c] == top:
            assert tuple(picture[r, c]) == VIRIDIS_ENDS[1]


def test_small_maps_stay_vector_with_every_cell_and_a_tooltip():
    at = open_app(site.file("heads"))
    assert_clean(at)
    maps = attention_maps(at)
    assert maps
    for m in maps:
        assert not m["data"]["raster"] and len(m["tips"]) == len(m["rows"]) * len(m["cols"])
        assert m["cells"] is not None or max(len(m["rows"]), len(m["cols"])) > 12  # values printed while small


def test_bar_values_are_printed_in_a_grey_for_both_themes_and_only_while_bars_are_thick():
    few = bar_charts.bars_template(4, False, ".3f").fill(title="t", labels=list("abcd"))
    text = [layer for layer in few["layer"] if layer["mark"]["type"] == "text"]
    assert len(text) == 1 and text[0]["mark"]["color"] == colours.VALUE_TEXT
    many = bar_charts.bars_template(64, False, ".3f").fill(title="t", labels=[f"w{i}" for i in range(64)])
    assert [layer["mark"]["type"] for layer in many["layer"]] == ["bar"]


def test_the_learn_pages_curves_have_titles(monkeypatch):
    """Issue 23 #19: a figure for slides is listed by its title; the Learn page's curves had none."""

    drawn = []

    class Box:
        def vega_lite_chart(self, spec, **_):
            drawn.append(spec)

    run_charts.curves([2.0, 1.0], [0.1, 0.9], box=Box())
    monkeypatch.setattr(run_charts.st, "vega_lite_chart", lambda spec, **_: drawn.append(spec))
    run_charts.history(
        [0, 10], [("previous token", [0.2, 0.9], False)], at_step=None, y_title="mean weight on those keys"
    )
    assert [spec["title"]["text"] for spec in drawn] == [
        "loss and accuracy by training step",
        "mean weight on those keys, by training step",
    ]
