"""The real app in headless Chromium: what AppTest cannot see (drawn charts, the URL, the DOM).

Each test opens its own tab (its own Streamlit session) and, at the end, asserts that the tab saw
no stException element, no browser console error, no uncaught page error, no JavaScript dialog and
no request to any host other than the loopback server. Screenshots go to test-artifacts/browser/.

Known and tolerated, nothing else:
* On a deep link to a non-root page, Streamlit's frontend first probes "<path>/_stcore/health" and
  "<path>/_stcore/host-config" before falling back to the base URL: two 404 "Failed to load
  resource" console errors, matched here by their exact URLs.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlparse

import pytest

import engine
from conftest import handle_of
from harness import browser as bs
from ui.prose.numbers import parse
from ui.shell import presets, site, url

pytestmark = pytest.mark.browser

SHOTS = bs.ARTIFACTS / "browser"
SEQ = "seq_len"
HOSTILE = "<img src=x onerror=alert(1)> <script>alert(2)</script> ok"  # 4 tokens are kept


# ------------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def browser(playwright):
    with bs.chromium(playwright) as context:
        bs.instrument(context)
        yield context


@pytest.fixture(scope="module")
def server(browser):
    """One server for the module; its first session (at the root URL) is spent here, so every test
    session is an ordinary later one."""
    with bs.Server(log_name="browser-tests.log") as srv:
        tab = Tab(browser, srv)
        tab.open("/")
        tab.close()
        yield srv


@dataclass
class Tab:
    """A browser tab on one server, with everything it saw recorded."""

    context: object
    server: bs.Server
    console_errors: list = field(default_factory=list)
    page_errors: list = field(default_factory=list)
    dialogs: list = field(default_factory=list)
    foreign_requests: list = field(default_factory=list)
    not_found: list = field(default_factory=list)

    def __post_init__(self):
        self.page = self.context.new_page()
        self.runs = bs.Runs(self.page)
        self.page.on(
            "console",
            lambda m: self.console_errors.append((m.text, m.location.get("url", ""))) if m.type == "error" else None,
        )
        self.page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
        self.page.on("dialog", self._dialog)
        self.page.on("request", self._request)
        self.page.on("response", lambda r: self.not_found.append(r.url) if r.status == 404 else None)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _request(self, request) -> None:
        host = urlparse(request.url).hostname
        if request.url.startswith(("data:", "blob:", "about:")):
            return
        if host not in ("127.0.0.1", "localhost"):
            self.foreign_requests.append(request.url)

    # -- actions
    def open(self, path: str) -> None:
        before = self.runs.finished
        self.page.goto(self.server.url + path)
        self.runs.wait_for(self.page, before + 1, timeout=60)
        bs.wait_ready(self.page, timeout=60)

    def settle_after(self, action) -> None:
        before = self.runs.finished
        action()
        bs.settle(self.page, self.runs, before, timeout=60)

    def reload(self) -> None:
        before = self.runs.finished
        self.page.reload()
        self.runs.wait_for(self.page, before + 1, timeout=60)
        bs.wait_ready(self.page, timeout=60)

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)

    def close(self) -> None:
        self.page.close()

    # -- what the page shows
    def heading(self) -> str:
        return self.page.locator("[data-testid='stMain'] h1").first.inner_text().strip()

    def query(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlparse(self.page.url).query).items()}

    def chart(self, key: str):
        """The chart drawn with this key: a Vega chart, or an attention map (its .amap root in the component)."""
        return self.page.locator(f".st-key-{key} {bs.CHART}, .st-key-{key} .amap")

    # -- the checks every test ends with
    def assert_clean(self, allowed_console: tuple[str, ...] = ()) -> None:
        page = self.page
        assert page.locator("[data-testid='stException']").count() == 0, page.locator(
            "[data-testid='stException']"
        ).all_inner_texts()
        assert not self.page_errors, self.page_errors
        assert not self.dialogs, f"a JavaScript dialog fired: {self.dialogs}"
        assert not self.foreign_requests, f"requests left the machine: {self.foreign_requests}"
        probes = known_probes(self.server)
        assert set(self.not_found) <= probes, f"unexpected 404s: {set(self.not_found) - probes}"
        unexpected = [
            (text, url)
            for text, url in self.console_errors
            if not (text.startswith("Failed to load resource") and "404" in text and url in probes)
            and text not in allowed_console
        ]
        assert not unexpected, f"browser console errors: {unexpected}"


def known_probes(server: bs.Server) -> set[str]:
    """The two health/host-config probes the frontend makes under a deep link's path, for every page."""
    return {
        f"{server.url}/{path}/_stcore/{probe}" for path, *_ in bs.PAGES if path for probe in ("health", "host-config")
    }


@pytest.fixture
def tab(browser, server):
    t = Tab(browser, server)
    yield t
    t.close()


def drawn_charts(tab: Tab) -> int:
    """Vega charts and attention maps (each map of a component) drawn."""
    return tab.page.locator(bs.CHART).count() + tab.page.evaluate("window.__lab.maps().length")


def assert_frame(tab: Tab, path: str, title: str, charts: int, keys: list[str], rows: int = 4) -> None:
    """The frame, the sidebar and the requested page with its charts, all drawn."""
    page = tab.page
    assert urlparse(page.url).path.strip("/") == path
    nav = page.locator("[data-testid='stSidebarNav'] [data-testid='stSidebarNavLink']")
    assert nav.count() == len(bs.PAGES)
    assert page.locator("[data-testid='stSidebarNav'] [aria-current='page']").inner_text().endswith(title)
    if not site.by_path(path).trains:  # a page that trains has its own task's controls instead
        for key in ("seq_len", "d_model", "heads", "d_ff"):
            assert bs.slider(page, key).count() == 1, f"no sidebar slider {key!r}"
        assert page.locator("[data-testid='stSidebar'] .st-key-text input").count() == 1
    assert page.locator("[data-testid='stMain'] h1").count() >= 1
    if path in bs.CONCEPT_PAGES:  # heading = navigation title
        assert tab.heading() == title
    assert drawn_charts(tab) >= charts, f"fewer than {charts} charts on /{path}"
    for key in keys:
        assert tab.chart(key).count() == 1, f"no chart {key!r} on /{path}"
    assert page.evaluate("window.__lab.ready()"), "not every chart is drawn"
    if path in bs.CONCEPT_PAGES:
        drawn = [shape[0] for shape in bs.chart_shapes(page).values()]
        assert drawn and drawn[0] == rows, f"the first chart should have T = {rows} rows, has {drawn[:1]}"


