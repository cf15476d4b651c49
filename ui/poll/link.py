"""Who this browser is in a class poll: the room, and the presenter key or a seat.

Pure Python. The presenter's URL carries `room` only: the key stays in the session and in a cookie of the
presenter's browser (ui/poll/keep.py), never on the projected screen; a link with `key` (continue on
another device) is read once and the key leaves the address bar. A student's URL carries `room` and
`seat` (a random id the app gives on joining, so a reload or a reconnect to another replica is the same
student); the join link and the sidebar's "Link to this view" carry `room` only, never a key or a seat.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.poll.codes import PollError, new_seat, parse_code, parse_token

KEYS = ("room", "key", "seat")


@dataclass(frozen=True)
class Link:
    room: str | None = None
    key: str | None = None  # the presenter's
    seat: str | None = None  # a student's

    @property
    def presenter(self) -> bool:
        return self.room is not None and self.key is not None

    @property
    def student(self) -> bool:
        return self.room is not None and self.key is None

    def url_params(self) -> dict[str, str]:
        """What this browser's own URL carries (never the presenter key)."""
        if self.room is None:
            return {}
        return {"room": self.room, **({"seat": self.seat} if self.seat and not self.key else {})}

    def share_params(self) -> dict[str, str]:
        """What a link for someone else carries: the room, nothing that is this browser's own."""
        return {"room": self.room} if self.room else {}


def from_params(params: dict[str, str], remembered: str | None = None) -> tuple[Link, list[str]]:
    """The poll part of a URL; malformed parts are dropped and said (a student gets a seat here). A URL
    with the room alone, in the browser that keeps the room's presenter key (`remembered`), is the presenter."""
    if "room" not in params:
        return Link(), []
    try:
        room = parse_code(params["room"])
    except PollError as err:
        return Link(), [str(err)]
    problems, key, seat = [], None, None
    for name in ("key", "seat"):
        if name in params:
            try:
                token = parse_token(params[name], "presenter key" if name == "key" else "seat id")
            except PollError as err:
                problems.append(str(err))
                continue
            key, seat = (token, seat) if name == "key" else (key, token)
    if key is None and seat is None and remembered:
        try:
            key = parse_token(remembered, "presenter key")
        except PollError:
            pass
    if key is None:
        seat = seat or new_seat()
    return Link(room, key, None if key else seat), problems
