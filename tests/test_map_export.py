"""The attention map's figure for slides (ui/charts/attention_map_export.js), in headless Chromium on
tests/apps/attention_map_app.py: "Save SVG" downloads the maps as drawn (every cell a rect in the palette's colour,
the token labels as text, hostile ones included, the values in the cells, the legend), "Save PNG ×3" a picture three
times the figure's size; neither runs the script. A 64 × 64 map zooms (×2, ×4, buttons) and pans inside
its own box on a phone; the page never scrolls sideways."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import pytest

APP = "tests/apps/attention_map_app.py"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def app(playwright):
    from harness import browser as bs

    with (
        bs.chromium(playwright, accept_downloads=True) as context,
        bs.Server(app=APP, log_name="map-export-tests.log") as server,
    ):
        bs.instrument(context)
        page = context.new_page()
        runs = bs.Runs(page)

        def open_app(query: str = "") -> None:
            before = runs.finished
            page.goto(server.url + "/" + query)
            runs.wait_for(page, before + 1, timeout=60)
            page.locator("[data-testid='attention-map-grid']").first.wait_for(timeout=30_000)
            bs.wait_ready(page, timeout=60)

        yield page, runs, open_app


def download(page, name: str, n: int = 0):
    with page.expect_download(timeout=20_000) as info:
        page.get_by_role("button", name=name).nth(n).click()
    return info.value


@pytest.mark.browser
def test_svg_holds_the_maps_cells_labels_and_values(app):
    page, runs, open_app = app
    open_app("?t=5")
    before = runs.finished
    got = download(page, "Save SVG")
    assert got.suggested_filename == "scaled-scores.svg"
    root = ET.fromstring(open(got.path(), "rb").read())
    rects = [r for r in root.iter(f"{SVG}rect") if r.get("fill", "").startswith("#")]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    # a white background, 5 × 5 cells (the highlighted token's row and column outlined: fill none)
    assert len(rects) == 1 + 25 + 1, len(rects)  # and the legend's swatch of a masked cell
    # hostile labels are text, not markup; too long for their margin (17 characters here), cut with …
    assert "<script>alert(2)…" in texts and "<img src=x onerr…" in texts and "ok" in texts
    # the title, a masked score as the page prints it, the legend's masked swatch
    assert "Scaled scores" in texts and "−∞" in texts and "masked" in texts
    assert root.find(f"{SVG}title").text == "Scaled scores"
    assert root.find(f"{SVG}desc").text.strip()
    assert not list(root.iter(f"{SVG}script")) and not list(root.iter(f"{SVG}image"))
    note = page.locator(".export .note").first
    assert note.inner_text() == "Saved scaled-scores.svg"
    page.wait_for_timeout(400)
    assert runs.finished == before, "saving a figure ran the script"


@pytest.mark.browser
def test_png_is_three_times_the_figure(app):
    from PIL import Image

    page, runs, open_app = app
    open_app("?t=5")
    before = runs.finished
    svg = ET.fromstring(open(download(page, "Save SVG", 1).path(), "rb").read())
    png = download(page, "Save PNG ×3", 1)
    assert png.suggested_filename == "softmax-weights.png"
    picture = Image.open(io.BytesIO(open(png.path(), "rb").read()))
    assert picture.size == (3 * int(svg.get("width")), 3 * int(svg.get("height")))
    colours = picture.convert("RGB").getcolors(maxcolors=1 << 20)
    assert len(colours) > 10  # painted, not blank
    note = page.locator(".export .note").nth(1).inner_text()
    assert re.fullmatch(rf"Saved softmax-weights\.png \({picture.size[0]} × {picture.size[1]} px\)", note), note
    assert runs.finished == before


@pytest.mark.browser
def test_a_big_map_zooms_and_pans_inside_its_box_on_a_phone(playwright):
    from harness import browser as bs

    phone = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
    with bs.chromium(playwright, **phone) as context, bs.Server(app=APP, log_name="map-zoom-phone.log") as server:
        page = context.new_page()
        runs = bs.Runs(page)
        page.goto(server.url + "/?t=64")
        page.locator("[data-testid='attention-map-grid']").first.wait_for(timeout=60_000)
        runs.wait_for(page, 1, timeout=60)
        page.wait_for_timeout(500)
        canvas = page.locator(".stage canvas").first
        fitted = canvas.bounding_box()["width"]
        assert fitted <= 390
        zoom_in = page.get_by_role("button", name="Zoom in").first
        zoom_in.click()
        zoom_in = page.get_by_role("button", name="Zoom in").first
        zoom_in.focus()
        page.keyboard.press("Enter")  # the keyboard path: the button keeps the focus across the redraw
        assert page.get_by_text("zoom ×4").count() == 1
        assert page.get_by_role("button", name="Zoom in").first.is_disabled()
        zoomed = page.locator(".stage canvas").first.bounding_box()["width"]
        assert zoomed == pytest.approx(4 * fitted, abs=2)
        box = page.locator(".amap .map").first
        assert box.evaluate("b => b.scrollWidth > b.clientWidth + 100")  # the map is wider than its box: it pans
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # the page does not
        box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")  # panned to the right edge
        tile = page.locator(".stage canvas").first.bounding_box()
        page.touchscreen.tap(min(tile["x"] + tile["width"], 389) - 2, tile["y"] + tile["height"] - 2)
        assert "query w63 → key w63" in page.locator("[data-testid='attention-map-work']").first.inner_text()
        page.wait_for_timeout(400)
        assert runs.finished == 1