# ------------------------------------------------------------------------- fresh-server deep links
@pytest.mark.parametrize("path, file, title, charts, keys", bs.PAGES, ids=[p[0] or "root" for p in bs.PAGES])
def test_deep_link_on_a_fresh_server(browser, path, file, title, charts, keys):
    """A shared link is the very first session of a server that just woke up: it shows its page, the
    sidebar and the link's values, and no "Page not found"; so does a later session."""
    with bs.Server(log_name=f"deeplink-{path or 'root'}.log") as server:
        for session in ("first", "second"):
            tab = Tab(browser, server)
            try:
                tab.open(f"/{path}?seq_len=6&seed=7")
                assert_frame(tab, path, title, charts, keys, rows=6)
                assert tab.query() == {"seq_len": "6", "seed": "7"}
                if site.by_path(path).trains:  # its sidebar holds its own task's controls, and says so
                    assert tab.page.locator("[data-testid='stSidebar']").get_by_text("do not apply here").count() >= 1
                    assert bs.slider(tab.page, SEQ).count() == 0
                else:
                    assert bs.slider_value(tab.page, SEQ) == 6
                    assert tab.page.locator("[data-testid='stSidebar'] .st-key-seed input").input_value() == "7"
                assert tab.runs.page_not_found == 0, f"{session} session: Streamlit said 'Page not found'"
                assert tab.page.get_by_text("Page not found").count() == 0
                assert tab.page.locator("[role='dialog']").count() == 0
                if session == "first" and not site.by_path(path).trains:
                    tab.shot(f"deeplink-{path or 'root'}")
                    # The first visitor's first move is an ordinary rerun of the same page.
                    thumb = bs.slider(tab.page, SEQ)
                    tab.settle_after(lambda thumb=thumb: (thumb.focus(), thumb.press("ArrowRight")))
                    assert bs.slider_value(tab.page, SEQ) == 7 and tab.query()["seq_len"] == "7"
                    assert urlparse(tab.page.url).path.strip("/") == path
                    if path == "exercise":  # the page's own widgets keep working too
                        reveal = tab.page.get_by_role("button", name="Reveal now (lecturer)")
                        tab.settle_after(reveal.click)
                        assert tab.page.get_by_text("You revealed without choosing a prediction.").count() == 1
                tab.assert_clean()
            finally:
                tab.close()


# ------------------------------------------------------------------------------- one shared server
MAP_LABELS = """() => window.__lab.maps().map(m => ({
    title: m.title,
    rows: [...m.map.querySelectorAll('th.row .label, .left .label')].map(t => t.textContent),
    cols: [...m.map.querySelectorAll('th.col .label, .top .label')].map(t => t.textContent),
    shown: [...m.map.querySelectorAll('.label')].filter(t => getComputedStyle(t).opacity !== '0').length,
    centres: [...m.map.querySelectorAll('th.row, .left .label')]
      .map(t => { const b = t.getBoundingClientRect(); return b.top + b.height / 2; }),
  }))"""


def test_sixteen_tokens_keep_every_label_on_both_axes(tab):
    """Every map has every token's label on both axes, in order; where cells are too narrow for all of them some
    are thinned (hidden) and come back, whole, on hover or focus of their row or column; rows are evenly spaced.
    A wide matrix (the trained model's 16 × 32 concat) keeps every token's row label too."""
    for path, maps in (("/softmax?seq_len=16", 1), ("/heads?seq_len=16", 2)):
        tab.open(path)
        drawn = [m for m in tab.page.evaluate(MAP_LABELS) if len(m["rows"]) == 16 and len(m["cols"]) == 16][:maps]
        assert len(drawn) == maps, (path, tab.page.evaluate(MAP_LABELS))
        for m in drawn:
            assert m["rows"] == m["cols"] and len(set(m["rows"])) == 16, (path, m)
            gaps = [b - a for a, b in zip(m["centres"], m["centres"][1:])]
            assert max(gaps) - min(gaps) < 1.5, (path, gaps)
        grid = tab.page.locator(".amap [data-testid='attention-map-grid']").first
        cell = grid.locator("td[role='gridcell'][data-r='5'][data-c='7']")
        if cell.count():  # hover a cell: its row's and its column's labels show, whole
            cell.hover()
            on = tab.page.evaluate("""() => window.__lab.maps()[0].map.querySelectorAll('.label.on').length""")
            assert on == 2, on
        tab.assert_clean()
    tab.open("/heads?preset=trained-induction&layer=1")
    wide = [m for m in tab.page.evaluate(MAP_LABELS) if m["cols"] and all(x.isdigit() for x in m["cols"])]
    assert len(wide) == 2 and all(len(set(m["rows"])) == 16 for m in wide), [(m["title"], len(m["rows"])) for m in wide]
    tab.assert_clean()


ROW_LABELS = """() => window.__lab.maps().map(m => {
    const rows = [...m.map.querySelectorAll('th.row .label')];
    const shown = rows.filter(t => getComputedStyle(t).opacity !== '0');
    return {title: m.title, rows: rows.map(t => t.textContent), shown: shown.map(t => t.textContent),
            px: Math.min(...shown.map(t => parseFloat(getComputedStyle(t).fontSize)))};
  })"""


