"""One browser tab over Streamlit's websocket protocol, as the frontend speaks it: the tab the hall and the
profile benchmarks use (benchmarks.ws_student's Student, load.py's, does the same for one slider; this one
can use every widget the app draws).

What the frontend does and this tab does too:
- it keeps every widget's state from the element the server drew (a widget keeps its own value unless
  the server sets one) and sends all of them with every rerun; a button's trigger goes with one rerun only;
- it forgets the states of widgets a run no longer drew (a full run: every widget it did not draw; a
  fragment run: that fragment's widgets it did not draw);
- it remembers each element's fragment id (`Delta.fragment_id`): when a widget the server drew inside
  an `st.fragment` changes, the rerun it sends carries that fragment's id (`ClientState.fragment_id`), so
  the server reruns only that fragment; a widget outside every fragment (the sidebar's) reruns the page;
- it keeps the messages marked cacheable, sends their hashes, reads a `ref_hash` from what it kept, and
  drops a kept message unused for more than the server's maxCachedMessageAge runs (a fragment run ages
  only that fragment's messages);
- it follows the URL the app writes (`page_info_changed`) and the page's script hash (`navigation`).
"""

from __future__ import annotations

import asyncio
import http.cookies
import time
import urllib.request
from dataclasses import dataclass, field

import websockets  # a dependency of streamlit itself
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.WidgetStates_pb2 import WidgetState

WIDGET_ID_PREFIX = "$$ID-"


def key_of(widget_id: str) -> str | None:
    """The user key in a Streamlit widget id ("$$ID-<hash>-<key>"), or None for a widget without one."""
    if not widget_id.startswith(WIDGET_ID_PREFIX):
        return None
    parts = widget_id.split("-", 2)
    return parts[2] if len(parts) == 3 and parts[2] != "None" else None


def initial_state(kind: str, proto) -> WidgetState | None:
    """The state the frontend holds for a widget the server just drew (None: it sends none until used)."""
    state = WidgetState(id=proto.id)
    if kind == "slider":
        if proto.type == proto.SELECT_SLIDER:
            state.string_array_value.data.extend(
                list(proto.raw_value) or [proto.options[int(i)] for i in proto.default]
            )
        else:
            state.double_array_value.data.extend(list(proto.value) if proto.set_value else list(proto.default))
    elif kind == "selectbox":
        if proto.HasField("raw_value"):
            state.string_value = proto.raw_value
        elif proto.HasField("default") and 0 <= proto.default < len(proto.options):
            state.string_value = proto.options[proto.default]
        else:
            return None
    elif kind == "radio":
        if proto.HasField("raw_value"):
            state.string_value = proto.raw_value
        elif proto.HasField("default") and 0 <= proto.default < len(proto.options):
            state.string_value = proto.options[proto.default]
        else:
            return None  # index=None: nothing chosen yet
    elif kind == "multiselect":
        state.string_array_value.data.extend(
            list(proto.raw_values) if proto.set_value else [proto.options[int(i)] for i in proto.default]
        )
    elif kind in ("text_input", "text_area"):
        state.string_value = proto.value if proto.HasField("value") else proto.default
    elif kind == "number_input":
        value = proto.value if proto.HasField("value") else proto.default
        if proto.data_type == NumberInput.INT:
            state.int_value = int(value)
        else:
            state.double_value = float(value)
    elif kind == "checkbox":
        state.bool_value = proto.value if proto.set_value else proto.default
    else:
        return None  # buttons, charts, segmented controls: sent once used
    return state


async def get_keeping_cookies(url: str, cookies: dict[str, str], timeout: float) -> None:
    """GET url as a browser does, sending cookies and keeping what the server sets in them (one origin, so
    name → value is enough)."""

    def get():
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {}
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as response:
            response.read()
            for header in response.headers.get_all("Set-Cookie") or []:
                jar = http.cookies.SimpleCookie()
                jar.load(header)
                cookies.update({name: morsel.value for name, morsel in jar.items()})

    await asyncio.to_thread(get)


@dataclass
class Drawn:
    """A widget (or selectable chart) as the last run drew it."""

    kind: str  # the Element oneof: "slider", "vega_lite_chart", "button", ...
    proto: object
    fragment: str  # the id of the fragment that drew it ("": none)


@dataclass
class Run:
    seconds: float
    bytes: int
    fragment: str  # the fragment id sent ("": a full run)
    errors: list[str] = field(default_factory=list)
    messages: int = 0  # ForwardMsgs received (deltas, the new-session message, script_finished …)


