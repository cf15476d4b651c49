"""The class poll's rules that need no database: room codes, presenter keys and seats, the errors a page
shows, and what a room and a question are.

Pure Python: importing it costs a page nothing (the store, services/poll/store.py, loads SQLAlchemy only
when a room is opened). A question keeps every right answer: keys tied within the page's own rule are all
right.

Who may do what:
* anyone with the room's code reads its questions and answers them (choices only: no free text, no
  names, no addresses; a student is a random seat id);
* only the presenter key (random, 128 bits, stored as its SHA-256, compared in constant time) asks,
  reveals, resets, closes and downloads.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a projector without doubt
CODE_LEN = 4  # 31**4 = 923,521 codes
KEY_BYTES = 16  # the presenter key: 128 random bits
SEAT_BYTES = 9  # a student's seat id: 72 random bits
TTL_S = float(os.environ.get("ATTENTION_LAB_POLL_TTL_S", 24 * 3600))  # rooms and answers expire
DEFAULT_DB = Path(__file__).resolve().parents[2] / ".poll" / "poll.sqlite3"  # git-ignored
MAX_OPTIONS = 16
MAX_TEXT = 200  # a question's prompt or option label (ours, not a student's)
MIN_S, MAX_S = 10, 600  # a question's countdown, in seconds (0: none; services/poll/pace.py sets it)

_CODE = re.compile(rf"[{ALPHABET}]{{{CODE_LEN}}}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,64}")  # what secrets.token_urlsafe gives


class PollError(ValueError):
    """Something a person asked for that cannot be done; the message says why, for the page."""


class NoRoom(PollError):
    @classmethod
    def gone(cls, code: str, ttl_s: float) -> NoRoom:
        """A code that names no room now (never made, or expired)."""
        return cls(f"There is no room {code}: check the code (rooms expire after {ttl_s / 3600:g} h).")

    @classmethod
    def closed(cls, code: str) -> NoRoom:
        return cls(f"Room {code} is closed: the presenter ended the poll.")


class NotPresenter(PollError):
    pass


class StoreDown(PollError):
    """The database did not answer (locked too long, unreachable): say so, try again later."""


def parse_code(raw: str) -> str:
    """A room code as typed or linked (case and spaces forgiven), or PollError saying what is wrong."""
    code = str(raw).strip().upper()
    if not _CODE.fullmatch(code):
        raise PollError(f"{str(raw)[:12]!r} is not a room code: a code is {CODE_LEN} characters from {ALPHABET}")
    return code


def parse_token(raw: str, what: str) -> str:
    """A presenter key or seat id from a link, or PollError."""
    token = str(raw).strip()
    if not _TOKEN.fullmatch(token):
        raise PollError(f"the {what} in this link is malformed")
    return token


def new_seat() -> str:
    return secrets.token_urlsafe(SEAT_BYTES)


def digest(key: str) -> str:
    """What the store keeps of a presenter key: its SHA-256."""
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class Room:
    code: str
    key: str  # the presenter key: shown once, to the presenter who created the room


@dataclass(frozen=True)
class Question:
    qid: str  # which question ("exercise", "softmax", "scores")
    prompt: str
    options: tuple[tuple[str, str], ...]  # (value stored, label shown)
    answers: tuple[str, ...]  # every right option's value (ties: several), in option order
    revealed: bool
    asked_at: float
    closes_at: float | None = None  # its countdown's end (the store's clock), or None
    kind: str = "choice"  # or "draw": the answer is a row of weights (services/poll/drawn.py)
    frozen: dict | None = None  # a drawn question's true row, layer, head, row and key labels, as asked

    def label(self, value: str | None) -> str:
        return dict(self.options).get(value or "", "no answer")

    def right(self, value: str | None) -> bool:
        return value in self.answers

    def answer_label(self) -> str:
        """The right option(s) as a student reads them: 'A', or 'A or B'."""
        labels = [self.label(v) for v in self.answers]
        return labels[0] if len(labels) == 1 else "; ".join(labels[:-1]) + "; or " + labels[-1]


def closed_words(closes_at: float) -> str:
    """What a student who answers after a question's countdown reads (the store refuses the answer)."""
    at = datetime.datetime.fromtimestamp(closes_at, datetime.UTC).strftime("%H:%M:%S")
    return f"This question closed at {at} UTC (its countdown ended): answers are no longer taken."


def right_answers(options: list[tuple[str, str]], answers) -> list[str]:
    """The right answers as a list in option order (one value given alone is one right answer)."""
    chosen = {answers} if isinstance(answers, str) else set(answers)
    values = [v for v, _ in options]
    if not chosen or not chosen <= set(values):
        raise PollError("a question needs 2 to 16 options, every right answer among them")
    return [v for v in values if v in chosen]