def test_four_tokens_show_every_row_label_of_a_wide_matrix(tab):
    """At 4 tokens the block output's 4 × 16 matrices have cells a little under a line high: every row keeps its
    label, in a smaller font (10 px at least), where one thinning step for rows and columns hid every other one."""
    tab.open("/output?seq_len=4")
    wide = [m for m in tab.page.evaluate(ROW_LABELS) if m["title"].startswith(("X + attn", "output"))]
    assert len(wide) == 2, tab.page.evaluate(ROW_LABELS)
    assert all(len(m["rows"]) == 4 and m["shown"] == m["rows"] and m["px"] >= 10 for m in wide), wide
    tab.assert_clean()


FORMULA_LINES = """() => [...document.querySelectorAll("[data-testid='stMain'] .katex-display")].map(d => {
    const box = d.getBoundingClientRect(), lines = [];
    let last = Infinity;
    for (const base of d.querySelectorAll('.katex-html > .base')) {       // a line starts where a base wraps back
      const b = base.getBoundingClientRect();
      if (b.left < last) lines.push({left: b.left, right: b.right, text: ''});
      const line = lines[lines.length - 1];
      line.right = Math.max(line.right, b.right); line.text += base.textContent; last = b.left;
    }
    return {over: Math.max(0, ...lines.map(l => l.right - box.right)),
            lines: lines.map(l => [l.right - l.left, l.text.replace(/\\s+/g, ' ')])};
  })"""


def test_a_formula_fits_its_column_and_wraps_between_its_equations(tab):
    """A formula too wide for its line wraps into lines of about even width (CSS text-wrap: balance), so the
    break falls between its equations: on a 1,280 px screen the output page's line used to end after a '+'
    and leave 'b₂ (residual)' alone below. And no formula passes its column: the experiments page's note was
    one unbreakable text, 65 px past the column at 800 px."""
    tab.page.set_viewport_size({"width": 1280, "height": 800})
    tab.open("/output")
    formulas = tab.page.evaluate(FORMULA_LINES)
    wrapped = [f["lines"] for f in formulas if len(f["lines"]) > 1]
    assert len(wrapped) == 1 and len(wrapped[0]) == 2, [f["lines"] for f in formulas]
    (first, _), (second, text) = wrapped[0]
    assert text.startswith("output") and min(first, second) >= 0.6 * max(first, second), wrapped
    assert all(f["over"] <= 1 for f in formulas), formulas
    tab.assert_clean()
    for width, path in (
        (800, "/experiments"),
        (660, "/experiments?present=1"),
        (1280, "/experiments?preset=trained-induction&layer=1"),
    ):
        tab.page.set_viewport_size({"width": width, "height": 800})
        tab.open(path)
        formulas = tab.page.evaluate(FORMULA_LINES)
        assert formulas and all(f["over"] <= 1 for f in formulas), (width, path, formulas)
        # No line breaks inside a bracket: the trained preset's '(X +' ended one line and 'P)' began the next.
        lines = [text.replace(" ", "") for f in formulas for _, text in f["lines"]]
        assert "preset" not in path or any("from(X+P)" in text for text in lines), (width, path, lines)
        tab.assert_clean()


def test_slider_keys_redraw_then_page_switch_and_reload_keep_the_values(tab):
    tab.open("/scores")
    assert set(bs.chart_shapes(tab.page).values()) == {(4, 4)}
    assert bs.cell_counts(tab.page) == [16, 16]
    first = tab.page.evaluate(MAP_LABELS)[0]
    assert [first["cols"], first["rows"]] == [["AI", "builds", "neural", "models"]] * 2, "in sentence order"

    thumb = bs.slider(tab.page, SEQ)
    for expected in (5, 6):
        tab.settle_after(lambda: (thumb.focus(), thumb.press("ArrowRight")))
        assert bs.slider_value(tab.page, SEQ) == expected
        assert set(bs.chart_shapes(tab.page).values()) == {(expected, expected)}
        assert bs.cell_counts(tab.page) == [expected * expected] * 2
    assert tab.query().get("seq_len") == "6"
    width = bs.slider(tab.page, "d_model")
    tab.settle_after(lambda: (width.focus(), width.press("ArrowLeft")))  # 16 → 15: heads 2 → 1 (or 3)
    assert bs.slider_value(tab.page, "d_model") == 15
    assert tab.query().get("d_model") == "15"
    tab.shot("slider-moved-scores")

    tab.settle_after(
        lambda: tab.page.locator("[data-testid='stSidebarNavLink']").filter(has_text="Q, K, V projections").click()
    )
    assert urlparse(tab.page.url).path == "/qkv"
    assert bs.slider_value(tab.page, SEQ) == 6 and bs.slider_value(tab.page, "d_model") == 15
    assert tab.query().items() >= {"seq_len": "6", "d_model": "15"}.items()
    shapes = bs.chart_shapes(tab.page)
    assert shapes and all(rows == 6 for title, (rows, cols) in shapes.items() if not title.startswith("W_"))
    assert any(cols == 15 for rows, cols in shapes.values())

    tab.reload()  # a new session: the URL alone restores it
    assert urlparse(tab.page.url).path == "/qkv"
    assert bs.slider_value(tab.page, SEQ) == 6 and bs.slider_value(tab.page, "d_model") == 15
    assert tab.query().items() >= {"seq_len": "6", "d_model": "15"}.items()
    assert all(rows == 6 for title, (rows, cols) in bs.chart_shapes(tab.page).items() if not title.startswith("W_"))
    tab.shot("reloaded-qkv")
    tab.assert_clean()