class Tab:
    """One browser tab: its cookies, its websocket, what the server drew in it and the states it sends."""

    def __init__(self, base: str, page: str, query: str = "", timeout: float = 60.0):
        self.base, self.page, self.query, self.timeout = base.rstrip("/"), page, query, timeout
        self.cookies: dict[str, str] = {}
        self.states: dict[str, WidgetState] = {}  # widget id -> the state sent with every rerun
        self.triggers: dict[str, WidgetState] = {}  # a button press: sent with the next rerun only
        self.drawn: dict[str, Drawn] = {}  # widget id -> the element
        self.cache: dict[str, list] = {}  # hash -> [message, run count when last used, its fragment]
        self.runs, self.max_age = 0, 2  # finished runs; new_session's max_cached_message_age
        self.page_hash = ""
        self.notices: list[str] = []
        self.ws = None

    # -- what the server drew -----------------------------------------------------------------------
    def widget(self, key: str) -> Drawn | None:
        """The widget (or selectable chart) drawn with this key, if the page shows it now."""
        return next((d for wid, d in self.drawn.items() if key_of(wid) == key), None)

    def state(self, key: str) -> WidgetState | None:
        drawn = self.widget(key)
        return self.states.get(drawn.proto.id) if drawn else None

    def set(self, key: str, state: WidgetState) -> str:
        """The student changes a widget: its new state (id filled in); returns the fragment to rerun."""
        drawn = self.widget(key)
        state.id = state.id or drawn.proto.id  # a component's event goes to its trigger aggregator's id (set)
        if state.WhichOneof("value") in ("trigger_value", "json_trigger_value"):
            self.triggers[state.id] = state
        else:
            self.states[state.id] = state
        return drawn.fragment

    # -- the connection ----------------------------------------------------------------------------
    def _cookie_header(self) -> dict[str, str]:
        return {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}

    async def _get(self, path: str) -> None:
        await get_keeping_cookies(self.base + path, self.cookies, self.timeout)

    async def open(self) -> Run:
        """GET the page as a browser does, open the websocket and run the page; the Run includes the HTTP."""
        start = time.perf_counter()
        for path in (
            f"/{self.page}" + (f"?{self.query}" if self.query else ""),
            "/_stcore/health",
            "/_stcore/host-config",
        ):
            await self._get(path)
        xsrf = self.cookies.get("_streamlit_xsrf")
        self.ws = await websockets.connect(
            self.base.replace("http://", "ws://") + "/_stcore/stream",
            subprotocols=["streamlit"] + ([xsrf] if xsrf else []),
            origin=self.base,
            additional_headers=self._cookie_header(),
            max_size=None,
            open_timeout=self.timeout,
            ping_interval=None,
        )
        run = await self.run()
        run.seconds = time.perf_counter() - start
        return run

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    # -- a run ---------------------------------------------------------------------------------------
    def _message(self, fragment: str) -> bytes:
        msg = BackMsg()
        rerun = msg.rerun_script
        rerun.query_string = self.query
        rerun.page_name = self.page
        rerun.page_script_hash = self.page_hash
        rerun.widget_states.widgets.extend([*self.states.values(), *self.triggers.values()])
        rerun.cached_message_hashes.extend(sorted(self.cache))
        if fragment:
            rerun.fragment_id = fragment
        info = rerun.context_info
        info.timezone, info.locale, info.color_scheme = "UTC", "en-US", "light"
        info.url = f"{self.base}/{self.page}" + (f"?{self.query}" if self.query else "")
        return msg.SerializeToString()

    async def run(self, fragment: str = "") -> Run:
        """Send a rerun (of one fragment, or of the page) and read until it finished."""
        run = Run(0.0, 0, fragment)
        seen: set[str] = set()
        start = time.perf_counter()
        await self.ws.send(self._message(fragment))
        self.triggers.clear()
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), self.timeout)
            run.bytes += len(raw)
            run.messages += 1
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if msg.metadata.cacheable and msg.hash:
                self.cache[msg.hash] = [raw, self.runs, msg.delta.fragment_id if kind == "delta" else ""]
            if kind == "ref_hash":
                cached = self.cache.get(msg.ref_hash)
                if cached is None:
                    run.errors.append("a ref_hash to a message this tab no longer holds")
                    continue
                cached[1] = self.runs
                msg = ForwardMsg()
                msg.ParseFromString(cached[0])
                kind = msg.WhichOneof("type")
            if kind == "delta":
                self._delta(msg.delta, seen, run)
            elif kind == "new_session":
                self.max_age = msg.new_session.config.max_cached_message_age
            elif kind == "page_info_changed":
                self.query = msg.page_info_changed.query_string
            elif kind == "navigation":
                self.page_hash = msg.navigation.page_script_hash
            elif kind == "page_not_found":
                self.notices.append("page_not_found")
            elif kind == "session_event" and msg.session_event.HasField("script_compilation_exception"):
                run.errors.append("compile error")
            elif kind == "script_finished":
                status = msg.script_finished
                if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue  # the app asked for another run: wait for it
                if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    run.errors.append("finished with compile error")
                self._forget(seen, fragment if status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY else "")
                self._age(fragment if status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY else "")
                run.seconds = time.perf_counter() - start
                return run

    def _delta(self, delta, seen: set[str], run: Run) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            run.errors.append("exception element: " + element.exception.message[:120])
            return
        proto = getattr(element, kind) if kind else None
        widget_id = getattr(proto, "id", "") if proto is not None else ""
        if not widget_id or not widget_id.startswith(WIDGET_ID_PREFIX):
            return
        seen.add(widget_id)
        self.drawn[widget_id] = Drawn(kind, proto, delta.fragment_id)
        state = initial_state(kind, proto)
        if state is not None and (widget_id not in self.states or getattr(proto, "set_value", False)):
            self.states[widget_id] = state

    def _age(self, fragment: str) -> None:
        """The frontend's message cache after a finished run: drop what was not used for max_age runs."""
        self.runs += 1
        for digest in [
            h
            for h, (_, used, frag) in self.cache.items()
            if (not fragment or frag == fragment) and self.runs - used > self.max_age
        ]:
            del self.cache[digest]

    def _forget(self, seen: set[str], fragment: str) -> None:
        """After a run, the widgets it could have drawn and did not are gone (a fragment run: its own)."""
        for widget_id in [
            w for w, d in self.drawn.items() if w not in seen and (not fragment or d.fragment == fragment)
        ]:
            del self.drawn[widget_id]
            self.states.pop(widget_id, None)
