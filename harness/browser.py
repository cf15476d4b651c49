"""Drive the real app in headless Chromium: a Streamlit server on a free loopback port, Debian's
Chromium through Playwright, and helpers that wait for "the script finished and every chart is drawn".

Shared by the browser tests (tests/test_browser.py, tests/test_phone.py, tests/test_deploy.py) and the
benchmarks, which both import it from here.
Playwright's own browser download does not work here, so the system Chromium is launched with
launch_persistent_context(executable_path=...). The browser is here; the server is harness/server.py's, the
waits and readings in a page harness/page.py's, and every name is read from here (__all__).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from harness.page import (
    EXPORTS,
    INSTRUMENT,
    OVERLAPS,
    Runs,
    cell_counts,
    chart_shapes,
    instrument,
    open_expander,
    overlaps,
    settle,
    slider,
    slider_value,
    wait_ready,
)
from harness.server import ARTIFACTS, ROOT, Server, free_port, free_ports, poll_server
from ui.shell import site

# The harness's whole interface, read as harness.browser.X by the tests and the benchmarks (the server lives in
# harness/server.py, the page's waits and readings in harness/page.py)
__all__ = [
    "ARTIFACTS",
    "CHART",
    "CHROMIUM_FLAGS",
    "CONCEPT_PAGES",
    "EXPORTS",
    "INSTRUMENT",
    "OVERLAPS",
    "PAGES",
    "ROOT",
    "VIEWPORT",
    "Runs",
    "Server",
    "cell_counts",
    "chart_shapes",
    "chromium",
    "chromium_path",
    "free_port",
    "free_ports",
    "instrument",
    "missing_browser_reason",
    "open_expander",
    "opener",
    "poll_server",
    "overlaps",
    "settle",
    "slider",
    "slider_value",
    "wait_ready",
]


CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 1000}

CHART = "[data-testid='stVegaLiteChart']"

# The frame's pages in navigation order (ui.shell.site.PAGES), each as (url path, page file, navigation
# title, charts drawn at the default controls, keys of the selectable charts), read from its Page entry.
# The default page's link is the root URL. Only selectable charts carry their key into the DOM (class
# st-key-<key>); the others are counted. The concept pages' headings equal their navigation titles.
PAGES = [
    ("" if page is site.PAGES[0] else page.path, page.file, page.title, page.charts, list(page.picks))
    for page in site.PAGES
]
CONCEPT_PAGES = {"" if page is site.PAGES[0] else page.path for page in site.CONCEPT_PAGES}  # first chart: T rows


# ----------------------------------------------------------------------------------- the browser
def chromium_path() -> str | None:
    """Debian's Chromium, if installed (CHROMIUM=/path overrides)."""
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def missing_browser_reason() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if chromium_path() is None:
        return "Debian's chromium is not installed (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (pip install -r requirements-dev.txt)"
    return None


@contextlib.contextmanager
def chromium(playwright, **context_options):
    """A fresh persistent Chromium context (own temp profile), closed and removed afterwards."""
    profile = tempfile.mkdtemp(prefix="attention-lab-chromium-")
    options = {"viewport": VIEWPORT, "headless": True, **context_options}
    context = playwright.chromium.launch_persistent_context(
        profile, executable_path=chromium_path(), args=CHROMIUM_FLAGS, **options
    )
    try:
        yield context
    finally:
        with contextlib.suppress(Exception):
            context.close()
        shutil.rmtree(profile, ignore_errors=True)


def opener(browser, contexts: list, errors: list, instrumented: bool = False):
    """How a test with several people opens each one's device: page_in(options) gives a page in a browser
    context of its own (options: viewport, touch), its page errors collected in `errors`, the context kept in
    `contexts` for the test to close."""

    def page_in(options):
        context = browser.new_context(**options)
        if instrumented:
            instrument(context)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page

    return page_in