def test_hostile_token_text_is_shown_as_text(tab):
    tab.open("/")
    box = tab.page.locator("[data-testid='stSidebar'] .st-key-text input")
    box.fill(HOSTILE)
    tab.settle_after(lambda: box.press("Enter"))
    assert box.input_value() == HOSTILE

    # The words are drawn as text: the maps' token labels and the cells' accessible names.
    labels = [x for m in tab.page.evaluate(MAP_LABELS) for x in m["rows"]]
    assert "<img" in labels and "src=x" in labels, labels
    assert any(label.startswith("<script>") for label in labels), labels
    names = " | ".join(
        tab.page.locator(".amap td[role='gridcell']").evaluate_all(
            "cells => cells.map(c => c.getAttribute('aria-label'))"
        )
    )
    for word in ("token <img → ", "token onerror=alert(1)> → ", "token <script>alert(2)</scrip"):
        assert word in names, word
    injected = tab.page.evaluate(
        """() => ({
             imgs: [...document.querySelectorAll('img')].filter(i => i.getAttribute('src') === 'x'
                       || i.hasAttribute('onerror')).length,
             scripts: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('alert(')).length,
             handlers: [...document.querySelectorAll('[onerror], [onload], [onclick]')].length,
           })"""
    )
    assert injected == {"imgs": 0, "scripts": 0, "handlers": 0}, injected

    tab.settle_after(
        lambda: tab.page.locator("[data-testid='stSidebarNavLink']").filter(has_text="Scaled scores").click()
    )
    names = (
        tab.chart("scores_maps")
        .locator("td[role='gridcell']")
        .evaluate_all("cells => cells.map(c => c.getAttribute('aria-label')).join(' | ')")
    )
    assert "query <script>alert(2)</scrip… → key <img: " in names, names  # the label as the engine shortens it
    assert tab.page.evaluate("document.querySelectorAll('img[src=\"x\"], [onerror]').length") == 0
    assert tab.page.locator(".amap img, .amap script, .amap [onerror]").count() == 0  # inside the maps too
    tab.page.wait_for_timeout(300)  # an injected onerror would have fired by now
    tab.shot("hostile-tokens")
    tab.assert_clean()


def test_clicking_a_heatmap_cell_shows_the_worked_calculation(tab):
    """A click on a map's cell is answered in the browser: its worked calculation under the maps, the cell outlined
    in both maps, the URL's cell= written, no server run (tests/test_map_picks.py: the keyboard and the link)."""
    tab.open("/scores")
    assert tab.page.get_by_text("Click (or tap) any cell of a heatmap above").count() == 1
    cells = tab.chart("scores_maps").locator("[data-testid='attention-map-grid']").nth(1).locator("td[role='gridcell']")
    assert cells.count() == 16
    before = tab.runs.finished
    cells.nth(1 * 4 + 2).click()  # query 1, key 2 (row-major)
    work = tab.chart("scores_maps").locator("[data-testid='attention-map-work']")
    assert work.inner_text().startswith("query builds → key neural"), work.inner_text()
    assert tab.chart("scores_maps").locator("td.cell.picked").count() == 2, "the picked cell is outlined in both maps"
    assert re.search(r"[?&]cell=1(,|%2C)2", tab.page.url), tab.page.url
    tab.page.wait_for_timeout(300)
    assert tab.runs.finished == before, "a pick ran the script"
    tab.shot("worked-cell-scores")
    tab.assert_clean()


def test_moving_d_model_back_and_forth_keeps_the_head_picker_working(tab):
    """The head picker's labels name d_model's columns; when d_model moves, the browser still sends the
    old label and Streamlit hands it back as a plain string instead of a head index."""
    tab.open("/?d_model=96&heads=4")  # 95 takes 5 heads, 96 then 4: a head picker all along
    width = bs.slider(tab.page, "d_model")
    for key, expected in (("ArrowLeft", 95), ("ArrowRight", 96), ("ArrowLeft", 95)):
        tab.settle_after(lambda key=key: (width.focus(), width.press(key)))
        tab.assert_clean()
        assert bs.slider_value(tab.page, "d_model") == expected
    assert tab.page.locator("[data-testid='stSidebar'] .st-key-head").inner_text().startswith("Head to show")


def test_sixteen_heads_of_64_tokens_are_drawn_as_pictures(tab):
    """Maps of tiny cells are painted on a canvas each (no per-cell element), drawn at full size."""
    tab.open("/heads?seq_len=64&d_model=128&heads=16")
    canvases = tab.page.locator(".amap .stage canvas")
    boxes = [canvases.nth(i).bounding_box() for i in range(canvases.count())]
    assert len(boxes) == 16 + 3, boxes  # every head map, the spread (64 × 16: 1,024 cells), the concat and attn
    for box in boxes:
        assert box["width"] >= 150 and box["height"] >= 150  # 64 × 64 at 3 px a cell and more
    assert tab.page.locator(".amap td[role='gridcell']").count() == 0
    assert bs.chart_shapes(tab.page).get("head 0", (0, 0))[0] == 64, "the picture keeps its token labels"
    # ... and it is painted: the pixels inside the first map are the map's many colours, not a blank box.
    from PIL import Image

    picture = canvases.first
    picture.scroll_into_view_if_needed()
    shot = Image.open(io.BytesIO(tab.page.screenshot(clip=picture.bounding_box()))).convert("RGB")
    assert len(shot.getcolors(maxcolors=1 << 16) or ()) > 20, "the picture did not paint"
    tab.shot("heads-16x64")
    tab.assert_clean()


# ------------------------------------------------------------------------------- nothing drawn over anything
def _reveal_and_twist(tab: Tab) -> None:
    """On the exercise page: reveal the longer run and switch both twists on (every map drawn)."""
    tab.settle_after(lambda: tab.page.get_by_role("button", name="Reveal now (lecturer)").click())
    for label in ("Try it with the causal mask", "Try it with sinusoidal positions"):
        tab.settle_after(lambda label=label: tab.page.get_by_text(label).click())


LAYOUTS = [  # viewport, presenter view, preset, sequence lengths
    ((1280, 800), False, "part4", (4, 9, 16, 64)),
    ((1280, 800), True, "day33", (9, 64)),
    ((1920, 1080), False, "day33", (9, 64)),
    ((1920, 1080), True, "part4", (16, 64)),
]
SECTIONS = ["1 · Why ÷ √d_head", "2 · ÷ √d_head in this block", "3 · Why positions", "4 · Why a causal mask"]


