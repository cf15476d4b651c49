"""Shared test helpers: AppTest runs of the real frame, fresh-interpreter import probes (pytest.ini puts
the repository root on sys.path)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

APP = str(ROOT / "streamlit_app.py")

# Trained runs go to a fresh folder per test session, not the repository's .cache/weights/: a test
# that counts training runs must not find one kept by an earlier session.
os.environ.setdefault("ATTENTION_LAB_CACHE", tempfile.mkdtemp(prefix="attention-lab-cache-"))

from ui.shell import site

# Every page file, in navigation order: the frame's own list.
PAGES = [page.file for page in site.PAGES]


@pytest.fixture
def poll_db(tmp_path, monkeypatch):
    """The class poll on a SQLite file of this test's own (no DATABASE_URL; the app's cached store cleared
    before and after, since it holds the previous test's file)."""
    from ui.poll import panel as poll_panel

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("ATTENTION_LAB_POLL_DB", str(tmp_path / "poll.sqlite3"))
    poll_panel.store.clear()
    yield
    poll_panel.store.clear()


def formulas(at, sep: str = " ") -> str:
    """Every formula the run drew (its st.latex bodies) joined, as the page writes them: without the hint
    layout.latex puts after an equation's '=' (and a '+' or '-' inside brackets) so that a line never breaks there."""
    return sep.join(str(x.value) for x in at.latex).replace(r"\nobreak ", "")


def open_app(page: str | None = None, params: dict[str, str] | None = None, timeout: float = 30):
    """Run the frame (optionally with URL query params), then switch to `page`. Returns the AppTest."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    if page is not None and page != site.by_path("").file:  # the default page runs first
        at.switch_page(page).run()
    return at


def open_exports(at, slug: str):
    """Open a page's downloads-and-figures expander (drawn only once opened) and rerun."""
    from ui.shell import session

    at.session_state[session.export_key(slug)] = True
    return at.run()


def _split_row(line: str) -> list[str]:
    """The cells of one Markdown table row (a backslash-escaped | is text, not a border)."""
    cells, cell, i = [], "", 1
    body = line.strip()
    while i < len(body) - 1:
        if body[i] == "\\":
            cell += body[i : i + 2]
            i += 2
            continue
        if body[i] == "|":
            cells.append(cell.strip())
            cell = ""
        else:
            cell += body[i]
        i += 1
    cells.append(cell.strip())
    return cells


def markdown_frame(text: str):
    """A Markdown table (ui.page.tables.table) read back: headers unescaped (as the code names the columns),
    cells exactly as sent (text, escapes kept); a first column headed by a blank is the index."""
    import pandas as pd

    lines = text.strip().splitlines()
    heads = [re.sub(r"\\(.)", r"\1", h) for h in _split_row(lines[0])]
    rows = [_split_row(line) for line in lines[2:]]
    frame = pd.DataFrame(rows, columns=heads, dtype=object)
    return frame.set_index(heads[0]).rename_axis(None) if heads and heads[0] == "" else frame


def gloss_frame(element):
    """A gloss table (ui/page/gloss_table.py's component) read back from its data: its texts as sent."""
    import pandas as pd

    from ui.page import gloss_table

    data = gloss_table.decoded(element)
    return pd.DataFrame(data["rows"], columns=data["heads"], dtype=object)


def gloss_tables(at) -> list[dict]:
    """Every gloss table's payload (names, rows, glosses), in page order."""
    from ui.page import gloss_table

    return [
        gloss_table.decoded(e) for e in at.get("bidi_component") if e.proto.component_name.endswith(gloss_table.NAME)
    ]


