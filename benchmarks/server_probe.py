"""What runs inside a profiled `streamlit run`: CPU accounted at Streamlit's own boundaries, and the app's
code between them located by sampling. Standard library and Streamlit only (nothing of this repository:
benchmarks.profile copies this file into a temp folder and starts the server as
`python <temp>/server_probe.py CONTROL_DIR run streamlit_app.py ...` in the checkout).

Every figure is a thread's own CPU clock (time.thread_time) read at the edges of a *region*:
- a script run (ScriptRunner._run_script_thread): what is not in the regions below is Streamlit's runner;
- the page's execution (exec_func_with_error_handling): its gaps between the regions inside it are the
  app's own code (a gap's CPU goes to the stacks sampled in it every 2 ms, else to the stack of the call
  that ended it);
- every outermost st.* call (DeltaGenerator's public methods, and st.set_page_config, st.navigation …),
  with the stack that made it;
- carved out of those: the message hash (SerializeToString + md5 of every delta), the JSON and Arrow
  encoding inside st.vega_lite_chart and st.table, pandas conversion inside st.table;
- on the event loop: each script-run event handled (a delta queued), each rerun request handled, each
  message serialised; the rest of that thread's CPU clock is the event loop and the websocket.
Counting is on only between "start NAME" and "stop" (CONTROL_DIR/control); on stop the regions go to
CONTROL_DIR/NAME.json, then CONTROL_DIR/NAME.done is written.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
import threading
import time
import types
from collections import Counter
from pathlib import Path

SAMPLE_S = 0.002
clock = time.thread_time


class Probe:
    def __init__(self, control: Path):
        self.control, self.mtime, self.lock = control, 0, threading.Lock()
        self.name: str | None = None
        self.local = threading.local()
        self.in_gap: dict[int, object] = {}  # thread ident -> its state, while it runs the app's code
        self.totals: Counter = Counter()  # (kind, category, stack) -> CPU s
        self.main_from = 0.0

    # -- regions -------------------------------------------------------------------------------------
    def _state(self):
        """This thread's regions under way and its current gap (a plain object: the sampler reads it too)."""
        state = getattr(self.local, "state", None)
        if state is None:
            state = self.local.state = types.SimpleNamespace(stack=[], gap_from=None, samples=[], last=None)
        return state

    @staticmethod
    def _codes(frame, limit: int = 150) -> tuple:
        codes = []
        while frame is not None and len(codes) < limit:
            codes.append(frame.f_code)
            frame = frame.f_back
        return tuple(codes)

    def _add(self, kind: str, category: str, codes: tuple, seconds: float) -> None:
        with self.lock:
            self.totals[(kind, category, codes)] += seconds

    def _close_gap(self, state, now: float, codes: tuple) -> None:
        if state.gap_from is None:
            return
        used, samples = now - state.gap_from, state.samples
        self.in_gap.pop(threading.get_ident(), None)
        state.gap_from, state.samples = None, []
        for sampled in samples or [codes]:
            self._add("gap", "", sampled, used / max(1, len(samples)))

    def _open_gap(self, state) -> None:
        state.gap_from, state.samples = clock(), []
        self.in_gap[threading.get_ident()] = state

    def region(self, kind: str, category: str = ""):
        """Wrap a function: its CPU is this region's (minus the regions inside it)."""

        def wrap(fn):
            # an st.* call: its name; a carved-out step: its category and function ("serialisation:dumps")
            label = fn.__name__ if kind == "element" else f"{category}:{fn.__name__}" if kind == "carve" else category

            @functools.wraps(fn)
            def timed(*args, **kwargs):
                if self.name is None:
                    return fn(*args, **kwargs)
                state = self._state()
                if kind == "element" and any(r[0] == "element" for r in state.stack):
                    return fn(*args, **kwargs)  # an st.* call inside one: part of the outer call
                codes = self._codes(sys._getframe(1)) if kind in ("element", "exec") else ()
                start = clock()
                if state.stack and state.stack[-1][0] == "exec":
                    self._close_gap(state, start, codes or state.last)
                state.stack.append([kind, start, 0.0])
                if kind == "exec":
                    state.last = codes
                    self._open_gap(state)
                try:
                    return fn(*args, **kwargs)
                finally:
                    end = clock()
                    if kind == "exec":
                        self._close_gap(state, end, state.last)
                    _, begun, inner = state.stack.pop()
                    if kind != "exec":
                        self._add(kind, label, codes, end - begun - inner)
                    if state.stack:
                        state.stack[-1][2] += end - begun
                        if state.stack[-1][0] == "exec":
                            state.last = codes or state.last
                            self._open_gap(state)
                    elif kind in ("runner", "loop", "carve"):
                        self._add(
                            "top",
                            "main" if threading.current_thread() is threading.main_thread() else "script",
                            (),
                            end - begun,
                        )

            return timed

        return wrap

    # -- sampling the app's own code, and the control file ------------------------------------------
    def sample(self) -> None:
        frames = sys._current_frames()
        for ident, state in list(self.in_gap.items()):
            if ident in frames:
                state.samples.append(self._codes(frames[ident]))

    def command(self) -> None:
        path = self.control / "control"
        try:
            mtime = path.stat().st_mtime_ns
        except FileNotFoundError:
            return
        if mtime == self.mtime:
            return
        self.mtime = mtime
        words = path.read_text().split()
        main = time.pthread_getcpuclockid(threading.main_thread().ident)
        if words[:1] == ["start"] and len(words) == 2:
            with self.lock:
                self.totals.clear()
            self.main_from = time.clock_gettime(main)
            self.name = words[1]
        elif words[:1] == ["stop"] and self.name:
            name, self.name = self.name, None
            time.sleep(0.05)  # regions under way finish
            with self.lock:
                rows = [
                    [
                        kind,
                        category,
                        [f"{getattr(c, 'co_qualname', c.co_name)} ({c.co_filename})" for c in reversed(codes)],
                        seconds,
                    ]
                    for (kind, category, codes), seconds in self.totals.items()
                ]
            report = {"main_cpu": time.clock_gettime(main) - self.main_from, "rows": rows}
            (self.control / f"{name}.json").write_text(json.dumps(report))
            (self.control / f"{name}.done").write_text("")

    def loop(self) -> None:
        while True:
            time.sleep(SAMPLE_S)
            if self.name is not None:
                self.sample()
            self.command()