@pytest.mark.parametrize(
    "viewport, present, preset, lengths",
    LAYOUTS,
    ids=[f"{w}x{h}-{'present' if p else 'normal'}-{s}" for (w, h), p, s, _ in LAYOUTS],
)
@pytest.mark.parametrize("path", [p for p, *_ in bs.PAGES])
def test_no_chart_overlaps_anything(tab, path, viewport, present, preset, lengths):
    """Every chart stays inside its column and the screen and covers nothing else, at every length."""
    tab.page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    found = {}
    for T in lengths:
        tab.open(f"/{path}?seq_len={T}&preset={preset}" + ("&present=1" if present else ""))
        if path == "exercise":
            _reveal_and_twist(tab)
        for section in SECTIONS if path == "experiments" else [None]:
            if section and section != SECTIONS[0]:
                tab.settle_after(lambda section=section: tab.page.get_by_role("radio", name=section).click())
            hits = bs.overlaps(tab.page)
            if hits:
                found[(T, section)] = hits
                tab.shot(f"overlap-{path or 'root'}-{T}-{viewport[0]}{'-present' if present else ''}")
    assert not found, found
    tab.assert_clean()


# ------------------------------------------------------------------------------- the Learn page
def _head_map(tab: Tab, title: str):
    return tab.page.locator(".amap .map").filter(has=tab.page.get_by_text(title, exact=True)).first


def _weights_by_cell(chart) -> dict[tuple[str, str], float]:
    """A map's cells as drawn: {(query, key): weight}, read from each cell's accessible name
    ('query <row> → key <col>: <value>')."""
    labels = chart.locator("td[role='gridcell']").evaluate_all("cells => cells.map(c => c.getAttribute('aria-label'))")
    cells = {}
    for text in labels:
        found = re.match(r"^query (.*) → key (.*): (\S+)", text)
        cells[(found[1], found[2])] = parse(found[3])
    return cells


def test_a_knock_out_on_the_model_view_changes_the_accuracy_metric(tab):
    """Issue 24: knock out trained-previous's only head from the model view's multiselect: the accuracy
    metric falls, its delta shows, and the URL keeps ablate=0.0 (a new session restores it)."""
    tab.open("/model?preset=trained-previous")
    value = tab.page.locator("[data-testid='stMetric']", has_text="accuracy").locator("[data-testid='stMetricValue']")
    value.wait_for(timeout=180_000)
    before = float(value.inner_text().rstrip("%"))
    tab.page.locator(".st-key-ablate [role='combobox']").click()
    tab.settle_after(lambda: tab.page.get_by_role("option", name="layer 0 head 0").click())
    tab.page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stMetricValue]')].some(e => parseFloat(e.innerText) < 50)",
        timeout=120_000,
    )
    after = float(value.first.inner_text().rstrip("%"))
    assert before >= 90 and after < 50, (before, after)
    assert tab.query().get("ablate") == "0.0"
    tab.reload()
    value.first.wait_for(timeout=120_000)
    assert float(value.first.inner_text().rstrip("%")) == after
    tab.shot("model-knockout")
    tab.assert_clean()


def test_learn_page_shows_the_models_predictions(tab):
    """Issue 24: after training, a table of what the model predicts at every position of the sequence;
    the training settings stay in the URL."""
    tab.open("/learn?task=first&steps=60&sequence=ABCDEFGH")
    train = tab.page.get_by_role("button", name="Train")
    if train.count():
        tab.settle_after(train.click)
    table = tab.page.locator("table", has_text="predicted")
    table.wait_for(timeout=120_000)
    rows = table.locator("tbody tr")
    assert rows.count() == 8
    assert rows.nth(0).locator("td").nth(2).inner_text() == "no"  # position 0 is not scored
    assert rows.nth(3).locator("td").nth(3).inner_text() == "A"  # the target: the first token
    assert {"task": "first", "steps": "60", "sequence": "ABCDEFGH"}.items() <= tab.query().items()
    tab.shot("learn-predictions")
    tab.assert_clean()


def test_learn_page_trains_and_replays_from_even_to_the_pattern(tab):
    """Train the previous-token task, scrub to step 0 and to the end: the head's weight on the key just
    before each query goes from about an even share to at least 0.9."""
    tab.open("/learn")
    train = tab.page.get_by_role("button", name="Train")
    if train.count():
        tab.settle_after(train.click)
    thumb = tab.page.locator(".st-key-learn_grid [data-testid='attention-map-scrub']")
    thumb.wait_for(timeout=120_000)
    shares = {}
    for key in ("Home", "End"):
        tab.settle_after(lambda key=key: (thumb.focus(), thumb.press(key)))
        tab.page.wait_for_timeout(800)  # the scrubber rests, then its one run
        chart = _head_map(tab, "head 0")
        cells = _weights_by_cell(chart)
        order = chart.locator("th.row .label").evaluate_all("labels => labels.map(t => t.textContent)")
        shares[key] = [cells[(order[i], order[i - 1])] for i in range(1, len(order))]
    assert max(shares["Home"]) < 0.7, shares["Home"]  # random weights: no pattern yet
    assert min(shares["End"]) >= 0.9, shares["End"]  # trained: one step back
    tab.shot("learn-replayed")
    tab.assert_clean()