def tables(at) -> list:
    """Every table of the page's main area, in page order: a Markdown table (up to TABLE_ROWS rows) as
    markdown_frame reads it, a taller one (st.table) as its DataFrame, a gloss table as gloss_frame reads it."""
    from ui.page import gloss_table

    found = []

    def walk(node) -> None:
        for child in getattr(node, "children", {}).values():
            if child.type == "markdown" and str(child.value).startswith("| "):
                found.append(markdown_frame(child.value))
            elif child.type == "table":
                found.append(child.value)
            elif child.type == "bidi_component" and child.proto.component_name.endswith(gloss_table.NAME):
                found.append(gloss_frame(child))
            walk(child)

    walk(at.main)
    return found


def open_switches(at):
    """Open the sidebar's Switches expander (its toggles are drawn only once opened) and rerun."""
    from ui.shell import session

    at.session_state[session.SWITCHES_OPEN] = True
    return at.run()


# Libraries the engine must never import (it is plain NumPy).
FORBIDDEN = ("streamlit", "altair", "pandas")


def run_probe(code: str) -> Any:
    """Run code in a fresh interpreter at the repo root; it prints one JSON object last."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def loaded_by(setup: str) -> list[str]:
    """The forbidden libraries loaded once `setup` (Python statements) has run in a fresh interpreter."""
    return run_probe(
        f"import json, sys; {setup}; print(json.dumps(sorted("
        f"m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})))"
    )


def assert_clean(at) -> None:
    """No exception element on the page (with the messages if there are)."""
    assert not at.exception, [e.message for e in at.exception]


@pytest.fixture
def app():
    return open_app


def require(reason: str | None) -> None:
    """Skip when something the test needs is missing; with REQUIRE_BROWSER=1 (CI) fail instead."""
    if reason:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"REQUIRE_BROWSER=1 but {reason}", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def playwright():
    """Playwright driving Debian's Chromium (the browser tests' and the replica test's)."""
    from harness import browser as bs

    require(bs.missing_browser_reason())
    from playwright.sync_api import sync_playwright

    manager = sync_playwright()
    instance = manager.start()
    try:
        yield instance
    finally:
        manager.__exit__(None, None, None)


def shipped_model(task: str):
    """The model shipped for `task`'s default run (services.weights.find: read, not trained)."""
    import engine
    from services import weights

    t = engine.TASKS[task]
    model = weights.find(t.config, weights.Training(task, t.steps))
    assert model is not None and model.origin == "shipped"
    return model


def open_learn(params: dict[str, str], timeout: float = 240):
    """The Learn page opened first (as a link opens it), with these URL parameters, checked clean."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(site.by_path("learn").file)
    at.run()
    assert_clean(at)
    return at


def link_view(page: str, **params):
    """The View a link to `page` with these parameters draws (as the frame reads the URL)."""
    from ui.shell import state, url
    from ui.shell.view import View

    c, _ = url.from_params({key: str(value) for key, value in params.items()})
    cfg, training, shown = state.to_config(c), state.to_training(c), site.by_path(page)
    return View(
        controls=c,
        config=cfg,
        tokens=state.to_tokens(c),
        notes=(),
        page=shown,
        width=790,
        training=training,
        model=None if shown.trains else handle_of(cfg, training),
    )


def handle_of(cfg, training):
    """The model the frame shows at these settings (ui.trainer): looked up, trained first if need be."""
    from ui import compute

    found = compute.handle(cfg, training)
    if training is None or found.is_trained:
        return found
    return compute.trained_handle(cfg, training, compute.train(cfg, training))


def link_trace(v):
    """The trace of the View's layer, as the page computes it."""
    from ui import compute

    return compute.trace(v.model, v.words, v.layer)


