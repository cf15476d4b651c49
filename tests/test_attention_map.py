"""ui.charts.attention_map (issue 49's attention-map component, not yet wired into the pages): its payload in pure
Python (every number as fmt prints it, masked cells as −∞, labels passed through as text, its size), and in
headless Chromium on tests/apps/attention_map_app.py: a mouse click, arrow keys + Enter and Space each show the
worked calculation in the aria-live region with 0 server runs, hostile labels stay text, 64 × 64 is painted on a
canvas, and axe-core finds no serious or critical violation."""

from __future__ import annotations

import base64
import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.strategies import floats as st_floats

from ui.charts import attention_map as am
from ui.charts import map_texts
from ui.prose.numbers import parse

HOSTILE = ["<img src=x onerror=alert(1)>", "<script>alert(2)</script>", "ok", "cat"]


def case(T: int, d: int = 8, seed: int = 0):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(T, d)), rng.normal(size=(T, d))
    mask = np.tril(np.ones((T, T), bool))
    scores = np.where(mask, q @ k.T / math.sqrt(d), -np.inf)
    scores[0, 0] = 3e-7  # a tiny nonzero score
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return q, k, mask, scores, weights


def data(T: int, work: bool = True, d: int = 8) -> dict:
    q, k, mask, scores, weights = case(T, d)
    w = am.worked(q, k, weights, mask) if work else None
    labels = [HOSTILE[i] if i < 4 else f"w{i}" for i in range(T)]
    return am.payload([am.Panel(scores, "Scores", mask, w), am.Panel(weights, "Weights", mask, w)], labels)


def size(payload: dict) -> int:
    return len(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode())


def texts(payload: dict) -> list[str]:
    """Every number-like text the payload carries."""
    out = []
    for m in payload["maps"]:
        out += m["tips"].split("|") + (m["cells"].split("|") if m["cells"] else [])
        w = payload["works"][m["work"]] if m.get("work") is not None else {}
        for v in (w.get("cell") or {}).values():
            out += [t for x in v.split("|") for t in x.split(";")]
        for part in ("row", "col"):
            for v in (w.get(part) or {}).values():
                out += [t for x in v for t in x.split("|")]
    return out


def test_no_number_prints_as_zero_nan_or_inf():
    payload = data(6)
    shown = texts(payload)
    assert shown
    for t in shown:
        assert "nan" not in t.lower() and "inf" not in t.lower(), t
        assert not re.fullmatch(r"[−-]?0\.0+", t), f"a nonzero number printed as {t!r}"
        assert "-" not in t, f"a hyphen for a minus in {t!r}"
    scores = payload["maps"][0]
    assert scores["tips"].split("|")[0] == "3.00·10⁻⁷" and scores["cells"].split("|")[0] == "<0.01"


def test_masked_cells_print_minus_infinity_and_are_coloured_as_masked():
    payload = data(5)
    scores = payload["maps"][0]
    tips, cells = scores["tips"].split("|"), scores["cells"].split("|")
    colour = base64.b64decode(scores["colour"])
    for r in range(5):
        for c in range(5):
            k = r * 5 + c
            assert (tips[k] == "−∞") == (c > r) and (cells[k] == "−∞") == (c > r)
            assert (colour[k] == am.MASKED) == (c > r)
    assert "hidden" in scores["about"] and payload["mask"]["shown"]


def test_the_numbers_read_back_to_the_matrix():
    q, k, mask, scores, weights = case(6)
    payload = am.payload([am.Panel(weights, "W", mask)], list("abcdef"), signed=False)
    tips = payload["maps"][0]["tips"].split("|")
    for (r, c), x in np.ndenumerate(weights):
        if mask[r, c]:
            assert parse(tips[r * 6 + c]) == pytest.approx(x, rel=5e-3, abs=1e-12)
    assert payload["legend"]["title"].startswith("weight") and payload["palette"][0] == "#440154"


