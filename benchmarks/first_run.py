"""A fresh server's first run of a page: what the first student to ask for something (a knock-out in a
lecturer's link or the multiselect, the Learn page's replay) costs the server, once its imports and
weights are loaded.

Each repeat starts a fresh server of a checkout (empty weights cache, as a new replica), opens a warm-up
page (by default the same link without its knock-out, or the model view at the link's preset), then opens
the link, and reads that second run's wall time and the server's CPU (all threads) around it. With
--against, two checkouts alternate in one sitting.

    python -m benchmarks.first_run                                # this checkout, the default links
    python -m benchmarks.first_run --against /tmp/older --repeats 3
    python -m benchmarks.first_run --link "model?preset=trained-induction&ablate=0.0,1.1"
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from benchmarks import servers
from benchmarks.wsclient import Tab

LINKS = (
    "model?preset=trained-text&ablate=0.1,1.2",
    "model?preset=trained-induction&ablate=1.0",
    "learn?preset=trained-text",
)
SETTLE_S = 0.05  # after the run finished: the server's last bookkeeping of it


def warm_up(link: str) -> str:
    """The page a link's first run is measured after: the link without its knock-out, else the model view at
    the link's query."""
    page, _, query = link.partition("?")
    plain = "&".join(part for part in query.split("&") if part and not part.startswith("ablate="))
    return f"{page}?{plain}" if plain != query else f"model?{query}"


async def first(url: str, cpu: servers.Cpu, link: str) -> tuple[float, float, list[str]]:
    """Open the warm-up page, then the link: the link's run's wall and server CPU seconds, and its errors."""
    page, _, query = link.partition("?")
    warm_page, _, warm_query = warm_up(link).partition("?")
    tab = Tab(url, warm_page, warm_query)
    await tab.open()
    await tab.close()
    before, start = cpu.seconds(), time.perf_counter()
    tab = Tab(url, page, query)
    run = await tab.open()
    wall = time.perf_counter() - start
    await asyncio.sleep(SETTLE_S)
    spent = cpu.seconds() - before
    await tab.close()
    return wall, spent, list(run.errors)


def once(folder: Path, link: str) -> tuple[float, float, list[str]]:
    with servers.server(folder, "first-run.log") as server:
        return asyncio.run(first(server.url, servers.Cpu(server.pid), link))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", default=".", help="the checkout to measure (default: this one)")
    parser.add_argument("--against", help="another checkout, measured in turn with the first")
    parser.add_argument("--link", action="append", help=f"a page?query (default: {', '.join(LINKS)})")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    links = args.link or list(LINKS)
    if args.repeats < 1 or any(not link.split("?")[0].isidentifier() for link in links):
        parser.error("--repeats must be at least 1, and every --link a page's path and query (model?preset=…)")
    folders = [servers.checkout(args.checkout)] + ([servers.checkout(args.against)] if args.against else [])
    found: dict[tuple[str, str], list[tuple[float, float]]] = {}
    errors = 0
    for _ in range(args.repeats):
        for link in links:
            for folder in folders:
                wall, spent, wrong = once(folder, link)
                errors += len(wrong)
                found.setdefault((servers.label(folder), link), []).append((wall, spent))
                print(
                    f"  {servers.label(folder)}  {link}: {wall * 1000:.0f} ms wall, {spent * 1000:.0f} ms server CPU"
                    + (f"  ERRORS: {wrong}" if wrong else ""),
                    flush=True,
                )
    print("\n| checkout | link | wall, median (ms) | server CPU, median (ms) |\n| --- | --- | --- | --- |")
    for (label, link), runs in found.items():
        print(
            f"| {label} | `{link}` | {statistics.median(w for w, _ in runs) * 1000:.0f} | "
            f"{statistics.median(c for _, c in runs) * 1000:.0f} |"
        )
    if errors:
        raise SystemExit(f"{errors} errors")


if __name__ == "__main__":
    main()