def patch(probe: Probe) -> None:
    """Wrap Streamlit's boundaries (Streamlit 1.67's names: with a Streamlit that lacks one, the server does
    not start and its log says which)."""
    import streamlit
    from streamlit import dataframe_util
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.elements import vega_charts
    from streamlit.runtime import app_session
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.runtime.scriptrunner_utils import script_run_context
    from streamlit.web.server.starlette import starlette_websocket

    runner = script_runner.ScriptRunner
    runner._run_script_thread = probe.region("runner")(runner._run_script_thread)
    script_runner.exec_func_with_error_handling = probe.region("exec")(script_runner.exec_func_with_error_handling)
    for name, member in inspect.getmembers(DeltaGenerator, inspect.isfunction):
        if not name.startswith("_"):
            setattr(DeltaGenerator, name, probe.region("element")(member))
    for name in dir(streamlit):
        value = getattr(streamlit, name)
        if inspect.ismethod(value) and isinstance(value.__self__, DeltaGenerator):
            setattr(streamlit, name, types.MethodType(getattr(DeltaGenerator, value.__name__), value.__self__))
        elif name in ("set_page_config", "navigation", "switch_page", "rerun", "logo", "toast"):
            setattr(streamlit, name, probe.region("element")(value))
    carve = {
        "serialisation": [
            (script_run_context, "populate_hash_if_needed"),
            (dataframe_util, "convert_anything_to_arrow_bytes"),
            (dataframe_util, "convert_arrow_table_to_arrow_bytes"),
        ],
        "tables": [(dataframe_util, "convert_anything_to_pandas_df")],
    }
    for category, places in carve.items():
        for module, name in places:
            setattr(module, name, probe.region("carve", category)(getattr(module, name)))
    shim = types.SimpleNamespace(**{k: getattr(json, k) for k in dir(json) if not k.startswith("__")})
    shim.dumps = probe.region("carve", "serialisation")(json.dumps)
    shim.loads = probe.region("carve", "serialisation")(json.loads)
    vega_charts.json = shim
    starlette_websocket.serialize_forward_msg = probe.region("carve", "serialisation")(
        starlette_websocket.serialize_forward_msg
    )
    session = app_session.AppSession
    session._handle_scriptrunner_event_on_event_loop = probe.region("loop", "st_loop")(
        session._handle_scriptrunner_event_on_event_loop
    )
    session.handle_backmsg = probe.region("loop", "st_loop")(session.handle_backmsg)


def main() -> None:
    probe = Probe(Path(sys.argv.pop(1)))
    patch(probe)
    threading.Thread(target=probe.loop, name="benchmark-probe", daemon=True).start()
    from streamlit.web import cli

    sys.argv[0] = "streamlit"
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
