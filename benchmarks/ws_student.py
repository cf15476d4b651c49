"""One simulated browser tab on Streamlit's own websocket protocol (the lecture hall of benchmarks.load,
and benchmarks.storm and benchmarks.poll's students, are made of these): it GETs the page as a browser does,
keeping the cookies the server set (HAProxy's affinity cookie, Streamlit's XSRF one), opens the websocket,
runs the page, then moves a sidebar slider, timing each rerun and noting what goes wrong.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

import websockets  # a dependency of streamlit itself
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.wsclient import get_keeping_cookies, initial_state
from deploy import replicas


# ------------------------------------------------------------------------------ widget states
def widget_state(element) -> WidgetState | None:
    """The WidgetState the frontend sends for a widget, from the element the server drew (the hall's tab,
    benchmarks.wsclient, keeps the same)."""
    kind = element.WhichOneof("type")
    proto = getattr(element, kind) if kind else None
    if proto is None or not getattr(proto, "id", ""):
        return None
    return initial_state(kind, proto)


@dataclass
class Result:
    first: float | None = None
    reruns: list[float] = field(default_factory=list)
    ended: list[float] = field(default_factory=list)  # time.perf_counter() as each rerun ended
    first_bytes: int = 0
    rerun_bytes: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    replica: str | None = None  # HAProxy's affinity cookie at the end (None: no load balancer)


class Student:
    """One browser tab: one websocket session."""

    def __init__(
        self,
        base: str,
        page: str,
        query: str,
        slider: str,
        changes: int,
        pause: float,
        rng: random.Random,
        timeout: float,
        cookies: dict[str, str] | None = None,
    ):
        self.base, self.page, self.query, self.slider = base, page, query, slider
        self.changes, self.pause, self.rng, self.timeout = changes, pause, rng, timeout
        self.widgets: dict[str, WidgetState] = {}
        self.slider_proto = None
        self.cached: set[str] = set()
        self.page_hash = ""
        self.cookies: dict[str, str] = dict(cookies or {})  # one origin, so name → value is enough
        self.result = Result()

    def _cookie_header(self) -> dict[str, str]:
        return {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}

    async def _http(self, path: str) -> None:
        await get_keeping_cookies(self.base + path, self.cookies, self.timeout)

    def _rerun_msg(self) -> bytes:
        msg = BackMsg()
        rerun = msg.rerun_script
        rerun.query_string = self.query
        rerun.page_name = self.page
        rerun.page_script_hash = self.page_hash
        rerun.widget_states.widgets.extend(self.widgets.values())
        rerun.cached_message_hashes.extend(sorted(self.cached))
        info = rerun.context_info
        info.timezone, info.locale, info.color_scheme = "UTC", "en-US", "light"
        info.url = f"{self.base}/{self.page}" + (f"?{self.query}" if self.query else "")
        return msg.SerializeToString()

    async def _run(self, ws) -> tuple[float, int]:
        """Send a rerun and read until its script_finished; returns (seconds, bytes received)."""
        start = time.perf_counter()
        await ws.send(self._rerun_msg())
        received = 0
        while True:
            raw = await asyncio.wait_for(ws.recv(), self.timeout)
            received += len(raw)
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if msg.metadata.cacheable and msg.hash:
                self.cached.add(msg.hash)
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                if element.WhichOneof("type") == "exception":
                    self.result.errors.append("exception element: " + element.exception.message[:120])
                state = widget_state(element)
                if state is not None:
                    kind = element.WhichOneof("type")
                    # Like the frontend: a widget keeps its own value unless the server sets one.
                    if state.id not in self.widgets or getattr(element, kind).set_value:
                        self.widgets[state.id] = state
                    if element.WhichOneof("type") == "slider" and element.slider.label.startswith(self.slider):
                        self.slider_proto = element.slider
            elif kind == "navigation":
                self.page_hash = msg.navigation.page_script_hash
            elif kind == "page_not_found":
                self.result.notices.append("page_not_found")
            elif kind == "session_event" and msg.session_event.HasField("script_compilation_exception"):
                self.result.errors.append("compile error")
            elif kind == "script_finished":
                if msg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                if msg.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    self.result.errors.append("finished with compile error")
                return time.perf_counter() - start, received

    def _move(self) -> None:
        proto = self.slider_proto
        state = self.widgets[proto.id]
        low, high = int(proto.min), int(proto.max)
        now = int(state.double_array_value.data[0])
        step = self.rng.choice([-3, -2, -1, 1, 2, 3])
        new = now + step if low <= now + step <= high else now - step
        state.double_array_value.data[:] = [float(new)]

    async def session(self) -> Result:
        start = time.perf_counter()
        try:
            for path in (
                f"/{self.page}" + (f"?{self.query}" if self.query else ""),
                "/_stcore/health",
                "/_stcore/host-config",
            ):
                await self._http(path)
            url = self.base.replace("http://", "ws://") + "/_stcore/stream"
            # Like the frontend: the XSRF cookie's token as the second subprotocol entry, every cookie
            # (HAProxy's SRV included) on the handshake.
            xsrf = self.cookies.get("_streamlit_xsrf")
            async with websockets.connect(
                url,
                subprotocols=["streamlit"] + ([xsrf] if xsrf else []),
                origin=self.base,
                additional_headers=self._cookie_header(),
                max_size=None,
                open_timeout=self.timeout,
                ping_interval=None,
            ) as ws:
                _, received = await self._run(ws)
                self.result.first = time.perf_counter() - start  # includes the HTTP and the handshake
                self.result.first_bytes = received
                if self.slider_proto is None:
                    self.result.errors.append(f"no slider labelled {self.slider!r}")
                    return self.result
                for _ in range(self.changes):
                    if self.pause:
                        await asyncio.sleep(self.pause * self.rng.uniform(0.75, 1.25))
                    self._move()
                    seconds, received = await self._run(ws)
                    self.result.reruns.append(seconds)
                    self.result.ended.append(time.perf_counter())
                    self.result.rerun_bytes.append(received)
        except TimeoutError:
            self.result.errors.append(f"timeout ({self.timeout} s)")
        except (OSError, websockets.exceptions.WebSocketException) as exc:
            self.result.errors.append(f"{type(exc).__name__}: {exc}"[:160])
        self.result.replica = self.cookies.get(replicas.COOKIE)
        return self.result
