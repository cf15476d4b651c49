"""In a page of the app that Chromium shows (harness.browser exports these): waiting until the script finished
and every chart is drawn, counting the script's runs, reading what the page drew (chart shapes, table cells,
sliders), opening an expander, and finding charts that do not fit.
"""

from __future__ import annotations

import time

# Installed before any page script: counts DOM mutations and remembers when the last one happened
# and when the last key went down / the last click landed, all on the page's own clock.
INSTRUMENT = """
(() => {
  if (window.__lab) return;
  const lab = window.__lab = {lastMutation: performance.now(), keyAt: 0, clickAt: 0, mutations: 0};
  // A canvas's child nodes are fallback content (the data grid keeps an accessibility table there,
  // refreshed ~300 ms after each draw): never painted, so not counted as the page changing.
  const drawn = (r) => !(r.target.nodeName === 'CANVAS' && r.type === 'childList')
      && !(r.target.parentElement && r.target.parentElement.closest('canvas'));
  const observer = new MutationObserver((records) => {
    if (!records.some(drawn)) return;
    lab.lastMutation = performance.now(); lab.mutations++;
  });
  const watching = {subtree: true, childList: true, attributes: true, characterData: true};
  const start = () => observer.observe(document.documentElement, watching);
  if (document.documentElement) start(); else document.addEventListener('readystatechange', start, {once: true});
  window.addEventListener('keydown', () => { lab.keyAt = performance.now(); }, true);
  window.addEventListener('pointerdown', () => { lab.clickAt = performance.now(); }, true);
  // The attention maps (ui/charts/attention_map.py): each component's .amap root, inside its open shadow root.
  // Their changes are watched too (a shadow root's mutations do not reach the document's observer), and each
  // map's script stamps when it drew (data-drawn-at, the page's clock): a draw before the watching began counts.
  const shadows = new WeakSet();
  lab.amaps = () => [...document.querySelectorAll("[data-testid^='stBidiComponent']")]
      .map(host => [host, ...host.querySelectorAll('*')].find(e => e.shadowRoot))
      .filter(Boolean).map(host => {
        const shadow = host.shadowRoot;
        if (!shadows.has(shadow)) { shadows.add(shadow); observer.observe(shadow, watching); }
        const root = shadow.querySelector('.amap');
        if (root && +root.dataset.drawnAt > lab.lastMutation) lab.lastMutation = +root.dataset.drawnAt;
        return root;
      }).filter(Boolean);
  // Each drawn map of them: {title, rows, cols, cells, grid (its table or painted box)}.
  lab.maps = () => lab.amaps().flatMap(root => [...root.querySelectorAll('.map')].map(map => {
    const grid = map.querySelector('table.grid, .raster');
    const raster = grid && grid.classList.contains('raster');
    const rows = map.querySelectorAll(raster ? '.left .label' : 'th.row').length;
    const cols = map.querySelectorAll(raster ? '.top .label' : 'th.col').length;
    return {title: (map.querySelector('.title') || {}).textContent || '', rows, cols, grid, map,
            cells: raster ? rows * cols : map.querySelectorAll('td.cell').length};
  }));
  // Ready: the script is not running, the socket is connected, nothing is stale, every chart
  // has a drawn svg with marks in it, and every attention map is built.
  lab.ready = () => {
    const app = document.querySelector("[data-testid='stApp']");
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
    // Lazily loaded elements (the chart code is a separate bundle) show a skeleton until loaded.
    if (document.querySelector("[data-stale='true'], [data-testid='stAppSkeleton'], "
        + "[data-testid='stSkeleton'], [data-testid='stSkeletonElement']")) return false;
    // Streamlit's frontend draws big charts (> 2000 data points per mark) on a canvas instead of svg.
    if (!lab.amaps().every(root => (root.querySelector('.maps .map') || root.querySelector('.sentence'))
        && lab.maps().every(m => m.grid && m.grid.getBoundingClientRect().height > 0))) return false;
    return [...document.querySelectorAll("[data-testid='stVegaLiteChart']")].every(chart => {
      if (!chart.classList.contains('vega-embed')) return false;
      const svg = chart.querySelector('svg.marks');
      // Vega loads an image mark's picture first and sets its href only once it has loaded.
      if (svg) return svg.getBoundingClientRect().height > 0
          && svg.querySelector('g.mark-rect, g.mark-text, g.mark-group') !== null
          && [...svg.querySelectorAll('g.mark-image image')].every(img => !!img.getAttribute('href'));
      const canvas = chart.querySelector('canvas.marks');
      return !!canvas && canvas.getBoundingClientRect().height > 0;
    });
  };
})();
"""


def instrument(context) -> None:
    context.add_init_script(INSTRUMENT)