def test_the_induction_replay_is_scrubbed_in_the_browser(tab):
    """A stack's replay: every saved step's model view is in the browser; arrows and a drag redraw the maps with
    0 server runs, the step it rests on is one run (the notice follows) and the address's replay=."""
    tab.open("/learn?task=induction&replay=352")
    thumb = tab.page.locator(".st-key-learn_grid [data-testid='attention-map-scrub']")
    thumb.wait_for(timeout=60_000)
    assert thumb.get_attribute("aria-valuetext") == "the weights after step 352 of 480"
    assert tab.page.locator(".st-key-learn_grid [data-testid='attention-map-grid']").count() == 2 * 2
    before = tab.runs.finished
    thumb.focus()
    tab.page.keyboard.press("Home")
    assert thumb.get_attribute("aria-valuetext") == "the weights after step 0 of 480"
    assert tab.runs.finished == before, "a run while scrubbing"
    bs.settle(tab.page, tab.runs, before, timeout=60)
    tab.page.wait_for_timeout(800)
    assert tab.runs.finished == before + 1 and tab.query().get("replay") == "0"
    assert tab.page.get_by_text("At step 0 of the replay", exact=False).count() >= 1
    box = thumb.bounding_box()
    y = box["y"] + box["height"] / 2
    before = tab.runs.finished
    tab.page.mouse.move(box["x"] + 4, y)
    tab.page.mouse.down()
    for x in (0.25, 0.5, 0.75, 0.99):
        tab.page.mouse.move(box["x"] + box["width"] * x, y, steps=4)
        tab.page.wait_for_timeout(100)
    assert tab.runs.finished == before, "a run while dragging the replay"
    tab.page.mouse.up()
    bs.settle(tab.page, tab.runs, before, timeout=60)
    tab.page.wait_for_timeout(800)
    assert tab.runs.finished == before + 1 and tab.query().get("replay") == "480"
    tab.shot("learn-induction-scrubbed")
    tab.assert_clean()


def test_a_one_layer_replay_is_scrubbed_in_the_browser_with_its_expected_cells_dashed(tab):
    """A one-layer run's replay (trained-previous): each head's map of every saved step is in the browser; arrow keys
    redraw it with 0 server runs, the expected cells (the previous token) stay dashed on every frame, and the step
    it rests on is one run of the fragment (the notice follows) and the address's replay=."""
    tab.open("/learn?preset=trained-previous&replay=0")
    thumb = tab.page.locator(".st-key-learn_grid [data-testid='attention-map-scrub']")
    thumb.wait_for(timeout=120_000)
    last = int(thumb.get_attribute("max"))
    assert thumb.get_attribute("aria-valuetext").startswith("the weights after step 0 of ")
    head = _head_map(tab, "head 0")
    dashed = head.locator("td.expected")
    assert dashed.count() == 7  # every query but the first: its previous token
    before = tab.runs.finished
    thumb.focus()
    tab.page.keyboard.press("End")
    for _ in range(3):
        tab.page.keyboard.press("ArrowLeft")
    text = thumb.get_attribute("aria-valuetext")
    shown = int(re.match(r"the weights after step ([\d,]+) of", text)[1].replace(",", ""))
    assert int(thumb.input_value()) == last - 3 and shown > 0, text
    assert tab.runs.finished == before, "a run while scrubbing"
    assert dashed.count() == 7, "the scrubbed frame lost its dashed cells"
    cells = _weights_by_cell(head)
    order = head.locator("th.row .label").evaluate_all("labels => labels.map(t => t.textContent)")
    assert min(cells[(order[i], order[i - 1])] for i in range(1, len(order))) >= 0.9  # late in the run: one back
    bs.settle(tab.page, tab.runs, before, timeout=60)
    tab.page.wait_for_timeout(800)
    assert tab.runs.finished - before == 1, tab.runs.finished - before
    assert tab.query().get("replay") == str(shown)
    assert tab.page.get_by_text(f"at step {shown}, ", exact=False).count() >= 1  # the notice follows
    assert thumb.get_attribute("aria-valuetext") == text and dashed.count() == 7
    tab.shot("learn-previous-scrubbed")
    tab.assert_clean()


# ------------------------------------------------------------------------------- β and figures for slides
def test_beta_slider_sharpens_the_softmax_and_lives_in_the_url(tab):
    tab.open("/softmax?preset=day33&seq_len=6")

    def entropy() -> list[float]:
        return [
            float(x)
            for x in tab.page.evaluate(
                """() => { const table = document.querySelector(
                       "[data-testid='stMain'] [data-testid='stMarkdownContainer'] table");
                   const heads = [...table.querySelectorAll('thead th')].map(th => th.textContent.trim());
                   const k = heads.indexOf('entropy (bits)');
                   return [...table.querySelectorAll('tbody tr')].map(tr => tr.children[k].textContent); }"""
            )
        ]

    flat = entropy()
    assert len(flat) == 6 and all(2.5 < f <= 2.585 for f in flat), flat  # near log2(6): even rows
    thumb = tab.page.locator(".st-key-softmax_map [data-testid='attention-map-scrub']")
    title = tab.page.locator(".st-key-softmax_map .map .title").first
    assert thumb.get_attribute("aria-valuetext") == "β = 1, the model"
    before = tab.runs.finished
    thumb.focus()
    for _ in range(4):  # 1 → 2 → 4 → 8 → 16, redrawn in the browser at every step
        tab.page.keyboard.press("ArrowRight")
    assert title.inner_text() == "weights at β = 16, head 0: 6 × 6"
    assert thumb.get_attribute("aria-valuetext") == "β = 16" and tab.runs.finished == before  # 0 runs so far
    bs.settle(tab.page, tab.runs, before, timeout=60)  # rested: one run of the fragment
    tab.page.wait_for_timeout(800)
    assert tab.runs.finished == before + 1
    assert tab.query().get("beta") == "16"
    sharp = entropy()
    assert all(s < f for s, f in zip(sharp, flat)), (flat, sharp)
    # a mouse drag: 0 runs while the thumb moves, at most one after the release
    box = thumb.bounding_box()
    y = box["y"] + box["height"] / 2
    before = tab.runs.finished
    tab.page.mouse.move(box["x"] + box["width"] * 0.72, y)
    tab.page.mouse.down()
    for x in (0.5, 0.3, 0.1, 0.3, 0.72):
        tab.page.mouse.move(box["x"] + box["width"] * x, y, steps=4)
        tab.page.wait_for_timeout(100)
    assert tab.runs.finished == before, "a run while dragging β"
    tab.page.mouse.up()
    tab.page.wait_for_timeout(1500)
    assert tab.runs.finished - before <= 1
    assert tab.page.get_by_text("tied at", exact=False).count() >= 1  # the two 'the' keys
    tab.reload()  # a new session: the URL restores β
    assert tab.query().get("beta") == "16" and entropy() == sharp
    tab.shot("softmax-beta-16")
    tab.assert_clean()


