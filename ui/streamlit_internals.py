"""Everything the app reaches below Streamlit's public API, in one place: a Streamlit upgrade that moves
one of these shows up here (and in tests/test_streamlit_internals.py, which names the missing attribute),
not as an AttributeError in the middle of a lecture.

Two parts use it. The frame (ui/shell/frame.py) asks whether this run is a fragment's own rerun and draws
a fresh server's first deep link under the entry script's identity. The room push (ui/poll/push.py) asks a
watching session for a whole run when its room changes, as Streamlit's own "run on save" does. Where the
runtime is missing (AppTest, a bare script) or lacks what the push uses (another Streamlit), `can_push()`
is False and a room's news arrive by the page's timer alone.
"""

from __future__ import annotations

import contextlib
import importlib

# What each use needs: (module, attribute path). The test reads this list, so a missing one is named.
RUN_CONTEXT = (("streamlit.runtime.scriptrunner", "get_script_run_ctx"),)
FRAME = (
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "ScriptRunContext.fragment_ids_this_run"),
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "ScriptRunContext.run_with_active_hash"),
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "ScriptRunContext.pages_manager"),
    ("streamlit.runtime.pages_manager", "PagesManager.main_script_hash"),
)
PUSH = (
    ("streamlit.runtime", "Runtime.exists"),
    ("streamlit.runtime", "Runtime.instance"),
    ("streamlit.runtime.session_manager", "SessionManager.get_active_session_info"),
    ("streamlit.runtime.app_session", "AppSession.request_rerun"),
    ("streamlit.runtime.app_session", "AppSessionState.APP_NOT_RUNNING"),
    ("streamlit.proto.ClientState_pb2", "ClientState"),
)
SESSION_FIELDS = ("_state", "_scriptrunner", "_client_state", "_event_loop")  # an AppSession's, read by the push
RUNTIME_FIELDS = ("_session_mgr",)  # the Runtime's, likewise


def missing(needs=RUN_CONTEXT + FRAME + PUSH) -> list[str]:
    """The needed names this Streamlit lacks, each as 'module.Attribute.path' (empty: all there)."""
    gone = []
    for module, path in needs:
        try:
            found = importlib.import_module(module)
            for part in path.split("."):
                found = _attribute(found, part)
        except (ImportError, AttributeError):
            gone.append(f"{module}.{path}")
    return gone


def _attribute(owner, name: str):
    """owner.name, or a dataclass field's declared name (a ScriptRunContext field has no class attribute)."""
    if hasattr(owner, name):
        return getattr(owner, name)
    fields = getattr(owner, "__dataclass_fields__", {})
    if name in fields:
        return fields[name]
    annotations = getattr(owner, "__annotations__", {})
    if name in annotations:
        return annotations[name]
    raise AttributeError(name)


# --------------------------------------------------------------------------- the run and the frame
def _ctx():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx()


def session_id() -> str | None:
    """This script thread's session id, or None outside a run."""
    try:
        ctx = _ctx()
    except Exception:  # noqa: BLE001 - no runtime at all
        return None
    return None if ctx is None else ctx.session_id


def fragment_rerun() -> bool:
    """Whether this run is a fragment's own rerun (not a whole run of the page)."""
    ctx = _ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


@contextlib.contextmanager
def as_entry_script():
    """Widgets made inside have the entry script's identity (a fresh server's first deep link runs the page
    file without the entry script; the frame is then drawn as the entry script would draw it)."""
    ctx = _ctx()
    with ctx.run_with_active_hash(ctx.pages_manager.main_script_hash):
        yield


# --------------------------------------------------------------------------- the room push
_can_push = False  # once it held: a server's runtime does not go away


def can_push() -> bool:
    """Whether this process is a Streamlit server whose runtime has what the push uses."""
    global _can_push
    if _can_push:
        return True
    try:
        from streamlit.runtime import Runtime

        _can_push = (
            not missing(PUSH) and Runtime.exists() and all(hasattr(Runtime.instance(), f) for f in RUNTIME_FIELDS)
        )
    except Exception:  # noqa: BLE001 - another Streamlit: the timer carries news
        _can_push = False
    return _can_push


def session(sid: str):
    """The live AppSession of a session id, or None when it ended."""
    from streamlit.runtime import Runtime

    info = Runtime.instance()._session_mgr.get_active_session_info(sid)
    return None if info is None else info.session


def idle(app_session) -> bool:
    """Whether a session runs no script and has none starting."""
    from streamlit.runtime.app_session import AppSessionState

    return app_session._state == AppSessionState.APP_NOT_RUNNING and app_session._scriptrunner is None


def on_loop(app_session, call) -> None:
    """call() on the server's event loop, where the browser's own rerun requests are handled."""
    app_session._event_loop.call_soon_threadsafe(call)


def rerun_whole(app_session) -> None:
    """Ask the session for a whole run with the state its browser sent last: no fragment, and no cached
    message assumed (the browser gets every element in full). Call it on the event loop (on_loop)."""
    from streamlit.proto.ClientState_pb2 import ClientState

    state = ClientState()
    state.CopyFrom(app_session._client_state)
    state.fragment_id = ""
    state.is_auto_rerun = False
    del state.cached_message_hashes[:]
    app_session.request_rerun(state)