class Runs:
    """Watches the page's Streamlit websocket from Python: finished script runs and bytes received.

    A finished run is a ForwardMsg script_finished that is not FINISHED_EARLY_FOR_RERUN. The DOM cannot
    say this reliably (a fast run may never show the 'running' state), the socket can.
    """

    def __init__(self, page):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self._ForwardMsg = ForwardMsg
        self.finished = 0
        self.bytes = 0
        self.messages = 0
        self.page_not_found = 0
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        if ws.url.endswith("/_stcore/stream"):
            ws.on("framereceived", self._frame)

    def _frame(self, payload) -> None:
        if isinstance(payload, str):
            return
        self.bytes += len(payload)
        self.messages += 1
        msg = self._ForwardMsg()
        msg.ParseFromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "script_finished" and msg.script_finished != self._ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            self.finished += 1
        elif kind == "page_not_found":
            self.page_not_found += 1

    def wait_for(self, page, count: int, timeout: float = 30) -> None:
        """Wait until at least `count` runs have finished (events are delivered while we poll)."""
        deadline = time.monotonic() + timeout
        while self.finished < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {self.finished} of {count} script runs finished in {timeout} s")
            page.wait_for_timeout(10)


def wait_ready(page, quiet_ms: int = 300, timeout: float = 30, min_charts: int = 0) -> float:
    """Wait until the app is ready (window.__lab.ready()) and the DOM has not changed for quiet_ms.

    Returns the page-clock time (performance.now(), ms) of the last DOM change: the moment the page
    was finally drawn, without the quiet wait.
    """
    deadline = time.monotonic() + timeout
    while True:
        state = page.evaluate(
            """([quiet, minCharts]) => {
                 const lab = window.__lab;
                 const now = performance.now();
                 const charts = !lab ? 0 : document.querySelectorAll("[data-testid='stVegaLiteChart']").length
                     + lab.maps().length;
                 const ok = !!lab && lab.ready() && charts >= minCharts;
                 return {ok, settled: ok && now - lab.lastMutation >= quiet, last: lab.lastMutation, now};
               }""",
            [quiet_ms, min_charts],
        )
        if state["settled"]:
            return state["last"]
        if time.monotonic() > deadline:
            raise TimeoutError(f"page not ready within {timeout} s (ready={state['ok']})")
        time.sleep(0.05)  # not part of the measured time; polling a huge DOM more often would be


def settle(page, runs: Runs, before: int, quiet_ms: int = 300, timeout: float = 30) -> float:
    """After an action: wait for a new finished run, then for the drawn, quiet page (see wait_ready)."""
    runs.wait_for(page, before + 1, timeout)
    return wait_ready(page, quiet_ms=quiet_ms, timeout=timeout)


def chart_shapes(page) -> dict[str, tuple[int, int]]:
    """{chart title: (rows, columns)} read from each drawn svg chart's axes (y labels, x labels), a Vega chart
    painted on a canvas from its text alternative ('<title>. Heatmap of R rows … × C columns …'), and each attention
    map from its token labels."""
    return {
        item["title"]: (item["rows"], item["cols"])
        for item in page.evaluate(
            """() => window.__lab.maps().map(m => ({title: m.title, rows: m.rows, cols: m.cols})).concat(
             [...document.querySelectorAll("[data-testid='stVegaLiteChart']")].map(chart => {
             const svg = chart.querySelector('svg.marks');
             if (!svg) {
               const about = chart.getAttribute('aria-label') || '';
               const m = about.match(/^(.*)\\. Heatmap of (\\d+) rows.* × (\\d+) columns/);
               return m && chart.querySelector('canvas.marks') ? {title: m[1], rows: +m[2], cols: +m[3]} : null;
             }
             const axes = [...svg.querySelectorAll("g.role-axis")];
             const count = (prefix) => {
               const axis = axes.find(a => (a.getAttribute('aria-label') || '').startsWith(prefix));
               return axis ? axis.querySelectorAll('g.role-axis-label text').length : 0;
             };
             const title = svg.querySelector('g.role-title-text text');
             return {title: title ? title.textContent : '', rows: count('Y-axis'), cols: count('X-axis')};
           })).filter(item => item !== null)"""
        )
    }


def cell_counts(page) -> list[int]:
    """Number of coloured cells in every drawn attention map (in page order), then in every Vega chart's svg (rect
    marks of the first layer)."""
    return page.evaluate(
        """() => window.__lab.maps().map(m => m.cells).concat(
             [...document.querySelectorAll("[data-testid='stVegaLiteChart'] svg.marks")].map(svg => {
             const layer = svg.querySelector('g.mark-rect.role-mark');
             return layer ? layer.querySelectorAll("path[aria-roledescription='rect mark']").length : 0;
           }))"""
    )


EXPORTS = "Download these numbers, save figures for slides"  # ui.page.footer.exports' expander


def open_expander(page, runs: Runs, label: str, timeout: float = 60) -> None:
    """Open an expander drawn lazily (ui.page.lazy.opened): its content comes with the run opening it starts."""
    details = (
        page.locator("[data-testid='stExpander'] details").filter(has=page.locator("summary", has_text=label)).first
    )
    details.wait_for(timeout=timeout * 1000)
    if details.get_attribute("open") is not None:
        return
    before = runs.finished
    details.locator("summary").click()
    settle(page, runs, before, timeout=timeout)


