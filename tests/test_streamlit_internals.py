"""What the app reaches below Streamlit's public API (ui/streamlit_internals.py): every name it uses exists in
the installed Streamlit, a missing one is named in the failure, and without them the room's timer carries the
news alone (nothing is pushed)."""

from __future__ import annotations

from ui import streamlit_internals as internals


def test_every_internal_name_the_app_uses_exists_in_this_streamlit():
    gone = internals.missing()
    assert not gone, (
        "Streamlit no longer has " + ", ".join(gone) + ": ui/streamlit_internals.py must be "
        "adapted (the frame's fragment check and first deep link, the room push)"
    )


def test_a_removed_name_is_named():
    needs = internals.PUSH + (
        ("streamlit.runtime.app_session", "AppSession.no_such_call"),
        ("streamlit.no_such_module", "Anything"),
    )
    assert internals.missing(needs) == [
        "streamlit.runtime.app_session.AppSession.no_such_call",
        "streamlit.no_such_module.Anything",
    ]


def test_a_dataclass_field_counts_as_present():
    # ScriptRunContext's fields have no class attribute; a missing field would still be reported
    assert internals.missing(internals.FRAME) == []
    fake = (("streamlit.runtime.scriptrunner_utils.script_run_context", "ScriptRunContext.no_such_field"),)
    assert internals.missing(fake) == [f"{fake[0][0]}.{fake[0][1]}"]


def test_outside_a_server_nothing_is_pushed_and_the_timer_is_short(monkeypatch):
    from ui.poll import follow, push

    monkeypatch.setattr(internals, "_can_push", False)
    assert not push.available()  # no Runtime here: a bare process, as AppTest
    assert push._session_id() is None
    started = []
    monkeypatch.setattr(push, "_start", lambda: started.append(1))
    push.saw("ROOM", 3)  # a check that read a room: nothing to watch, no thread
    assert started == [] and push.watched("ROOM") == {}
    assert follow.watch_every() == follow.WATCH_ALONE_S < follow.WATCH_PUSHED_S


def test_when_streamlit_lacks_a_name_the_push_is_off_and_the_timer_takes_over(monkeypatch):
    from ui.poll import follow

    monkeypatch.setattr(internals, "_can_push", False)
    monkeypatch.setattr(internals, "PUSH", internals.PUSH + (("streamlit.runtime", "Runtime.no_such_call"),))

    class Runtime:  # a server's runtime, as far as the check looks
        @staticmethod
        def exists():
            return True

        @staticmethod
        def instance():
            return type("R", (), {"_session_mgr": object()})()

    import streamlit.runtime

    monkeypatch.setattr(streamlit.runtime, "Runtime", Runtime)
    assert internals.can_push() is False
    assert follow.watch_every() == follow.WATCH_ALONE_S


def test_with_every_name_a_server_runtime_turns_the_push_on(monkeypatch):
    from ui.poll import follow

    monkeypatch.setattr(internals, "_can_push", False)
    import streamlit.runtime

    real = streamlit.runtime.Runtime
    monkeypatch.setattr(real, "exists", staticmethod(lambda: True))
    monkeypatch.setattr(real, "instance", staticmethod(lambda: type("R", (), {"_session_mgr": object()})()))
    assert internals.can_push() is True and follow.watch_every() == follow.WATCH_PUSHED_S
    monkeypatch.setattr(internals, "_can_push", False)
    monkeypatch.setattr(real, "instance", staticmethod(lambda: object()))  # a runtime without its session manager
    assert internals.can_push() is False