def test_a_figure_downloads_as_svg_and_png(tab, tmp_path):
    """The page's figures panel lists its Vega-Lite charts and its attention maps; a chart is saved from what Vega
    drew, a map by its own export (its figure built from its numbers), each as SVG and as PNG at 3×."""
    from PIL import Image

    tab.open("/softmax")
    assert tab.page.locator("[data-testid='stMain'] .st-key-figures_softmax").count() == 0  # until opened
    bs.open_expander(tab.page, tab.runs, bs.EXPORTS)
    figures = tab.page.locator("[data-testid='stMain'] .st-key-figures_softmax")
    figures.wait_for()
    select = figures.locator("select")
    select.wait_for()
    select.focus()  # the list is refreshed when the select is reached
    options = select.locator("option").all_inner_texts()
    assert len(options) == 2 and options[1] == "2 · weights, head 0: 4 × 4", options
    assert options[0].startswith("1 · weights of query"), options
    chart = tab.page.locator(bs.CHART).first.locator("svg.marks")
    width, height = float(chart.get_attribute("width")), float(chart.get_attribute("height"))

    with tab.page.expect_download() as got:
        figures.get_by_role("button", name="SVG").click()
    svg = tmp_path / got.value.suggested_filename
    got.value.save_as(svg)
    assert svg.name.startswith("attention-lab-softmax-1-weights-of-query") and svg.suffix == ".svg", svg.name
    text = svg.read_text()
    assert text.startswith("<?xml") and "<svg" in text and 'xmlns="http://www.w3.org/2000/svg"' in text
    assert "url(http" not in text
    with tab.page.expect_download() as got:
        figures.get_by_role("button", name="PNG ×3").click()
    png = tmp_path / got.value.suggested_filename
    got.value.save_as(png)
    picture = Image.open(png)
    assert picture.format == "PNG" and picture.size == (round(3 * width), round(3 * height)), picture.size

    select.select_option(index=1)  # the attention map: saved by its own export
    with tab.page.expect_download() as got:
        figures.get_by_role("button", name="SVG").click()
    svg = tmp_path / got.value.suggested_filename
    got.value.save_as(svg)
    text = svg.read_text()
    assert svg.name == "weights-head-0-4-4.svg" and text.count("<rect") >= 16 + 2, (svg.name, text.count("<rect"))
    assert "<script" not in text and "<image" not in text
    with tab.page.expect_download() as got:
        figures.get_by_role("button", name="PNG ×3").click()
    png = tmp_path / got.value.suggested_filename
    got.value.save_as(png)
    picture = Image.open(png)
    assert picture.format == "PNG" and len(picture.convert("RGB").getcolors(maxcolors=1 << 16) or ()) > 20
    assert "saved by the map's own export" in figures.locator(".note").inner_text()
    tab.assert_clean()


# ------------------------------------------------------------------------------- depth: layers and the model view
MODEL_64 = "/model?layers=4&heads=16&d_model=128&seq_len=64"
DRAW_BUDGET_MS = 1500


MODEL_GRID = ".st-key-model_map [data-testid='attention-map-grid']"  # one per map (ui.charts.attention_grid)


def test_model_view_draws_4_layers_of_16_heads_of_64_tokens_within_budget(tab):
    """Every one of the 4 × 16 maps of 64 × 64 drawn in the browser (one canvas each, in 16 columns), redrawn (a
    slider move) in ≤ 1.5 s."""
    tab.open(MODEL_64)
    grids = tab.page.locator(MODEL_GRID)
    grids.first.wait_for(timeout=30_000)
    assert grids.count() == 64
    canvases = tab.page.locator(".st-key-model_map canvas")
    assert canvases.count() == 64
    first, last = canvases.first.bounding_box(), canvases.nth(15).bounding_box()
    assert abs(first["y"] - last["y"]) < 1 and last["x"] > first["x"] + 300, (first, last)  # 16 maps across
    assert canvases.nth(16).bounding_box()["y"] > first["y"] + first["height"]  # layer 1 below layer 0
    times = []
    thumb = bs.slider(tab.page, SEQ)
    for key in ("ArrowLeft", "ArrowRight", "ArrowLeft"):  # 64 → 63 → 64 → 63 tokens
        thumb.focus()
        before = tab.runs.finished
        thumb.press(key)
        last = bs.settle(tab.page, tab.runs, before, timeout=60)
        times.append(last - tab.page.evaluate("window.__lab.keyAt"))
    print(f"model view 4 x 16 x 64 redraws: {[round(t) for t in times]} ms")
    # The median of three: one slow move on a machine other work shares is noise, not the page's cost.
    assert sorted(times)[1] <= DRAW_BUDGET_MS, f"model view redraws took {[round(t) for t in times]} ms"
    from PIL import Image

    canvases.first.scroll_into_view_if_needed()
    shot = Image.open(io.BytesIO(tab.page.screenshot(clip=canvases.first.bounding_box()))).convert("RGB")
    assert len(shot.getcolors(maxcolors=1 << 16) or ()) > 20, "the picture did not paint"
    tab.shot("model-view-4x16x64")
    tab.assert_clean()