def test_labels_pass_through_as_text_and_the_description_is_computed():
    payload = data(4)
    assert payload["rows"] == HOSTILE and payload["cols"] == HOSTILE
    about = payload["maps"][0]["about"]
    assert about.startswith("Scores. Heatmap of 4 rows (query) × 4 columns (key): largest")


def test_one_colour_scale_for_a_comparison():
    a = np.array([[1.0, -1.0], [0.0, 0.5]])
    payload = am.payload([a, a * 2], ["x", "y"])
    first, second = (base64.b64decode(m["colour"]) for m in payload["maps"])
    assert first[0] < second[0] and second[0] == am.LEVELS - 1  # 1 is half of the shared top, 2
    assert payload["legend"]["ticks"][1] == [50.0, "0"]


@pytest.mark.parametrize("signed", [True, False])
def test_the_colours_are_the_oracles_and_the_ink_reads(signed):
    from conftest import paint_oracle
    from ui.charts import colours as co

    q, k, mask, scores, weights = case(12)
    values = scores if signed else weights
    payload = am.payload([am.Panel(values, "M", mask)], [f"t{i}" for i in range(12)], signed=signed)
    scheme = co.SIGNED if signed else co.WEIGHTS
    domain = co.symmetric_domain(np.where(mask, values, 0)) if signed else co.FIXED
    painted = paint_oracle(np.where(mask, values, np.nan), scheme, domain)
    index = np.frombuffer(base64.b64decode(payload["maps"][0]["colour"]), np.uint8)
    for i, want in zip(index, painted):
        got = co.rgb(payload["mask"]["fill"] if i == am.MASKED else payload["palette"][i])
        assert np.abs(np.array(got) - want).max() <= 4, (got, want)  # 255 steps along the scale
    for colour, ink in zip(payload["palette"], payload["ink"]):
        assert co.contrast(colour, "#ffffff" if ink == "1" else "#000000") >= 4.5


def test_the_worked_calculation_and_the_payload_size():
    small, large = data(16), data(64)
    w = small["works"][small["maps"][0]["work"]]
    assert "products" in w["cell"] and "{product_terms}" in " ".join(w["lines"])
    assert len(small["works"]) == 1 and "products" not in large["works"][0]["cell"]  # 64² · 8 > PRODUCTS_MAX
    assert not small["raster"] and large["raster"] and small["maps"][0]["cells"] is None
    sizes = {T: size(data(T)) for T in (16, 64)}
    bare = {T: size(data(T, work=False)) for T in (16, 64)}
    print(f"\npayload: {sizes} bytes with the worked calculation, {bare} without")
    assert sizes[16] < 40_000 and sizes[64] < 200_000 and bare[64] < 100_000  # the module docstring's figures


def test_the_app_mounts_one_registered_component_per_key():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file("apps/attention_map_app.py", default_timeout=30).run()
    assert not at.exception
    mounted = at.get("bidi_component")
    assert [e.key for e in mounted] == ["scores", "weights"]
    assert {e.proto.component_name for e in mounted} == {am.NAME}
    sent = am.decoded(mounted[0])
    assert sent["rows"][0] == HOSTILE[0] and not sent["report"] and sent["maps"][0]["title"] == "Scaled scores"


# ------------------------------------------------------------------------------------ in the browser
APP = "tests/apps/attention_map_app.py"


@pytest.fixture(scope="module")
def tab(playwright):
    from harness import browser as bs

    with (
        bs.chromium(playwright) as context,
        bs.Server(app=APP, log_name="attention-map-tests.log") as server,
    ):
        bs.instrument(context)
        page = context.new_page()
        errors: list[str] = []
        dialogs: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        runs = bs.Runs(page)

        def open_app(query: str = "") -> None:
            before = runs.finished
            page.goto(server.url + "/" + query)
            runs.wait_for(page, before + 1, timeout=60)
            page.locator("[data-testid='attention-map-grid']").first.wait_for(timeout=30_000)
            bs.wait_ready(page, timeout=60)

        yield page, runs, open_app, errors, dialogs