def attention_maps(at) -> list[dict]:
    """Every map the run's attention-map components sent (ui/charts/attention_map.py), in page order: its
    component's key and data, title, about (the text alternative), rows, cols, the values read back from its texts
    (3 significant digits; nan where masked), shown (not masked), the colour indices, tips, cells' texts (None when
    not printed) and expected flags (None without)."""
    import base64

    import numpy as np

    from ui.charts import attention_map as am
    from ui.prose.numbers import parse

    out = []
    for element in at.get("bidi_component"):
        if not element.proto.component_name.endswith(am.NAME):
            continue
        data = am.decoded(element)
        if "maps" not in data:  # the sentence view (ui/charts/attention_sentence.py): a text, not a map
            continue
        R, C = len(data["rows"]), len(data["cols"])
        for m in data["maps"]:
            colour = np.frombuffer(base64.b64decode(m["colour"]), np.uint8).reshape(R, C)
            shown = colour != am.MASKED
            tips = m["tips"].split("|") if m["tips"] is not None else [data["levels"][i] for i in colour.ravel()]
            values = np.array([parse(t) if s else np.nan for t, s in zip(tips, shown.ravel())]).reshape(R, C)
            expected = m.get("expected")
            out.append(
                {
                    **{k: m[k] for k in ("title", "about")},
                    "key": element.key,
                    "data": data,
                    "rows": data["rows"],
                    "cols": data["cols"],
                    "values": values,
                    "shown": shown,
                    "colour": colour,
                    "tips": tips,
                    "cells": None if m["cells"] is None else m["cells"].split("|"),
                    "expected": None if expected is None else np.array([x == "1" for x in expected]).reshape(R, C),
                }
            )
    return out


def replay_sent(at) -> dict | None:
    """The Learn page's replay of a finished run as the browser gets it (ui.charts.attention_frames: every saved
    step's maps in frames, the component "learn_grid"), or None (no replay on the page)."""
    from ui.charts import attention_map as am

    sent = [am.decoded(e) for e in at.get("bidi_component") if e.key == "learn_grid"]
    return sent[0] if sent and "frames" in sent[0] else None


def _sent(at) -> dict:
    sent = replay_sent(at)
    assert sent is not None, "no replay scrubber (the component learn_grid with frames) on the page"
    return sent


def replay_steps(at) -> list[int]:
    """The saved steps the replay's scrubber offers."""
    return [int(v) for v in _sent(at)["scrub"]["values"]]


def replay_shown(at) -> int:
    """The replayed step shown (the scrubber's starting frame)."""
    sent = _sent(at)
    return int(sent["scrub"]["values"][sent["frame"]])


def replay_to(at, step: int, timeout: float = 60):
    """Move the replay to a saved step as the scrubber's release does (its callback sets the replay control)."""
    _sent(at)
    at.session_state["replay_step"] = int(step)
    return at.run(timeout=timeout)


MASKED_GREY = (0x9C, 0xA3, 0xAF)  # the masked cells' fill, written out here


def oracle_colour(value: float, stops: list[str], points: list[float]) -> tuple[int, int, int]:
    """One cell's colour the slow way, independently of ui.charts: find its segment of the scale, mix the two
    stops' channels linearly (clamped at the ends; NaN, a masked cell, grey)."""
    if value != value:
        return MASKED_GREY
    value = min(max(value, points[0]), points[-1])
    for k in range(len(points) - 1):
        if points[k] <= value <= points[k + 1]:
            span = points[k + 1] - points[k]
            t = 0.0 if span == 0 else (value - points[k]) / span
            a, b = stops[k], stops[k + 1]
            return tuple(
                round(int(a[1 + 2 * i : 3 + 2 * i], 16) * (1 - t) + int(b[1 + 2 * i : 3 + 2 * i], 16) * t)
                for i in range(3)
            )
    raise AssertionError("value outside every segment")


def paint_oracle(matrix, scheme: str, domain: tuple[float, float]):
    """A map's colours cell by cell, (R * C, 3) ints, by oracle_colour on the scheme's stops over its domain."""
    import numpy as np

    from ui.charts import colours as co

    stops, points = list(co.scheme_colours(scheme)), co.ramp_domain(scheme, domain)
    return np.array([oracle_colour(float(x), stops, points) for x in np.asarray(matrix, float).ravel()])
