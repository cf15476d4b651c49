"""The app on a phone: 390 × 844 px at 3× pixels, touch only, a phone's browser (the lecture hall's screen).

One server, one browser context and one tab for the module; every page is opened at 4, 16 and 64
tokens. A phone's first visit is drawn for the narrowest phone (360 px) and measured: at 390 px that
costs one more run; the measurement is remembered (a cookie), so the next visit is drawn at the right
width on its first run. Each test ends with the same cleanliness checks as tests/test_browser.py (no
exception, no console error, nothing fetched from another host). Screenshots of failures go to
test-artifacts/browser/.
"""

from __future__ import annotations

import re

import pytest
from test_browser import SECTIONS, Tab

from harness import browser as bs
from ui.prose.numbers import parse

pytestmark = pytest.mark.browser

IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1"
)
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "has_touch": True,
    "is_mobile": True,
    "user_agent": IPHONE,
}
LENGTHS = ((4, "part4"), (16, "day33"), (64, "part4"))  # tokens, preset
TAPPED = {
    "scores": ("scores_maps", "Worked cell"),
    "softmax": ("softmax_map", "Worked cell"),
    "qkv": ("qkv_slice", "Worked entry"),
}  # chart a tap picks a cell on, what then shows (a worked cell: in the map's own panel, with no run)


@pytest.fixture(scope="module")
def tab(playwright):
    """One phone tab on one server (the server's first session is spent on the root URL)."""
    with bs.chromium(playwright, **PHONE) as context, bs.Server(log_name="phone-tests.log") as server:
        bs.instrument(context)
        t = Tab(context, server)
        t.open("/")
        yield t
        t.close()


def open_page(tab: Tab, path: str, first_visit: bool, runs: int) -> None:
    """Open a page in a new session, as a student's first visit (nothing remembered: no sidebar toggle,
    no measured screen) or a later one; exactly `runs` script runs draw it."""
    if first_visit:
        tab.page.context.clear_cookies()
    if tab.page.url.startswith("http"):
        tab.page.evaluate("localStorage.clear()")  # Streamlit remembers a sidebar toggle there
    before = tab.runs.finished
    tab.page.goto(tab.server.url + path)
    tab.runs.wait_for(tab.page, before + runs, timeout=90)
    tab.page.wait_for_timeout(600)  # a measurement that differs would be sent by now
    bs.wait_ready(tab.page, timeout=90)
    assert tab.runs.finished - before == runs, f"{path}: {tab.runs.finished - before} runs, not {runs}"


def sidebar_collapsed(tab: Tab) -> bool:
    bar = tab.page.locator("[data-testid='stSidebar']")
    box = bar.bounding_box()
    return bar.get_attribute("data-collapsed") == "true" and (box is None or box["x"] + box["width"] <= 0)


def tap(tab: Tab, locator) -> None:
    """A finger on the element's centre, then the run it starts, drawn."""
    tab.settle_after(lambda: locator.tap())


def tap_a_cell(tab: Tab, key: str, T: int, worked: str) -> None:
    """Tap a cell of the map `key` (its last map): a worked cell shows in the map's panel with no server run, the
    tapped cell's (on a vector map: its accessible name's query and key); a worked entry (the Q/K/V slice, a part
    the server draws) shows after one run, with the value the cell's name gives."""
    chart = tab.chart(key)
    grid = chart.locator("[data-testid='attention-map-grid']").last
    cells = grid.locator("td[role='gridcell']")
    n_cols = T if key != "qkv_slice" else cells.count() // T
    i, j = T - 1, n_cols // 2
    if cells.count():
        cell = cells.nth(i * n_cols + j)
        cell.scroll_into_view_if_needed()
        label = cell.get_attribute("aria-label")
        box = cell.bounding_box()
    else:  # a canvas (1,024 cells and more): the finger on its middle
        canvas = chart.locator(".stage canvas").last
        canvas.scroll_into_view_if_needed()
        label, box = None, canvas.bounding_box()
    point = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if worked == "Worked cell":
        before = tab.runs.finished
        tab.page.touchscreen.tap(*point)
        first = chart.locator("[data-testid='attention-map-work']").inner_text().splitlines()[0]
        assert first.startswith("query ") and " → key " in first, first
        if label is not None:
            assert label.startswith(first + ":"), (label, first)
        tab.page.wait_for_timeout(300)
        assert tab.runs.finished == before, "a tap on a map ran the script"
        return
    tab.settle_after(lambda: tab.page.touchscreen.tap(*point))
    heading = tab.page.locator("[data-testid='stMain'] h3").filter(has_text=re.compile("^" + worked))
    heading.first.wait_for()
    text = heading.first.inner_text()
    assert text.startswith(f"{worked}: Q[{i}, {j}]"), text
    value = parse(label.rsplit(": ", 1)[1])  # 3 significant digits
    latex = " ".join(tab.page.locator("[data-testid='stMain'] .katex").all_inner_texts()).replace("\n", "")
    shown = [float(x.replace("−", "-")) for x in re.findall(r"[−-]?\d+\.\d{5}", latex)]
    assert any(abs(x - value) <= 5e-3 * abs(value) + 1e-9 for x in shown), (value, shown)