def work_text(page, n: int = 0) -> str:
    return page.locator("[data-testid='attention-map-work']").nth(n).inner_text()


@pytest.mark.browser
def test_picks_are_answered_in_the_browser(tab):
    page, runs, open_app, errors, dialogs = tab
    open_app()
    before = runs.finished
    grid = page.locator("[data-testid='attention-map-grid']").first
    # a mouse click on query 3 ('cat') → key 2 ('ok')
    grid.locator("td[role='gridcell'][data-r='3'][data-c='2']").click()
    shown = work_text(page)
    assert "query cat → key ok" in shown and "q·k = " in shown and "softmax share of row cat" in shown, shown
    # arrow keys then Enter: from (3, 2) up one and left one → (2, 1)
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    assert "query ok → key <script>alert(2)</script>" in work_text(page)
    # Space on a masked cell: (2, 2) → right → (2, 3)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press(" ")
    assert "masked: the key comes after the query" in work_text(page)
    live = page.locator("[aria-live='polite']").first
    assert live.inner_text().strip()
    page.wait_for_timeout(500)
    assert runs.finished == before, "a pick ran the script"
    assert page.get_by_text(re.compile(r"^runs: 1$")).count() == 1
    # the component's text is Python's for the same cell: the app's numbers, recomputed here
    rng = np.random.default_rng(7)
    q, k = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    page.locator("[data-testid='attention-map-grid']").first.locator("td[data-r='3'][data-c='1']").click()
    shown = work_text(page).splitlines()
    assert (
        f"= {map_texts.number(q[3] @ k[1])}" in shown and f"÷ √4 = ÷ 2 → {map_texts.number(q[3] @ k[1] / 2)}" in shown
    ), shown
    assert runs.finished == before
    # roving tab index: one tab stop per grid
    assert grid.locator("[tabindex='0']").count() == 1
    assert not errors and not dialogs


@pytest.mark.browser
def test_hostile_labels_stay_text(tab):
    page, runs, open_app, errors, dialogs = tab
    open_app()
    made = page.evaluate(
        """() => [...document.querySelectorAll('*')].filter(e => e.shadowRoot).reduce((n, e) =>
             n + e.shadowRoot.querySelectorAll('img, script').length, 0)"""
    )
    assert made == 0
    assert page.get_by_text("<img src=x onerror=alert(1)>", exact=True).count() >= 2
    assert not dialogs and not errors


@pytest.mark.browser
def test_a_large_map_is_painted_on_a_canvas(tab):
    page, runs, open_app, errors, dialogs = tab
    open_app("?t=64")
    grid = page.locator("[data-testid='attention-map-grid']").first
    assert page.locator(".stage canvas").count() == 2 and page.locator("td[role='gridcell']").count() == 0
    before = runs.finished
    box = page.locator(".stage canvas").first.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.9, box["y"] + box["height"] * 0.95)
    assert "query w60 → key w57" in work_text(page), work_text(page)
    grid.locator("[role='gridcell']").focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    assert "softmax share" in work_text(page)
    page.wait_for_timeout(400)
    assert runs.finished == before and not errors


@pytest.mark.browser
def test_report_pick_sends_one_run_per_pick(tab):
    page, runs, open_app, errors, dialogs = tab
    open_app("?report=1")
    before = runs.finished
    page.locator("[data-testid='attention-map-grid']").nth(1).locator("td[data-r='2'][data-c='1']").click()
    runs.wait_for(page, before + 1)
    page.get_by_text("picked: {'map': 0, 'row': 2, 'col': 1}").wait_for(timeout=10_000)
    page.wait_for_timeout(500)
    assert runs.finished == before + 1 and "query ok" in work_text(page, 1) and not errors