@pytest.mark.parametrize("how", ["click", "keys"])
def test_clicking_a_map_of_the_model_view_opens_it_on_the_per_head_page(tab, how):
    tab.open("/model?layers=3&heads=4")
    grids = tab.page.locator(MODEL_GRID)
    grids.first.wait_for(timeout=30_000)
    assert grids.count() == 3 * 4
    target = grids.nth(1 * 4 + 3)  # layer 1, head 3 (layer-major)
    assert target.get_attribute("aria-labelledby")
    titles = tab.page.locator(".st-key-model_map .map .title").all_inner_texts()
    assert titles[7] == "layer 1 · head 3", titles
    before = tab.runs.finished
    if how == "click":
        target.locator("td[role='gridcell']").nth(5).click()
    else:  # Tab to the map's cell, Enter
        target.locator("td[role='gridcell'][tabindex='0']").focus()
        tab.page.keyboard.press("Enter")
    tab.page.wait_for_url(re.compile(r"/heads\?"), timeout=30_000)
    bs.wait_ready(tab.page, timeout=60)
    assert tab.runs.finished - before <= 3  # the fragment's run asks for the whole app's, which switches page
    assert urlparse(tab.page.url).path == "/heads"
    assert tab.query().items() >= {"layers": "3", "heads": "4", "layer": "1", "head": "3"}.items()
    assert tab.heading() == "Per-head maps"
    assert tab.page.get_by_text("Layer 1 of 3").count() == 1
    tab.shot(f"model-view-{how}-opened-heads")
    tab.assert_clean()


def test_the_model_views_grid_saves_as_one_figure(tab):
    """Save SVG under the model view: every layer × head map in its rows of heads, titled, every cell a rect in the
    grid's colours; the PNG is painted; no run."""
    import xml.etree.ElementTree as ET

    from PIL import Image

    tab.open("/model?layers=3&heads=4")
    tab.page.locator(MODEL_GRID).first.wait_for(timeout=30_000)
    before = tab.runs.finished
    tools = tab.page.locator(".st-key-model_map .export")
    with tab.page.expect_download() as got:
        tools.get_by_role("button", name="Save SVG").click()
    root = ET.fromstring(open(got.value.path(), "rb").read())
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert [f"layer {layer} · head {h}" for layer in range(3) for h in range(4)] == [
        t for t in texts if t and t.startswith("layer ")
    ]
    cells = [r for r in root.iter(f"{ns}rect") if r.get("fill", "").startswith("#")]
    assert len(cells) >= 12 * 16, len(cells)  # 12 maps of 4 × 4 (and the background, the masked swatch)
    xs = sorted({float(r.get("x")) for r in cells})
    ys = sorted({float(r.get("y")) for r in cells})
    assert len(xs) >= 4 * 4 and len(ys) >= 3 * 4  # four maps across, three rows of them
    with tab.page.expect_download() as got:
        tools.get_by_role("button", name="Save PNG ×3").click()
    picture = Image.open(got.value.path())
    assert picture.width == 3 * int(root.get("width")) and len(picture.convert("RGB").getcolors(1 << 16) or ()) > 20
    assert tab.runs.finished == before, "saving the figure ran the script"
    tab.assert_clean()


def test_layers_slider_and_layer_picker_on_a_page(tab):
    tab.open("/scores")
    assert "raw scores Q·K^T, head 0: 4 × 4" in bs.chart_shapes(tab.page)
    thumb = bs.slider(tab.page, "layers")
    tab.settle_after(lambda: (thumb.focus(), thumb.press("ArrowRight")))  # 1 → 2 layers
    assert bs.slider_value(tab.page, "layers") == 2 and tab.query().get("layers") == "2"
    assert "raw scores Q·K^T, head 0, layer 0: 4 × 4" in bs.chart_shapes(tab.page)
    tab.page.locator("[data-testid='stSidebar'] .st-key-layer").click()
    tab.settle_after(lambda: tab.page.get_by_role("option", name=re.compile(r"^layer 1")).click())
    assert tab.query().get("layer") == "1"
    assert "raw scores Q·K^T, head 0, layer 1: 4 × 4" in bs.chart_shapes(tab.page)
    assert bs.cell_counts(tab.page) == [16, 16]
    tab.reload()  # a new session: the URL restores it
    assert "raw scores Q·K^T, head 0, layer 1: 4 × 4" in bs.chart_shapes(tab.page)
    tab.shot("scores-layer-1-of-2")
    tab.assert_clean()


# ------------------------------------------------------------------------------- trained presets
@pytest.mark.parametrize("task", presets.TRAINED_TASKS)
def test_every_page_shows_a_trained_preset(tab, task):
    """With a trained preset every page draws its frame and charts on the task's sequence, no exception:
    every page for a one-block task, for induction's two layers and for the English text model; the softmax page
    for the other tasks (the same one-block model; AppTest covers their every page)."""
    rows = presets.shown_length(engine.TASKS[task])  # the text preset shows a prefix of its windows
    every = task in ("previous", "induction", "text")
    for path, _file, title, charts, keys in [p for p in bs.PAGES if every or p[0] == "softmax"]:
        tab.open(f"/{path}?preset=trained-{task}")
        assert_frame(tab, path, title, charts, keys, rows=rows)
        assert tab.query().get("preset") == f"trained-{task}"
        tab.assert_clean()


def test_a_tiny_weight_is_never_printed_as_zero_in_a_cell(tab):
    """Issue 23's number rule inside the maps: the trained largest-token block puts weights far below
    0.005 on most keys; a cell prints one as '<0.01' and only a weight that is exactly 0 as '0.00'."""
    from ui import compute
    from ui.shell import state

    params = {"preset": "trained-max"}
    tab.open("/softmax?preset=trained-max")
    texts = tab.chart("softmax_map").locator("td[role='gridcell']").all_text_contents()  # the cells, row-major
    controls, _ = url.from_params(params)
    weights = compute.trace(
        handle_of(state.to_config(controls), presets.training(controls.preset)), state.to_tokens(controls).words
    ).weights[0]
    assert len(texts) == weights.size
    assert texts.count("<0.01") == int(((weights > 0) & (weights < 0.005)).sum()) > 0
    assert texts.count("0.00") == int((weights == 0).sum())
    tab.assert_clean()