def predict_and_reveal(tab: Tab) -> None:
    """The exercise by touch: a prediction, 'Check my prediction', then both twists."""
    tap(tab, tab.page.get_by_role("radiogroup").locator("label").first)
    tap(tab, tab.page.get_by_role("button", name="Check my prediction"))
    assert tab.page.get_by_text("You predicted:").count() == 1
    for label in ("Try it with the causal mask", "Try it with sinusoidal positions"):
        tap(tab, tab.page.get_by_text(label))


def sideways(tab: Tab) -> int:
    """How many px the page's main area is wider than the screen (it then scrolls sideways)."""
    return tab.page.evaluate("""() => { const main = document.querySelector("[data-testid='stMain']");
                                       return main.scrollWidth - main.clientWidth; }""")


def no_overlaps(tab: Tab, name: str) -> list:
    hits = bs.overlaps(tab.page)
    if hits:
        tab.shot(name)
    return hits


@pytest.mark.parametrize("path", [p for p, *_ in bs.PAGES], ids=[p or "root" for p, *_ in bs.PAGES])
def test_every_page_comes_first_and_fits_a_phone(tab, path):
    """The sidebar starts collapsed, the page never scrolls sideways (a wide table scrolls in its own box),
    and no chart leaves the screen or its column or covers anything, at 4, 16 and 64 tokens and both
    presets; a tap on a map picks its cell and shows the worked calculation.
    The first visit is measured once (one more run); later visits are drawn right on their first run."""
    found = {}
    for k, (T, preset) in enumerate(LENGTHS):
        open_page(tab, f"/{path}?seq_len={T}&preset={preset}", first_visit=k == 0, runs=2 if k == 0 else 1)
        assert sidebar_collapsed(tab), f"/{path}: the sidebar covers the page on load"
        if path == "exercise":
            predict_and_reveal(tab)
        for section in SECTIONS if path == "experiments" else [None]:
            if section and section != SECTIONS[0]:
                tap(tab, tab.page.get_by_role("radio", name=section))
            hits = no_overlaps(tab, f"phone-overlap-{path or 'root'}-{T}")
            if hits:
                found[(T, section)] = hits
            if wider := sideways(tab):  # a wide table scrolls in its own box, not the page
                found[(T, section, "page scrolls sideways by px")] = wider
        if path in TAPPED:
            tap_a_cell(tab, TAPPED[path][0], T, TAPPED[path][1])
    assert not found, found
    tab.assert_clean()


TEXT = "trained-text"  # the English text preset (a 64-wide model)


@pytest.mark.parametrize("path", [p for p, *_ in bs.PAGES], ids=[p or "root" for p, *_ in bs.PAGES])
def test_every_page_fits_a_phone_under_the_english_text_preset(tab, path):
    """Issue 47: the English text preset's wider model (d_model 64, 8 heads, 1,000 tokens) at 4, 16 and 64
    tokens: no chart leaves the screen or its column or covers anything, and the page never scrolls sideways
    (the Learn page on its own task, the English text)."""
    found = {}
    extra = "&task=text" if path == "learn" else ""
    for T in (4, 16, 64):
        before = tab.runs.finished  # how many runs a first visit takes: the test above
        tab.page.goto(f"{tab.server.url}/{path}?seq_len={T}&preset={TEXT}{extra}")
        tab.runs.wait_for(tab.page, before + 1, timeout=90)
        tab.page.wait_for_timeout(1500)  # the measured screen, if it differs, is sent by now
        bs.wait_ready(tab.page, timeout=90)
        if path == "exercise":
            predict_and_reveal(tab)
        for section in SECTIONS if path == "experiments" else [None]:
            if section and section != SECTIONS[0]:
                tap(tab, tab.page.get_by_role("radio", name=section))
            if hits := no_overlaps(tab, f"phone-text-overlap-{path or 'root'}-{T}"):
                found[(T, section)] = hits
            if wider := sideways(tab):
                found[(T, section, "page scrolls sideways by px")] = wider
    assert not found, found
    tab.assert_clean()


@pytest.mark.parametrize("path", ["/qkv?seq_len=4", "/heads?seq_len=16&heads=4&d_model=64", "/exercise?seq_len=8"])
def test_the_first_run_fits_the_narrowest_phone_then_a_turn_refits(tab, path):
    """At 360 px a phone's first visit fits on its first run (no measuring run: the guess is 360 px);
    turned sideways, the wider screen is measured and the charts refitted in one run."""
    tab.page.set_viewport_size({"width": 360, "height": 740})
    try:
        open_page(tab, path, first_visit=True, runs=1)
        assert sidebar_collapsed(tab)
        assert not no_overlaps(tab, "phone-overlap-360")
        tab.settle_after(lambda: tab.page.set_viewport_size({"width": 740, "height": 360}))
        assert not no_overlaps(tab, "phone-overlap-740")
        tab.settle_after(lambda: tab.page.set_viewport_size(PHONE["viewport"]))  # upright again: remembered
        assert not no_overlaps(tab, "phone-overlap-390")
    finally:
        tab.page.set_viewport_size(PHONE["viewport"])
    tab.assert_clean()