def slider(page, key: str):
    """The keyboard-focusable thumb of the sidebar slider (or select_slider) with this widget key."""
    return page.locator(f"[data-testid='stSidebar'] .st-key-{key} input[type='range']")


def slider_value(page, key: str) -> int:
    """The value the slider shows (for a select_slider the option, not its index)."""
    return int(float(slider(page, key).get_attribute("aria-valuetext")))


# ------------------------------------------------------------------------ charts that do not fit
# Every drawn chart (its svg or canvas) against its column and every other element in the main area:
# [chart title, what it collides with, px wide, px tall] for each overlap beyond `slack` px.
OVERLAPS = """
(slack) => {
  const main = document.querySelector("[data-testid='stMain']");
  // What of an element can be seen: its box cut to every scrolling ancestor (a tall table scrolls in place).
  const box = (el) => {
    const b = el.getBoundingClientRect();
    let r = {left: b.left, top: b.top, right: b.right, bottom: b.bottom};
    for (let a = el.parentElement; a && a !== main; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      const k = a.getBoundingClientRect();
      r = {left: Math.max(r.left, k.left), top: Math.max(r.top, k.top), right: Math.min(r.right, k.right),
           bottom: Math.min(r.bottom, k.bottom)};
    }
    return {...r, width: r.right - r.left, height: r.bottom - r.top};
  };
  const name = (el) => {
    const map = el.closest('.map');
    if (map) return 'chart ' + (map.querySelector('.title') || {}).textContent;
    const chart = el.closest("[data-testid='stVegaLiteChart']");
    const title = chart && chart.querySelector('g.role-title-text text');
    if (title) return 'chart ' + title.textContent;
    return (el.getAttribute('data-testid') || el.tagName.toLowerCase()) + ' '
        + (el.textContent || '').trim().slice(0, 40);
  };
  // A chart's hover toolbar floats over it on purpose: not a collision.
  const visible = (el) => { const b = box(el); return b.width > 0 && b.height > 0
      && getComputedStyle(el).visibility !== 'hidden'
      && !el.closest("[data-testid='stElementToolbar'], details:not([open])"); };
  const charts = [...main.querySelectorAll(
      "[data-testid='stVegaLiteChart'] svg.marks, [data-testid='stVegaLiteChart'] canvas.marks")].filter(visible)
      .concat(window.__lab.maps().map(m => m.grid).filter(g => g && g.getBoundingClientRect().width > 0));
  const others = [...main.querySelectorAll(
      "[data-testid='stMarkdownContainer'] p, [data-testid='stMarkdownContainer'] table, h1, h2, h3, h4, h5, "
      + "[data-testid='stTable'], button, label, input, textarea, "
      + "[role='radiogroup'], [data-testid='stMetric'], .katex-display, [data-testid='stAlert']")]
      .filter(visible).concat(charts);
  const found = [];
  const edge = main.querySelector("[data-testid='stMainBlockContainer']");
  for (const chart of charts) {
    const c = chart.getBoundingClientRect();
    const outer = chart.getRootNode().host || chart;  // an attention map's grid: its component's element
    const column = outer.closest("[data-testid='stColumn']") || edge;
    const k = column.getBoundingClientRect();
    const out = Math.max(k.left - c.left, c.right - k.right);
    if (out > slack) found.push([name(chart), 'its column', Math.round(out), 0]);
    if (c.right > window.innerWidth + slack)
      found.push([name(chart), 'the screen edge', Math.round(c.right - window.innerWidth), 0]);
    // What Vega draws inside an svg may run past the svg's own box (a legend wider than the chart): measured too.
    for (const part of chart.tagName.toLowerCase() === 'svg' ? chart.querySelectorAll('g.role-legend') : []) {
      const p = part.getBoundingClientRect();
      const beyond = Math.max(k.left - p.left, p.right - k.right, p.right - window.innerWidth);
      if (p.width > 0 && beyond > slack) found.push([name(chart), 'its legend past its column', Math.round(beyond), 0]);
    }
    for (const other of others) {
      if (other === chart || other.contains(outer) || chart.contains(other)) continue;
      const o = box(other);
      const w = Math.min(c.right, o.right) - Math.max(c.left, o.left);
      const h = Math.min(c.bottom, o.bottom) - Math.max(c.top, o.top);
      if (w > slack && h > slack) found.push([name(chart), name(other), Math.round(w), Math.round(h)]);
    }
  }
  return found;
}
"""


def overlaps(page, slack: int = 3) -> list[list]:
    """Every drawn chart that leaves its column or the screen, or covers another element (see OVERLAPS)."""
    page.mouse.move(0, 0)  # no hover toolbar, no tooltip
    return page.evaluate(OVERLAPS, slack)
