"""Picks on the real app's maps (issue 49): the worked calculation the scores and softmax maps send, assembled as
attention_map.js assembles it, says what ui/sections/cell/worked.py's Python prose says for the same cell (several
lengths, a masked cell, scaling off); in Chromium a click and arrows + Enter on the Scaled scores and Softmax pages
show it with 0 server runs and write the cell into the page's URL, a share link that picks it on the server."""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine
from conftest import assert_clean, attention_maps, open_app
from harness import browser as bs
from ui.sections.cell import worked
from ui.shell import site, state, url


def assembled(work: dict, rows: list[str], cols: list[str], r: int, c: int, masked: bool) -> list[str]:
    """attention_map.js's lines(): the templates with {fields} filled from the payload's texts, in Python."""
    k = r * len(cols) + c
    join = work.get("join", ", ")

    def field(name: str) -> str:
        if name == "row":
            return rows[r]
        if name == "col":
            return cols[c]
        if name in work.get("cell", {}):
            return work["cell"][name].split("|")[k]
        if name in work.get("row", {}):
            return join.join(work["row"][name][r].split("|"))
        if name in work.get("col", {}):
            return join.join(work["col"][name][c].split("|"))
        if name in work.get("pairs", {}):
            a, b, times, plus = work["pairs"][name]
            left, right = work["row"][a][r].split("|"), work["col"][b][c].split("|")
            return plus.join(f"{x}{times}{y}" for x, y in zip(left, right))
        if name in work.get("terms", {}):
            source, plus = work["terms"][name]
            return plus.join(work["cell"][source].split("|")[k].split(";"))
        return work.get("scalar", {}).get(name, "")

    templates = work["masked"] if masked else work["lines"]
    return [re.sub(r"\{(\w+)\}", lambda m: field(m.group(1)), t) for t in templates]


@pytest.mark.parametrize(
    "params",
    [{"seq_len": "4"}, {"seq_len": "9", "causal": "1"}, {"seq_len": "40", "causal": "1"}, {"scale": "0"}],
    ids=["4", "9-causal", "40-causal-no-products", "scaling-off"],
)
@pytest.mark.parametrize("page", ["scores", "softmax"])
def test_the_maps_worked_calculation_is_the_python_prose(page, params):
    at = open_app(site.file(page), params, timeout=60)
    assert_clean(at)
    controls, _ = url.from_params(params)
    t = engine.run(state.to_config(controls), state.to_tokens(controls).words).layers[0]
    h = controls.head
    shown = attention_maps(at)[-1]  # the scaled map (scores page) or the weights map: each carries the calculation
    work = shown["data"]["works"][shown["data"]["maps"][-1]["work"]]
    rng = np.random.default_rng(len(params))
    cells = [(t.T - 1, 0), (t.T - 1, t.T - 1)] + [tuple(int(x) for x in rng.integers(0, t.T, 2)) for _ in range(6)]
    if controls.causal:
        cells.append((0, t.T - 1))  # masked
    for i, j in cells:
        masked = not t.visible[i, j]
        prose = worked.prose(t, h, (i, j))
        if "{product_terms}" not in " ".join(work["lines"]):  # products not sent at this size: the pairs say them
            prose = [line for n, line in enumerate(prose) if n != 2] if not masked else prose
        got = assembled(work, shown["rows"], shown["cols"], i, j, masked)
        assert got == prose, (i, j)
        assert masked == (not shown["shown"][i, j]) or page == "scores"


# ------------------------------------------------------------------------------------ in the browser
@pytest.fixture(scope="module")
def app_tab(playwright):

    with bs.chromium(playwright) as context, bs.Server(log_name="map-picks-tests.log") as server:
        bs.instrument(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        runs = bs.Runs(page)

        def open_page(path: str) -> None:
            before = runs.finished
            page.goto(server.url + path)
            runs.wait_for(page, before + 1, timeout=120)
            page.locator(".amap [data-testid='attention-map-grid']").first.wait_for(timeout=60_000)
            bs.wait_ready(page, timeout=120)

        yield page, runs, open_page, errors


def work_text(page) -> str:
    return page.locator(".amap [data-testid='attention-map-work']").first.inner_text()


@pytest.mark.browser
def test_a_redraw_keeps_the_keyboard_on_the_map(app_tab):
    """A map drawn again while a keyboard is on it (a run that sends it again, a zoom, a resize: here a resize)
    keeps the focus on that map's active cell, so the next arrow key still moves the pick (it fell to the page,
    and CI once lost three keys after a redraw)."""
    page, runs, open_page, errors = app_tab
    open_page("/scores?seq_len=5")
    amap = page.locator(".amap").first
    maps = page.locator(".amap [data-testid='attention-map-grid']")
    maps.nth(1).locator("td[role='gridcell'][data-r='3'][data-c='1']").click()
    drawn = amap.get_attribute("data-drawn-at")
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"] - 120, "height": size["height"]})
    try:
        for _ in range(100):  # the map draws itself again for the new width (its root's data-drawn-at changes)
            if amap.get_attribute("data-drawn-at") != drawn:
                break
            page.wait_for_timeout(100)
        assert amap.get_attribute("data-drawn-at") != drawn, "no redraw"
        assert (
            maps.nth(1)
            .locator("td[role='gridcell'][data-r='3'][data-c='1']")
            .evaluate("td => td.getRootNode().activeElement === td")
        ), "the redraw dropped the focus"
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        assert re.search(r"[?&]cell=4(,|%2C)1", page.url), page.url
    finally:
        page.set_viewport_size(size)
    page.wait_for_timeout(400)
    assert not errors


@pytest.mark.browser
@pytest.mark.parametrize("path, grid", [("/scores?seq_len=5&causal=1", 1), ("/softmax?seq_len=5&causal=1", 0)])
def test_a_pick_on_the_real_pages_maps_runs_nothing_and_lands_in_the_url(app_tab, path, grid):
    page, runs, open_page, errors = app_tab
    open_page(path)
    before = runs.finished
    maps = page.locator(".amap [data-testid='attention-map-grid']")
    maps.nth(grid).locator("td[role='gridcell'][data-r='3'][data-c='1']").click()
    shown = work_text(page)
    assert re.search(r"^query \S+ → key \S+", shown) and "q·k = " in shown and "softmax share of row" in shown, shown
    assert re.search(r"[?&]cell=3(,|%2C)1", page.url), page.url  # a share link carries it, without a run
    page.keyboard.press("ArrowDown")  # from (3, 1) to (4, 1), then right to (4, 2)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    assert re.search(r"[?&]cell=4(,|%2C)2", page.url), page.url
    page.keyboard.press("ArrowUp")  # (3, 2), then right twice to (3, 4): masked under the causal mask
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press(" ")
    assert "masked: the key comes after the query" in work_text(page)
    page.wait_for_timeout(600)
    assert runs.finished == before, "a pick ran the script"
    assert not errors
    # The address is a share link: opened again (a new session reads it), the server picks that cell, the map
    # shows it and the keyboard path's part names it.
    before = runs.finished
    page.goto(page.url)
    runs.wait_for(page, before + 1, timeout=120)
    bs.wait_ready(page, timeout=120)
    heading = page.locator("[data-testid='stMain'] h3").filter(has_text=re.compile(r"^Worked cell: query"))
    assert heading.first.inner_text().startswith("Worked cell: query 3 → key 4"), heading.all_inner_texts()
    assert "masked: the key comes after the query" in work_text(page)  # the map shows the server's pick