def touch_drag(tab: Tab, locator, dx: float) -> None:
    """A finger put on the element, moved dx px sideways in small steps, lifted (Chromium's touch events)."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = tab.page.context.new_cdp_session(tab.page)

    def send(kind: str, px: float):
        return cdp.send(
            "Input.dispatchTouchEvent",
            {
                "type": kind,
                "touchPoints": [] if kind == "touchEnd" else [{"x": px, "y": y}],
            },
        )

    send("touchStart", x)
    for k in range(1, 11):
        send("touchMove", x + dx * k / 10)
    send("touchEnd", x + dx)
    cdp.detach()


def slider(tab: Tab, where: str, key: str):
    """A slider's range input (its value; visually hidden) in the sidebar or the main area."""
    return tab.page.locator(f"[data-testid='{where}'] .st-key-{key} input[type='range']")


def thumb(tab: Tab, where: str, key: str):
    """The slider's thumb, what a finger drags (the range input's grandparent)."""
    return slider(tab, where, key).locator("xpath=../..")


def test_the_sidebar_works_by_touch(tab):
    """A lecturer's ?sidebar=1 opens it; a student opens it with a tap, drags a slider, picks a head."""
    open_page(tab, "/?sidebar=1", first_visit=False, runs=1)
    assert not sidebar_collapsed(tab), "?sidebar=1 should open the sidebar on a phone"

    open_page(tab, "/softmax", first_visit=False, runs=1)
    assert sidebar_collapsed(tab)
    tab.page.locator("[data-testid='stExpandSidebarButton']").tap()
    tab.page.locator("[data-testid='stSidebar'][data-collapsed='false']").wait_for()
    tab.settle_after(lambda: touch_drag(tab, thumb(tab, "stSidebar", "seq_len"), 60))
    T = bs.slider_value(tab.page, "seq_len")
    assert T > 4 and tab.query().get("seq_len") == str(T)

    tab.page.locator("[data-testid='stSidebar'] .st-key-head [role='combobox']").tap()
    tab.settle_after(lambda: tab.page.get_by_role("option", name=re.compile(r"^head 1")).tap())
    assert tab.query().get("head") == "1"
    title = tab.page.locator(".st-key-softmax_map .amap .title").first.text_content()
    assert title.startswith(f"weights, head 1: {T} × {T}"), title
    tab.page.evaluate("localStorage.clear()")
    tab.assert_clean()


def test_the_learn_page_trains_and_replays_by_touch(tab):
    """Train (a tap) if this server has not yet, then drag the replay's scrubber back to the start with a finger:
    the maps redraw in the browser, the release is one run and the address's replay=0."""
    open_page(tab, "/learn", first_visit=False, runs=1)
    train = tab.page.get_by_role("button", name="Train")
    if train.count():
        before = tab.runs.finished
        train.tap()
        tab.runs.wait_for(tab.page, before + 1, timeout=300)
        bs.wait_ready(tab.page, timeout=90)
    replay = tab.page.locator(".st-key-learn_grid [data-testid='attention-map-scrub']")
    replay.wait_for(timeout=120_000)
    last = replay.get_attribute("aria-valuetext")
    before = tab.runs.finished
    tab.settle_after(lambda: touch_drag(tab, replay, -400))
    tab.page.wait_for_timeout(800)  # the scrubber rests, then its one run
    first = replay.get_attribute("aria-valuetext")
    assert first.startswith("the weights after step 0 of") and last != first, (first, last)
    assert tab.runs.finished - before == 1 and tab.query().get("replay") == "0"
    assert tab.page.locator(".amap .map").filter(has=tab.page.get_by_text("head 0", exact=True)).count() >= 1
    assert not no_overlaps(tab, "phone-overlap-learn-replay")
    tab.assert_clean()


def test_a_deep_link_is_a_phones_first_visit_on_a_fresh_server(playwright):
    """A shared link opened on a phone is the first session of a server that just woke up: the page
    comes first, fits, and a tap on a map shows its calculation."""
    with bs.chromium(playwright, **PHONE) as context, bs.Server(log_name="phone-deeplink.log") as server:
        bs.instrument(context)
        tab = Tab(context, server)
        try:
            open_page(tab, "/scores?seq_len=6&seed=7", first_visit=True, runs=2)
            assert tab.runs.page_not_found == 0 and tab.page.get_by_text("Page not found").count() == 0
            assert sidebar_collapsed(tab)
            assert not no_overlaps(tab, "phone-overlap-deeplink")
            tap_a_cell(tab, "scores_maps", 6, "Worked cell")
            tab.assert_clean()
        finally:
            tab.close()
