"""What a lecturer feels: from a slider key press to every chart drawn, in headless Chromium.

For each page and each sequence length (4, 16 and the slider's maximum) the page is opened with
?seq_len=L, the "Sequence length T" slider is focused and moved with the arrow keys (alternately
one step away and back, so the length stays near L), and each move is timed from the keydown to
the last DOM change after which the page is ready (script finished, nothing stale, every chart
drawn) and stays still for 300 ms; the quiet wait is not counted. The median over the moves is
reported, with the websocket bytes the move brought.

Alongside runs a "floor": an app this script writes to a temp folder with one slider and one
Altair heatmap of the same T × T size and nothing else, on its own server with the same
.streamlit/config.toml. The ratio page / floor is the app's own overhead.

Also: every other slider at its maximum (d_model, d_ff, heads) and all of them at once (page fully
drawn after a move), and switching pages at the defaults (click in the sidebar navigation to
drawn and still).

    python -m benchmarks.latency               # everything (about 3-4 minutes)
    python -m benchmarks.latency --moves 5 --pages scores,qkv --lengths 4,64 --no-extremes
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
from pathlib import Path

from benchmarks.floor_app import write_floor
from harness import browser as bs

TARGET_RATIO = 1.5  # default configuration: page ≤ 1.5 × floor
TARGET_MAX_S = 1.5  # every page at every slider's maximum, fully drawn
TARGET_SWITCH_S = 0.4  # page switch at the defaults
SEQ = "seq_len"  # the sidebar widget keys
MAXIMA = {"d_model": 128, "d_ff": 512, "heads": 16, "seq_len": 64}


class Tab:
    """One browser tab with the instrumentation and a websocket run counter."""

    def __init__(self, context):
        self.page = context.new_page()
        self.runs = bs.Runs(self.page)

    def open(self, url: str, quiet_ms: int = 300) -> None:
        before = self.runs.finished
        self.page.bring_to_front()
        self.page.goto(url)
        self.runs.wait_for(self.page, before + 1, timeout=60)
        bs.wait_ready(self.page, quiet_ms=quiet_ms, timeout=60)

    def move(self, widget: str, key: str) -> tuple[float, int]:
        """Press key on the slider; returns (ms from keydown to drawn, websocket bytes of the run)."""
        thumb = bs.slider(self.page, widget)
        thumb.focus()
        before, received = self.runs.finished, self.runs.bytes
        thumb.press(key)
        last = bs.settle(self.page, self.runs, before, timeout=60)
        key_at = self.page.evaluate("window.__lab.keyAt")
        return last - key_at, self.runs.bytes - received

    def moves(self, widget: str, start: int, high: int, count: int, expect_rows: bool) -> tuple[list[float], list[int]]:
        """count moves one step away from `start` and back (down first at the maximum); checks that
        the slider moved and, when asked, that the first chart now has as many rows as it shows."""
        times, sizes = [], []
        away, back = ("ArrowLeft", "ArrowRight") if start >= high else ("ArrowRight", "ArrowLeft")
        for i in range(count):
            before = bs.slider_value(self.page, widget)
            ms, size = self.move(widget, away if i % 2 == 0 else back)
            now = bs.slider_value(self.page, widget)
            if now == before:
                raise AssertionError(f"{widget}: the slider did not move from {before}")
            if expect_rows:
                rows = first_chart_rows(self.page)  # None: drawn on a canvas (no axes in the DOM)
                if rows is not None and rows != now:
                    raise AssertionError(f"the first chart has {rows} rows, expected {now}")
            times.append(ms)
            sizes.append(size)
        return times, sizes


def first_chart_rows(page) -> int | None:
    """Rows (token labels) of the page's first attention map, else of its first Vega chart's y axis; None if that
    chart is painted on a canvas."""
    return page.evaluate(
        """() => {
             const maps = window.__lab.maps();
             if (maps.length) return maps[0].rows;
             const chart = document.querySelector("[data-testid='stVegaLiteChart']");
             const svg = chart && chart.querySelector('svg.marks');
             if (!svg) return null;
             const axis = [...svg.querySelectorAll('g.role-axis')]
                 .find(a => (a.getAttribute('aria-label') || '').startsWith('Y-axis'));
             return axis ? axis.querySelectorAll('g.role-axis-label text').length : null;
           }"""
    )


def page_url(base: str, path: str, query: str = "") -> str:
    return f"{base}/{path}" + (f"?{query}" if query else "")


def measure_lengths(tab: Tab, floor_tab: Tab, app: str, floor: str, pages, lengths, moves, charted) -> dict:
    results: dict = {"floor": {}, "pages": {}}
    for length in lengths:
        floor_times: list[float] = []
        floor_tab.open(page_url(floor, "", f"seq_len={length}"))
        t, _ = floor_tab.moves(SEQ, length, MAXIMA["seq_len"], moves, expect_rows=True)
        floor_times += t
        for path, _title in pages:
            tab.open(page_url(app, path, f"seq_len={length}" if length != 4 else ""))
            t, sizes = tab.moves(SEQ, length, MAXIMA["seq_len"], moves, expect_rows=path in charted)
            results["pages"].setdefault(path, {})[length] = {
                "median_ms": statistics.median(t),
                "all_ms": [round(x) for x in t],
                "bytes_median": statistics.median(sizes),
            }
            print(
                f"  T={length:<3} /{path:<8} {statistics.median(t):7.0f} ms   "
                f"({', '.join(f'{x:.0f}' for x in t)})  {statistics.median(sizes) / 1024:7.1f} KiB/run",
                flush=True,
            )
        floor_tab.open(page_url(floor, "", f"seq_len={length}"))  # again after the pages: drift
        t, _ = floor_tab.moves(SEQ, length, MAXIMA["seq_len"], moves, expect_rows=True)
        floor_times += t
        results["floor"][length] = {
            "median_ms": statistics.median(floor_times),
            "all_ms": [round(x) for x in floor_times],
        }
        print(
            f"  T={length:<3} floor     {statistics.median(floor_times):7.0f} ms   "
            f"({', '.join(f'{x:.0f}' for x in floor_times)})",
            flush=True,
        )
    return results


def measure_extremes(tab: Tab, app: str, pages, moves: int) -> dict:
    """Each slider at its maximum (the others at defaults), and all at once: time to fully drawn."""
    cases = {  # name: (query string, slider key, its value, its maximum)
        "seq_len=64": ("seq_len=64", SEQ, 64, 64),
        "d_model=128": ("d_model=128", "d_model", 128, 128),
        "d_ff=512": ("d_ff=512", "d_ff", 512, 512),
        "heads=16": ("d_model=128&heads=16", "heads", 16, 16),
        "all at max": ("seq_len=64&d_model=128&heads=16&d_ff=512", SEQ, 64, 64),
    }
    out: dict = {}
    for name, (query, widget, start, high) in cases.items():
        for path, _title in pages:
            tab.open(page_url(app, path, query))
            t, sizes = tab.moves(widget, start, high, moves, expect_rows=False)
            out.setdefault(name, {})[path] = {
                "median_ms": statistics.median(t),
                "max_ms": max(t),
                "bytes_median": statistics.median(sizes),
            }
            print(
                f"  {name:<12} /{path:<8} median {statistics.median(t):7.0f} ms  max {max(t):7.0f} ms  "
                f"{statistics.median(sizes) / 1024:7.1f} KiB/run",
                flush=True,
            )
    return out


def measure_switch(tab: Tab, app: str, pages, rounds: int) -> dict:
    """Click each page in the sidebar navigation in turn, at the default controls."""
    tab.open(page_url(app, ""))
    out: dict = {}
    order = pages[1:] + pages[:1]
    for _ in range(rounds):
        for path, title in order:
            link = tab.page.locator("[data-testid='stSidebarNav'] [data-testid='stSidebarNavLink']").filter(
                has_text=title
            )
            before = tab.runs.finished
            link.first.click()
            last = bs.settle(tab.page, tab.runs, before, timeout=60)
            ms = last - tab.page.evaluate("window.__lab.clickAt")
            out.setdefault(path, []).append(ms)
    for path, times in out.items():
        print(f"  → /{path:<8} {statistics.median(times):7.0f} ms   ({', '.join(f'{x:.0f}' for x in times)})")
    return {path: statistics.median(times) for path, times in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=6, help="moves per page and length (≥ 5)")
    parser.add_argument("--lengths", default="4,16,64")
    parser.add_argument("--pages", default="", help="comma-separated url paths ('' or inputs = /)")
    parser.add_argument("--no-extremes", action="store_true", help="skip the other sliders' maxima")
    parser.add_argument("--switch-rounds", type=int, default=3)
    parser.add_argument("--json", default="", help="also write the figures to this JSON file")
    args = parser.parse_args()
    if reason := bs.missing_browser_reason():
        raise SystemExit(reason)
    from playwright.sync_api import sync_playwright

    pages = [(path, title) for path, _, title, *_ in bs.PAGES]
    charted = bs.CONCEPT_PAGES  # the first chart of these has T rows: checked per move
    if args.pages:
        wanted = {"" if p in ("", "inputs", "/") else p.strip("/") for p in args.pages.split(",")}
        pages = [(path, title) for path, title in pages if path in wanted]
    # A page that trains (the Learn page) shows its training controls in the sidebar, not the sizes: no
    # sequence-length slider to move there; it is still in the page switches.
    trains = {"" if page is bs.site.PAGES[0] else page.path for page in bs.site.PAGES if page.trains}
    switched, pages = pages, [(path, title) for path, title in pages if path not in trains]
    if len(pages) < len(switched):
        print(
            "not moved (their sidebar has no sequence-length slider): "
            + ", ".join(f"/{path}" for path, _ in switched if path in trains),
            flush=True,
        )
    lengths = [int(x) for x in args.lengths.split(",") if x.strip().isdigit()]  # "none": skip
    floor_dir = write_floor()
    report: dict = {}
    app = bs.Server(log_name="latency-app.log")
    floor = bs.Server(app="floor_app.py", cwd=floor_dir, log_name="latency-floor.log")
    try:
        app.start()
        floor.start()
        with sync_playwright() as p, bs.chromium(p) as context:
            bs.instrument(context)
            tab, floor_tab = Tab(context), Tab(context)
            tab.open(page_url(app.url, ""))  # warm both servers (imports)
            floor_tab.open(page_url(floor.url, ""))
            report["lengths"] = {"floor": {}, "pages": {}}
            if lengths:
                print(f"slider key press → every chart drawn and still (median of {args.moves} moves)", flush=True)
                report["lengths"] = measure_lengths(
                    tab, floor_tab, app.url, floor.url, pages, lengths, args.moves, charted
                )
            if not args.no_extremes:
                print("each slider at its maximum (others at defaults), then all at once", flush=True)
                report["extremes"] = measure_extremes(tab, app.url, pages, max(5, args.moves // 2 * 2 - 1))
            report["switch"] = {}
            if args.switch_rounds:
                print("page switch at the defaults (click → drawn and still)", flush=True)
                report["switch"] = measure_switch(tab, app.url, switched, args.switch_rounds)
    finally:
        app.stop()
        floor.stop()
        shutil.rmtree(floor_dir, ignore_errors=True)

    print("\nSummary")
    floor_at = report["lengths"]["floor"]
    for length in lengths:
        row = []
        for path, _ in pages:
            ms = report["lengths"]["pages"][path][length]["median_ms"]
            row.append(f"/{path or ''} {ms:.0f} ({ms / floor_at[length]['median_ms']:.2f}×)")
        print(f"  T={length:<3} floor {floor_at[length]['median_ms']:.0f} ms | " + " | ".join(row))
    default = [
        report["lengths"]["pages"][p][4]["median_ms"] / floor_at[4]["median_ms"]
        for p, _ in pages
        if 4 in report["lengths"]["pages"].get(p, {}) and 4 in floor_at
    ]
    if default:
        print(f"  default configuration: worst page / floor = {max(default):.2f}× (target ≤ {TARGET_RATIO}×)")
    worst = [
        (v["median_ms"], f"{case} /{path}")
        for case, by_page in report.get("extremes", {}).items()
        for path, v in by_page.items()
    ]
    if worst:
        ms, where = max(worst)
        print(f"  slider maxima: slowest median {ms:.0f} ms at {where} (target ≤ {TARGET_MAX_S * 1000:.0f} ms)")
    if report["switch"]:
        ms = max(report["switch"].values())
        print(
            f"  page switch: slowest median {ms:.0f} ms (target ≤ {TARGET_SWITCH_S * 1000:.0f} ms), "
            f"median of all {statistics.median(report['switch'].values()):.0f} ms"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
