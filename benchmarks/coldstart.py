"""Cold start: from `streamlit run` to the first page fully drawn in headless Chromium.

Each repeat starts `streamlit run streamlit_app.py` on a free loopback port (the browser is already
running: its own start-up is not counted), polls /_stcore/health every 50 ms, opens the root URL as
soon as it answers, and waits until the script has finished, every chart is drawn and the page has
been still for 300 ms. Cold start is the time from launching the server process to the last DOM
change (the quiet wait is not counted). Two browsers:

* returning: a profile that has opened the app before, at the same address (Streamlit's static files
  are immutable and cached for a year, and a cache entry is kept per address, port included), as a
  lecturer's browser is: the server is cold, the browser is not;
* first visit: a fresh, empty profile for every repeat.

    python -m benchmarks.coldstart             # 3 repeats of each, prints each and the medians
    python -m benchmarks.coldstart --floor --repeats 5    # and the floor app: the ratio (target ≤ 1.15×)
    python -m benchmarks.coldstart --floor --page "model?preset=trained-induction"   # a deep link first

Every app server starts with an empty weights cache ($ATTENTION_LAB_CACHE: a new temporary folder),
as a new replica does: a trained preset's page shows the shipped weights, or trains. Its Python modules
are compiled, as a deployed app's are (Python writes __pycache__ on an app's first start; the Docker image
compiles them when it is built): the servers run without PYTHONDONTWRITEBYTECODE (set on some development
machines, where each start would otherwise compile the app's ~150 modules again), so the first, uncounted
start of each writes them.

With --floor, the floor app is timed the same two ways, in turn with the app (app, floor, app, ...),
each on its own freshly started server: each ratio compares runs made side by side, not one block of
runs with another made minutes later on a machine whose speed drifts.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from harness import browser as bs

TARGET_RATIO = 1.15  # issue 11: the first page drawn within 1.15x the floor app's cold start (same run)


def once(context, app: str = "streamlit_app.py", cwd: Path = bs.ROOT, port: int | None = None, path: str = "") -> dict:
    """One cold server (on `port`, else a free one) with an empty weights cache, one new tab of this
    browser context, opened at /path (e.g. "model?preset=trained-induction")."""
    cache = tempfile.mkdtemp(prefix="coldstart-cache-")
    os.environ["ATTENTION_LAB_CACHE"] = cache  # the server inherits it
    page = context.new_page()
    runs = bs.Runs(page)
    page.goto("about:blank")
    server = bs.Server(app=app, cwd=cwd, log_name="coldstart.log", port=port)
    try:
        server.start()  # launch + health polling (every 50 ms)
        page.goto(server.url + "/" + path)
        runs.wait_for(page, 1, timeout=60)
        last = bs.wait_ready(page, timeout=60)
        drawn = page.evaluate("(last) => performance.timeOrigin + last", last) / 1000
        charts = page.locator(bs.CHART).count() + page.evaluate("window.__lab.maps().length")  # Vega, maps
    finally:
        server.stop()
        page.close()
        shutil.rmtree(cache, ignore_errors=True)
    return {"health_s": server.healthy_at - server.started_at, "drawn_s": drawn - server.started_at, "charts": charts}


def report(name: str, results: list[dict]) -> float:
    median = statistics.median(r["drawn_s"] for r in results)
    health = statistics.median(r["health_s"] for r in results)
    runs = ", ".join(f"{r['drawn_s']:.2f}" for r in results)
    print(
        f"  {name:<11} first page fully drawn after {median:.2f} s (median of {runs}; "
        f"/_stcore/health after {health:.2f} s)",
        flush=True,
    )
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also time the latency benchmark's floor app (one slider, one Altair heatmap)",
    )
    parser.add_argument(
        "--page",
        default="",
        help='the app\'s page to open first, e.g. "model?preset=trained-induction" '
        "(the floor app always opens its only page)",
    )
    args = parser.parse_args()
    if reason := bs.missing_browser_reason():
        raise SystemExit(reason)
    from playwright.sync_api import sync_playwright

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # a deployed app's modules are compiled (see above)
    folder = None
    if args.floor:
        from benchmarks.floor_app import write_floor

        folder = write_floor()
    with sync_playwright() as playwright:
        with bs.chromium(playwright) as context:  # the returning browser
            bs.instrument(context)
            app_port, floor_port = bs.free_ports(2)  # each app at one address, as a lecture's
            once(context, port=app_port, path=args.page)  # link is: its earlier visits (not counted)
            apps, floors = [], []
            if folder:
                once(context, "floor_app.py", folder, floor_port)
            for _ in range(args.repeats):  # app and floor alternate: a drift of
                apps.append(once(context, port=app_port, path=args.page))  # the machine weighs on both alike
                if folder:
                    floors.append(once(context, "floor_app.py", folder, floor_port))
            returning = report("returning", apps)
            floor = report("floor app", floors) if folder else None
        first, floor_first = [], []
        for _ in range(args.repeats):  # a fresh profile for every visit
            with bs.chromium(playwright) as context:
                bs.instrument(context)
                first.append(once(context, path=args.page))
            if folder:
                with bs.chromium(playwright) as context:
                    bs.instrument(context)
                    floor_first.append(once(context, "floor_app.py", folder))
        first_visit = report("first visit", first)
        floor_first_visit = report("floor, first", floor_first) if folder else None
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
    print(
        f"cold start (`streamlit run` → first page fully drawn): returning browser {returning:.2f} s, "
        f"first-ever visit {first_visit:.2f} s"
    )
    if floor:
        print(
            f"against the floor app's {floor:.2f} s and {floor_first_visit:.2f} s: returning "
            f"{returning / floor:.2f}×, first visit {first_visit / floor_first_visit:.2f}× "
            f"(target ≤ {TARGET_RATIO}× for the returning browser)"
        )


if __name__ == "__main__":
    main()