@pytest.mark.browser
def test_axe_finds_nothing_serious(tab):
    from axe_playwright_python.sync_playwright import Axe

    page, runs, open_app, errors, dialogs = tab
    bad = []
    for query in ("", "?t=64", "?present=1&t=12"):
        open_app(query)
        result = Axe().run(
            page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
        )
        bad += [
            (query, v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
            for v in result.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        inside = [
            v["id"] for v in result.response["passes"] if any(isinstance(n["target"][0], list) for n in v["nodes"])
        ]
        assert "aria-required-children" in inside, "axe did not look inside the component's shadow root"
    assert not bad, bad


@pytest.mark.browser
def test_a_tap_on_a_phone_picks_a_cell(playwright):
    from harness import browser as bs

    phone = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
    with bs.chromium(playwright, **phone) as context, bs.Server(app=APP, log_name="attention-map-phone.log") as server:
        page = context.new_page()
        runs = bs.Runs(page)
        page.goto(server.url + "/?t=40")
        page.locator("[data-testid='attention-map-grid']").first.wait_for(timeout=60_000)
        runs.wait_for(page, 1, timeout=60)
        page.wait_for_timeout(500)
        box = page.locator(".stage canvas").first.bounding_box()
        assert box["width"] <= 390
        page.touchscreen.tap(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.99)
        assert "query w39" in work_text(page), work_text(page)
        page.wait_for_timeout(400)
        assert runs.finished == 1


def test_the_legend_names_what_the_colours_stand_for_and_the_hint_what_a_pick_shows():
    a = np.array([[1.0, -1.0], [0.0, 0.5]])
    plain = am.payload([a], ["x", "y"])  # a signed matrix that is not a score (X, Q, a concat): its entries
    assert plain["legend"]["title"] == "entry" and plain["hint"].endswith("its value appears below.")
    assert am.payload([a], ["x", "y"], legend="score")["legend"]["title"] == "score"
    spread = am.payload([np.full((2, 2), 0.5)], ["x", "y"], signed=False, domain=(0.0, 1.0), legend="spread")
    assert spread["legend"]["title"] == "spread (fixed 0–1)"
    q, k, mask, scores, weights = case(4)
    work = am.worked(q, k, weights, mask)
    picked = am.payload([am.Panel(scores, "S", None, work)], list("abcd"), legend="score")
    assert picked["hint"].endswith("its calculation appears below.")


@pytest.mark.parametrize(
    "page, title, legend",
    [
        ("scores", "raw scores", "score"),
        ("heads", "spread", "spread (fixed 0–1)"),
        ("heads", "concat", "entry"),
        ("output", "FFN hidden", "activation"),
        ("qkv", "Q", "entry"),
    ],
)
def test_each_pages_maps_say_what_their_colours_are(page, title, legend):
    from conftest import attention_maps, open_app
    from ui.shell import site

    at = open_app(site.by_path(page).file)
    found = [m for m in attention_maps(at) if m["title"].startswith(title)]
    assert found, [m["title"] for m in attention_maps(at)]
    assert all(m["data"]["legend"]["title"] == legend for m in found)


EDGES = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    999.4,
    999.5,
    -999.5,
    1e6,
    -1e6,
    123456.0,
    1e-4,
    9.99e-5,
    1.2345e-5,
    -1e-5,
    1e-300,
    5e-324,
    1.7e308,
    math.inf,
    -math.inf,
    math.nan,
    0.001,
    0.0009995,
    2.675,
    1234.5,
]


@settings(max_examples=300, deadline=None)
@given(st_floats(allow_nan=True, allow_infinity=True, width=64))
def test_a_whole_array_reads_as_each_value_would(x):
    """map_texts.numbers and factors (the payloads' fast path) give exactly number(x) and factor(x), every kind of
    value: an exponent, ±∞, NaN, −0, a rounding to 1000, a subnormal."""
    values = np.array([x, -x, *EDGES])
    assert map_texts.numbers(values) == [map_texts.number(v) for v in values]
    assert map_texts.factors(values.reshape(1, -1)) == [map_texts.factor(v) for v in values]
