"""A room's change pushed to the sessions of this process that watch it, instead of waiting for their timers.

One daemon thread per server process reads each watched room's row every room.FRESH_S (the read its
sessions' checks share) and, when the room's counter moved past what a session's check last saw, asks that
session to run its page again, as Streamlit's own "run on save" does: a whole run with the state the
browser sent last (`AppSession.request_rerun`), and no cached element assumed (the browser's cache may have
dropped one since). That run's first step (ui/poll/follow.early, which the frame calls before it chooses
the page) does what the page's check would: a follower is moved to the presenter's page and settings, so
a move costs a student one run. A session that is running is left alone on that read (a rerun would stop
its run, and its check will read the room anyway) and asked on a later one if it still has not seen it.

Streamlit offers no public call for this: what it needs below the public API is in ui/streamlit_internals.py.
Where that runtime is missing (AppTest, a bare script) or differs (another Streamlit), `available()` is False,
nothing is pushed and the timer alone carries a room's news at its short interval."""

from __future__ import annotations

import logging
import threading
import time

from services.poll.codes import PollError
from ui import streamlit_internals as internals

GONE = -1  # the room's counter once it could not be read (closed, expired, database down)
PRUNE_S = 5.0  # sessions that ended are dropped this often
RUNNING = 4  # pushed runs at once on a process: a hall's moves are served in turn, not all
# at once (one interpreter lock: a hundred runs together all end late); runs
# the students started themselves (a slider) do not count
BUSY_S = 0.02  # the next pass while sessions wait for their turn
STARTS_S = 5.0  # an asked run that has not started by then no longer holds a turn
_LOG = logging.getLogger(__name__)
_watched: dict[str, dict[str, int]] = {}  # room code -> {session id: the counter its check last saw}
_pushed: dict[str, float] = {}  # session asked for a run that has not started yet (take()) -> when
_flight: set[str] = set()  # sessions asked whose run may not have finished yet
_guard = threading.Lock()
_thread: threading.Thread | None = None


def available() -> bool:
    """Whether this process can push: a Streamlit server whose runtime has what _rerun uses (asked on every
    run of a page in a room; looked up once it held)."""
    return internals.can_push()


def saw(code: str, rev: int) -> None:
    """This session's check read the room at counter `rev` (GONE when it could not): it is watched from now."""
    sid = _session_id()
    if sid is not None:
        note(code, sid, rev)
        if _thread is None:
            _start()


def note(code: str, sid: str, rev: int) -> None:
    """Session `sid` has seen counter `rev` of room `code`."""
    with _guard:
        for other in [c for c, sessions in _watched.items() if c != code and sid in sessions]:
            del _watched[other][sid]  # one room per browser: the one it is in now
        _watched.setdefault(code, {})[sid] = rev


def take() -> bool:
    """Whether this run is one a room's change asked for (once: the frame's early hook takes it)."""
    sid = _session_id()
    if sid is None:
        return False
    with _guard:
        return _pushed.pop(sid, None) is not None


def watched(code: str) -> dict[str, int]:
    """A copy of the room's watchers and what each last saw (for tests and the benchmark)."""
    with _guard:
        return dict(_watched.get(code, {}))


def due(rev: int, sessions: dict[str, int]) -> list[str]:
    """The sessions whose check has not seen counter `rev` yet."""
    return [sid for sid, seen in sessions.items() if seen != rev]


def tick(read, rerun, slots=None) -> tuple[int, int]:
    """One pass over the watched rooms: read(code) -> counter (PollError: gone); rerun(session id, busy) asks
    a session for a run and returns whether it did (False: busy or gone), calling busy() if it finds the
    session busy later (the server's loop). A session is asked once per change: its next check's saw() tells
    the rest; a busy one is asked again on the next pass. At most slots() are asked in a pass (None: all;
    called once, when a session is due). Returns (asked, still due)."""
    with _guard:
        rooms = {code: dict(sessions) for code, sessions in _watched.items()}
    asked = waiting = 0
    free = None
    for code, sessions in rooms.items():
        try:
            rev = read(code)
        except PollError:
            rev = GONE
        for sid in due(rev, sessions):
            if free is None:
                free = slots() if slots is not None else float("inf")
            if asked >= free:
                waiting += 1
                continue
            _mark(code, sid, old=sessions[sid], new=rev)  # before asking: busy() may come at once
            if rerun(sid, lambda c=code, s=sid, r=rev, o=sessions[sid]: _mark(c, s, old=r, new=o)):
                asked += 1
            else:
                _mark(code, sid, old=rev, new=sessions[sid])
                waiting += 1
    return asked, waiting


def _mark(code: str, sid: str, old: int, new: int) -> None:
    """What the session saw goes from old to new, unless its check said otherwise meanwhile."""
    with _guard:
        sessions = _watched.get(code)
        if sessions is not None and sessions.get(sid) == old:
            sessions[sid] = new


def prune(alive) -> None:
    """Drop the sessions that ended, and rooms nobody on this process watches."""
    with _guard:
        for code in list(_watched):
            for sid in [s for s in _watched[code] if not alive(s)]:
                del _watched[code][sid]
                _pushed.pop(sid, None)
                _flight.discard(sid)
            if not _watched[code]:
                del _watched[code]


def _session_id() -> str | None:
    return internals.session_id() if available() else None


def _start() -> None:
    global _thread
    with _guard:
        if _thread is not None:
            return
        _thread = threading.Thread(target=_loop, name="attention-lab-room-push", daemon=True)
    _thread.start()


def _loop() -> None:
    from ui.poll import room

    pruned, waiting = time.monotonic(), 0
    while True:
        time.sleep(BUSY_S if waiting else room.FRESH_S)
        try:
            _, waiting = tick(lambda code: room.watch(code).rev, _rerun, lambda: max(0, RUNNING - _running()))
            if time.monotonic() - pruned > PRUNE_S:
                prune(_alive)
                pruned = time.monotonic()
        except Exception:  # noqa: BLE001 - never let the thread die: timers still run
            _LOG.exception("room push")


def _session(sid: str):
    return internals.session(sid)


def _running() -> int:
    """How many pushed runs have not finished (asked and not started yet, or running); the finished ones are
    forgotten here."""
    now = time.monotonic()
    with _guard:
        flight = set(_flight)
        asked = {sid for sid, when in _pushed.items() if now - when < STARTS_S}
    done = {sid for sid in flight if sid not in asked and ((s := _session(sid)) is None or _idle(s))}
    with _guard:
        _flight.difference_update(done)
    return len(flight - done)


def _idle(session) -> bool:
    return internals.idle(session)


def _alive(sid: str) -> bool:
    return _session(sid) is not None


def _rerun(sid: str, busy) -> bool:
    """Ask an idle session for a whole run with the state its browser sent last (no fragment, no cached
    messages assumed: the browser gets every element in full). Runs on the server's event loop, where the
    browser's own rerun requests are handled, so the idle check and the request cannot interleave with one."""
    session = _session(sid)
    if session is None or not _idle(session):
        return False

    def run() -> None:
        if not _idle(session):  # the browser asked first: ask again on the next pass
            with _guard:
                _pushed.pop(sid, None)
            busy()
            return
        internals.rerun_whole(session)

    with _guard:
        _pushed[sid] = time.monotonic()  # asked from now: its turn is taken until its run ends
        _flight.add(sid)
    internals.on_loop(session, run)
    return True
