"""Issue 50 in the browser: the roles tables' glosses on hover and on keyboard focus, and their reflow.

On the model view and the per-head page of the trained text model, on a 390 × 844 phone and a 1280 × 800 desktop:
the page never scrolls sideways, the roles table is reached with Tab, a name's gloss (the exact words of
ui.prose.controls.GLOSSES) shows when its name gets keyboard focus and when the pointer rests on it, Escape hides
it, and axe-core finds no serious or critical violation (a gloss open). Screenshots go to test-artifacts/browser/roles/.
"""

from __future__ import annotations

import pytest
from test_a11y import DESKTOP, FAILING, audit
from test_browser import Tab
from test_phone import PHONE

from harness import browser as bs
from ui.prose import controls as controls_words

pytestmark = pytest.mark.browser

SHOTS = bs.ARTIFACTS / "browser" / "roles"
VIEWPORTS = {"phone": PHONE, "desktop": DESKTOP}
PAGES = {  # page, the table's key and the name whose gloss is tried
    "model": ("/model?preset=trained-text", "model_roles", "initial weights"),
    "heads": ("/heads?preset=trained-text", "heads_role_0_0", "mean knock-out"),
}


@pytest.fixture(scope="module", params=list(VIEWPORTS))
def site_tab(request, playwright):
    """(viewport name, context, server): one browser and one server per viewport."""
    with (
        bs.chromium(playwright, **VIEWPORTS[request.param]) as context,
        bs.Server(log_name=f"roles-{request.param}.log") as server,
    ):
        bs.instrument(context)
        warm = Tab(context, server)
        warm.open("/")
        warm.close()
        yield request.param, context, server


def sideways(page) -> tuple[int, int]:
    return page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")


def tip_of(button):
    """The tooltip the button names with aria-describedby."""
    return button.page.locator(f"[id='{button.get_attribute('aria-describedby')}']")


TABBABLE = "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])"


def tab_to(page, button, most: int = 40) -> None:
    """Focus the page's last keyboard stop before the table, then press Tab until the button has focus: the
    table's names are in the page's Tab order."""
    button.evaluate(
        """(first, selector) => {
            const host = first.getRootNode().host || first;  // the component's shadow root's host
            const stops = [...document.querySelectorAll(selector)].filter(e => e.offsetParent !== null
              && !e.disabled && host.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_PRECEDING
              && !host.contains(e));
            stops[stops.length - 1].focus();
        }""",
        TABBABLE,
    )
    for _ in range(most):
        page.keyboard.press("Tab")
        if button.evaluate("b => b.getRootNode().activeElement === b"):
            return
    raise AssertionError(f"{button.inner_text()!r} not reached in {most} presses of Tab")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", list(PAGES))
def test_a_roles_tables_glosses_open_on_focus_and_hover_and_the_page_never_scrolls_sideways(site_tab, name):
    viewport, context, server = site_tab
    path, key, term = PAGES[name]
    tab = Tab(context, server)
    try:
        tab.open(path)
        page = tab.page
        table = page.locator(f".st-key-{key} .gtab")
        table.wait_for()
        table.scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        width, inner = sideways(page)
        assert width <= inner + 1, f"{viewport} {path}: the page scrolls sideways ({width} > {inner} px)"
        drawn, column = table.evaluate("r => [r.querySelector('table').scrollWidth, r.clientWidth]")
        assert drawn <= column + 1, f"the table is wider than its column: {drawn} > {column} px"
        if name == "model" and viewport == "phone":  # the wide table reflows into cards
            assert "cards" in table.get_attribute("class")
        buttons = table.locator("button.term")
        names = buttons.all_inner_texts()
        assert names and all(n in controls_words.GLOSSES for n in names), names
        button = buttons.filter(has_text=term).first
        tip = tip_of(button)
        assert tip.get_attribute("role") == "tooltip" and tip.is_hidden()

        tab_to(page, table.locator("button.term").first)
        for _ in range(list(names).index(term)):
            page.keyboard.press("Tab")
        assert button.evaluate("b => b.getRootNode().activeElement === b")
        tip.wait_for(state="visible", timeout=2000)
        assert tip.inner_text() == controls_words.GLOSSES[term]
        box, view = tip.bounding_box(), page.viewport_size
        assert box["x"] >= 0 and box["x"] + box["width"] <= view["width"] + 1, (box, view)
        width, inner = sideways(page)
        assert width <= inner + 1, f"{viewport} {path}: the open gloss widens the page ({width} > {inner} px)"
        page.screenshot(path=str(SHOTS / f"{viewport}-{name}-focus.png"))
        failing = [v for v in audit(page) if v["impact"] in FAILING]  # the open gloss's contrast too
        assert not failing, failing
        page.keyboard.press("Escape")
        tip.wait_for(state="hidden", timeout=2000)

        last = buttons.last  # the last name: its gloss stays inside the page too
        last.hover()
        last_tip = tip_of(last)
        last_tip.wait_for(state="visible", timeout=2000)
        assert last_tip.inner_text() == controls_words.GLOSSES[last.inner_text()]
        box = last_tip.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= view["width"] + 1, (box, view)
        page.screenshot(path=str(SHOTS / f"{viewport}-{name}-hover.png"))
        page.mouse.move(0, 0)
        last_tip.wait_for(state="hidden", timeout=2000)

        page.screenshot(path=str(SHOTS / f"{viewport}-{name}.png"), full_page=True)
        tab.assert_clean()
    finally:
        tab.close()
