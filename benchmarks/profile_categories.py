"""Where the server's CPU goes, in categories: from benchmarks.server_probe's regions (Streamlit's element
calls, its runner, its event loop, serialisation: exact CPU) and, for the app's own code between them, from
sampled stacks put in one category each by the checkout's own paths and the libraries' package names (no
module of the app is named: a refactor that moves a module within ui/ keeps its category as long as the
folders below stay).

A stack (root first, "function (/full/path.py)") is read like this:
1. its innermost frame in the checkout is the *caller*, and the checkout's folders say its category
   (APP, first matching prefix wins: engine/, ui/prose/, ui/charts/, ui/page/tables, ui/shell/, pages/ …;
   a page's own words, ui/sections/<page>/words*.py, are prose too);
2. the library frames between that caller and the leaf are read from the leaf upwards: the first one
   that is serialisation, sending, a chart library, pandas/pyarrow or Streamlit decides instead (LIBRARIES):
   a page's st.markdown is Streamlit's element code, the JSON dump inside st.vega_lite_chart serialisation,
   pandas under ui/page/tables tables; NumPy and the standard library decide nothing, so NumPy called by
   the engine is the engine's;
3. a stack with no frame of the checkout: the same library markers from the leaf (the event loop's
   protobuf serialisation, its websocket writes, Streamlit's runner and session bookkeeping: `st_run` on
   a script thread, `st_loop` on the event loop); a thread that is neither the event loop nor a script
   run is `other`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

CATEGORIES = {
    "engine": "engine (engine/, services/, ui/compute)",
    "prose": "prose (ui/prose/, each page's ui/sections/<page>/words*.py)",
    "charts": "chart specs (ui/charts/, Altair)",
    "tables": "tables and Arrow (ui/page/tables, pandas, pyarrow)",
    "frame": "the frame (ui/shell/, ui/poll/, ui/trainer, streamlit_app.py)",
    "page": "the page's own code (pages/, ui/sections/, ui/experiments/, ui/page/)",
    "st_elements": "Streamlit elements (the st.* calls: widgets, markdown, charts, layout; each delta queued)",
    "st_run": "Streamlit's script-run machinery on the script thread (the runner; session state, st.cache lookups)",
    "st_loop": "Streamlit's script-run machinery on the event loop (each delta handled, the rerun request)",
    "serialisation": "serialisation (message hashes and protobuf, vega-lite JSON, Arrow IPC)",
    "sending": "sending (the event loop and the websocket: starlette, uvicorn, asyncio)",
    "other": "other (background threads, the profiler's own)",
}
SHORT = {
    "engine": "engine",
    "prose": "prose",
    "charts": "charts",
    "tables": "tables",
    "frame": "frame",
    "page": "page",
    "st_elements": "st elements",
    "st_run": "st run",
    "st_loop": "st loop",
    "serialisation": "serialise",
    "sending": "send",
    "other": "other",
}

# The checkout's own files, by path below the checkout (first match wins; "" = anything else in it).
APP = (
    ("engine/", "engine"),
    ("services/", "engine"),
    ("ui/compute", "engine"),
    ("ui/training_process", "engine"),
    ("ui/prose/", "prose"),
    ("ui/charts/", "charts"),
    ("ui/page/tables", "tables"),
    ("ui/shell/", "frame"),
    ("ui/poll/", "frame"),
    ("ui/trainer", "frame"),
    ("streamlit_app.py", "frame"),
    ("pages/", "page"),
    ("ui/", "page"),
    ("", "page"),
)

# Library frames, by a piece of their path (or function name), checked from the leaf upwards.
SERIALISATION = (
    "/google/protobuf/",
    "/json/",
    "streamlit/runtime/runtime_util.py",
    "streamlit/runtime/forward_msg_cache.py",
    "/pyarrow/ipc.py",
    "arrow_bytes",
    "/base64.py",
)
SENDING = (
    "/starlette/",
    "/uvicorn/",
    "/websockets/",
    "/anyio/",
    "/h11/",
    "/httptools/",
    "/wsproto/",
    "streamlit/web/server/",
    "/asyncio/",
    "/selectors.py",
    "/socket.py",
    "/ssl.py",
)
CHART_LIBS = ("/altair/", "/jsonschema/", "/narwhals/", "/referencing/", "/vl_convert", "/vega_datasets/")
TABLE_LIBS = ("/pandas/", "/pyarrow/")
ST_RUN = (
    "streamlit/runtime/caching/",
    "streamlit/runtime/state/",
    "streamlit/runtime/scriptrunner",
    "streamlit/runtime/app_session.py",
    "streamlit/runtime/runtime.py",
    "streamlit/runtime/forward_msg_queue.py",
    "streamlit/config.py",
    "streamlit/runtime/fragment.py",
)
STREAMLIT = "/streamlit/"
SCRIPT_THREAD = "ScriptRunner._run_script_thread"


def _hit(frame: str, markers) -> bool:
    return any(m in frame for m in markers)


def library(frame: str, with_app: bool) -> str | None:
    """The category a library frame decides, or None (NumPy, the standard library: they decide nothing)."""
    if _hit(frame, SERIALISATION):
        return "serialisation"
    if _hit(frame, CHART_LIBS):
        return "charts"
    if _hit(frame, TABLE_LIBS):
        return "tables"
    if _hit(frame, ST_RUN):
        return "st_run"
    if STREAMLIT in frame:
        return "st_elements" if with_app else "st_run"
    if not with_app and _hit(frame, SENDING):
        return "sending"
    return None


class Categoriser:
    def __init__(self, checkout: Path):
        self.root = str(Path(checkout).resolve()) + "/"

    def app(self, frame: str) -> str | None:
        """The category of a frame in the checkout (None: not the checkout's)."""
        path = frame.rsplit(" (", 1)[-1].rstrip(")")
        if not path.startswith(self.root) or "/site-packages/" in path or "/.venv" in path:
            return None
        below = path[len(self.root) :]
        if below.startswith("ui/sections/") and below.rsplit("/", 1)[-1].startswith("words"):
            return "prose"  # a page's own words (ui/sections/<page>/words*.py)
        return next(category for prefix, category in APP if below.startswith(prefix))

    def caller(self, frames: list[str]) -> tuple[int, str | None]:
        """(index, category) of the innermost frame in the checkout, or (-1, None)."""
        for i in range(len(frames) - 1, -1, -1):
            category = self.app(frames[i])
            if category is not None:
                return i, category
        return -1, None

    def category(self, frames: list[str], thread: str = "") -> str:
        at, caller = self.caller(frames)
        script = thread.startswith("ScriptRunner") or any(SCRIPT_THREAD in f for f in frames)
        if caller is None and thread != "MainThread" and not script:
            return "other"  # a background thread (file polling, a worker's pipe, an import)
        for frame in reversed(frames[at + 1 :]):
            decided = library(frame, with_app=caller is not None)
            if decided == "st_run" and not script:
                return "st_loop"  # Streamlit's bookkeeping on the event loop
            if decided is not None:
                return decided
        return caller or "other"


def tally(
    report: dict, categoriser: Categoriser, process_cpu: float
) -> tuple[Counter, Counter, Counter, Counter, dict]:
    """benchmarks.server_probe's regions (CPU s) per category; Streamlit elements' CPU by the part of the app
    that asked for them (the category of the call's innermost checkout frame) and by call ("st.slider from
    frame"); the app's own CPU per innermost checkout function; and the totals (script threads, event
    loop, background threads)."""
    by_category, elements_by_caller, functions, calls = Counter(), Counter(), Counter(), Counter()
    carved: Counter = Counter()
    top = Counter()
    for kind, category, frames, seconds in report["rows"]:
        if kind == "top":
            top[category] += seconds
            continue
        if kind == "element":
            by_category["st_elements"] += seconds
            caller = categoriser.caller(frames)[1] or "streamlit"
            elements_by_caller[caller] += seconds
            calls[f"st.{category} from {caller}"] += seconds
        elif kind == "gap":
            by_category[categoriser.category(frames, "ScriptRunner.scriptThread")] += seconds
            at, caller = categoriser.caller(frames)
            if caller is not None:
                name, _, where = frames[at].rpartition(" (")
                functions[f"{name} ({where.rstrip(')')[len(categoriser.root) :]})"] += seconds
        elif kind == "runner":
            by_category["st_run"] += seconds
        elif kind == "loop":
            by_category["st_loop"] += seconds
        else:  # carved out of a call: serialisation, tables
            by_category[category.split(":")[0]] += seconds
            carved[category] += seconds
    by_category["sending"] += max(0.0, report["main_cpu"] - top["main"])
    background = process_cpu - top["script"] - report["main_cpu"]
    by_category["other"] += max(0.0, background)
    totals = {
        "script_s": top["script"],
        "event_loop_s": report["main_cpu"],
        "background_s": background,
        "accounted_s": sum(by_category.values()),
        "carved": dict(carved),
    }
    return by_category, elements_by_caller, functions, calls, totals
