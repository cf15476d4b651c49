"""The class poll's store: rooms, the questions asked in them, and one answer per student and question.

Pure Python (no Streamlit). SQLite by default (one file in WAL mode, so every replica on the machine
shares it and a restart keeps it); PostgreSQL when DATABASE_URL is set (the app on several machines).
Every count is read from the store, never kept in memory, and every write is one transaction.
A question keeps every right answer (a JSON list): keys tied within the page's own rule are all right.

Who may do what:
* anyone with the room's code reads its questions and answers them (choices only: no free text, no
  names, no addresses; a student is a random seat id);
* only the presenter key (random, 128 bits, stored as its SHA-256, compared in constant time) asks,
  reveals, resets, closes and downloads.
"""
from __future__ import annotations

import contextlib
import csv
import hashlib
import hmac
import io
import json
import os
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"   # no 0/O, 1/I/L: read off a projector without doubt
CODE_LEN = 4                                    # 31**4 = 923,521 codes
KEY_BYTES = 16                                  # the presenter key: 128 random bits
SEAT_BYTES = 9                                  # a student's seat id: 72 random bits
TTL_S = float(os.environ.get("ATTENTION_LAB_POLL_TTL_S", 24 * 3600))   # rooms and answers expire
DEFAULT_DB = Path(__file__).resolve().parents[2] / ".poll" / "poll.sqlite3"   # git-ignored
MAX_OPTIONS = 16
MAX_TEXT = 200                                  # a question's prompt or option label (ours, not a student's)

_CODE = re.compile(rf"[{ALPHABET}]{{{CODE_LEN}}}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,64}")      # what secrets.token_urlsafe gives


class PollError(ValueError):
    """Something a person asked for that cannot be done; the message says why, for the page."""


class NoRoom(PollError):
    pass


class NotPresenter(PollError):
    pass


class StoreDown(PollError):
    """The database did not answer (locked too long, unreachable): say so, try again later."""


def parse_code(raw: str) -> str:
    """A room code as typed or linked (case and spaces forgiven), or PollError saying what is wrong."""
    code = str(raw).strip().upper()
    if not _CODE.fullmatch(code):
        raise PollError(f"{str(raw)[:12]!r} is not a room code: a code is {CODE_LEN} characters "
                        f"from {ALPHABET}")
    return code


def parse_token(raw: str, what: str) -> str:
    """A presenter key or seat id from a link, or PollError."""
    token = str(raw).strip()
    if not _TOKEN.fullmatch(token):
        raise PollError(f"the {what} in this link is malformed")
    return token


def new_seat() -> str:
    return secrets.token_urlsafe(SEAT_BYTES)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class Room:
    code: str
    key: str          # the presenter key: shown once, to the presenter who created the room


@dataclass(frozen=True)
class Question:
    qid: str                          # which question ("exercise", "softmax", "scores")
    prompt: str
    options: tuple[tuple[str, str], ...]   # (value stored, label shown)
    answers: tuple[str, ...]          # every right option's value (ties: several), in option order
    revealed: bool
    asked_at: float

    def label(self, value: str | None) -> str:
        return dict(self.options).get(value or "", "no answer")

    def right(self, value: str | None) -> bool:
        return value in self.answers

    def answer_label(self) -> str:
        """The right option(s) as a student reads them: 'A', or 'A or B'."""
        labels = [self.label(v) for v in self.answers]
        return labels[0] if len(labels) == 1 else "; ".join(labels[:-1]) + "; or " + labels[-1]


def _answers(options: list[tuple[str, str]], answers) -> list[str]:
    """The right answers as a list in option order (one value given alone is one right answer)."""
    chosen = {answers} if isinstance(answers, str) else set(answers)
    values = [v for v, _ in options]
    if not chosen or not chosen <= set(values):
        raise PollError("a question needs 2 to 16 options, every right answer among them")
    return [v for v in values if v in chosen]


# Each entry is one schema version; the app applies those it has not applied yet, in one transaction.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE poll_rooms (code TEXT PRIMARY KEY, key_sha256 TEXT NOT NULL, "
        "created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL, "
        "closed INTEGER NOT NULL DEFAULT 0)",
        "CREATE TABLE poll_questions (code TEXT NOT NULL, qid TEXT NOT NULL, prompt TEXT NOT NULL, "
        "options TEXT NOT NULL, answer TEXT NOT NULL, revealed INTEGER NOT NULL DEFAULT 0, "
        "asked_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (code, qid))",
        "CREATE TABLE poll_answers (code TEXT NOT NULL, seat TEXT NOT NULL, qid TEXT NOT NULL, "
        "choice TEXT NOT NULL, answered_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (code, qid, seat))",
        "CREATE INDEX poll_rooms_expiry ON poll_rooms (expires_at)",
    ),
    # Version 2: a question may have several right answers (keys tied within the page's own rule), so
    # poll_questions.answer holds a JSON list; an old row's single value becomes a list of one.
    (r"""UPDATE poll_questions SET answer = '["' || REPLACE(REPLACE(answer, '\', '\\'), '"', '\"') || '"]'""",),
)


class Store:
    """The poll's tables in SQLite (a file path) or PostgreSQL (a postgresql:// URL)."""

    def __init__(self, target: str | Path | None = None, ttl_s: float = TTL_S, clock=time.time):
        target = target or os.environ.get("DATABASE_URL") or os.environ.get("ATTENTION_LAB_POLL_DB") or DEFAULT_DB
        self.target = str(target)
        self.postgres = self.target.startswith(("postgres://", "postgresql://"))
        self.ttl_s, self.clock = ttl_s, clock
        self._idle: list = []                 # open connections waiting for the next call
        self._lock = threading.Lock()
        if not self.postgres:
            try:
                Path(self.target).parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreDown(f"The poll's database is not available ({err.strerror}); try again.") from err
        self.migrate()

    # -- connections and transactions
    def _open(self):
        if self.postgres:
            import psycopg                    # only where PostgreSQL is used

            return psycopg.connect(self.target, autocommit=True)
        conn = sqlite3.connect(self.target, timeout=30, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")       # readers never wait for a writer; replicas share the file
        conn.execute("PRAGMA synchronous=NORMAL")     # WAL's durable-enough setting: a crash of the app loses nothing
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    @contextlib.contextmanager
    def _tx(self, write: bool = True):
        """One transaction on a pooled connection; a cursor whose execute takes '?' placeholders."""
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        try:
            conn = conn or self._open()
        except Exception as err:                       # sqlite3 or psycopg: cannot open the database
            raise StoreDown(f"The poll's database is not available ({type(err).__name__}); try again.") from err
        ok = False
        try:
            if self.postgres:
                with conn.transaction(), conn.cursor() as cur:
                    yield _Cursor(cur, True)
            else:
                conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    yield _Cursor(conn.cursor(), False)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
            ok = True
        except PollError:
            ok = True                                  # a refused request: rolled back, the connection is fine
            raise
        except (sqlite3.OperationalError, sqlite3.DatabaseError) as err:
            raise StoreDown(f"The poll's database did not answer ({err}); try again.") from err
        except Exception as err:
            if type(err).__module__.startswith("psycopg"):
                raise StoreDown(f"The poll's database did not answer ({type(err).__name__}); try again.") from err
            raise
        finally:
            with self._lock:
                if ok and len(self._idle) < 8:
                    self._idle.append(conn)
                    conn = None
            if conn is not None:
                conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def migrate(self) -> int:
        """Create or bring the schema up to date (safe with several processes starting at once)."""
        with self._tx() as cur:
            if self.postgres:
                cur.execute("SELECT pg_advisory_xact_lock(2727)")    # one process migrates at a time
            cur.execute("CREATE TABLE IF NOT EXISTS poll_schema (version INTEGER NOT NULL)")
            cur.execute("SELECT version FROM poll_schema")
            row = cur.fetchone()
            version = row[0] if row else 0
            if row is None:
                cur.execute("INSERT INTO poll_schema (version) VALUES (0)")
            for number, statements in enumerate(MIGRATIONS[version:], start=version + 1):
                for sql in statements:
                    cur.execute(sql)
                cur.execute("UPDATE poll_schema SET version = ?", (number,))
        return len(MIGRATIONS)

    def schema_version(self) -> int:
        with self._tx(write=False) as cur:
            cur.execute("SELECT version FROM poll_schema")
            return cur.fetchone()[0]

    # -- rooms
    def create_room(self) -> Room:
        """A new room with a random code (not in use) and its presenter key."""
        key = secrets.token_urlsafe(KEY_BYTES)
        now = self.clock()
        self.purge()
        for _ in range(50):
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))
            with self._tx() as cur:
                cur.execute("INSERT INTO poll_rooms (code, key_sha256, created_at, expires_at) VALUES (?, ?, ?, ?) "
                            "ON CONFLICT (code) DO NOTHING", (code, _digest(key), now, now + self.ttl_s))
                if cur.rowcount == 1:
                    return Room(code, key)
        raise PollError("no free room code was found; try again")

    def _room(self, cur, code: str, key: str | None = None, open_only: bool = True) -> None:
        """Raises NoRoom for a wrong, expired (or, if open_only, closed) code; NotPresenter for a wrong key."""
        cur.execute("SELECT key_sha256, expires_at, closed FROM poll_rooms WHERE code = ?", (code,))
        row = cur.fetchone()
        if row is None or row[1] <= self.clock():
            raise NoRoom(f"There is no room {code}: check the code (rooms expire after "
                         f"{self.ttl_s / 3600:g} h).")
        if key is not None and not hmac.compare_digest(row[0], _digest(key)):
            raise NotPresenter(f"Only the presenter of room {code} can do that.")
        if open_only and row[2]:
            raise NoRoom(f"Room {code} is closed: the presenter ended the poll.")

    def check(self, code: str, key: str | None = None) -> None:
        """NoRoom / NotPresenter unless the room is open (and the key is its presenter's)."""
        with self._tx(write=False) as cur:
            self._room(cur, code, key)

    def is_presenter(self, code: str, key: str) -> bool:
        try:
            self.check(code, key)
        except PollError:
            return False
        return True

    def close_room(self, code: str, key: str) -> None:
        with self._tx() as cur:
            self._room(cur, code, key)
            cur.execute("UPDATE poll_rooms SET closed = 1 WHERE code = ?", (code,))

    def purge(self) -> int:
        """Delete expired rooms with their questions and answers; how many rooms went."""
        now = self.clock()
        with self._tx() as cur:
            for table in ("poll_answers", "poll_questions"):
                cur.execute(f"DELETE FROM {table} WHERE code IN (SELECT code FROM poll_rooms WHERE expires_at <= ?)",
                            (now,))
            cur.execute("DELETE FROM poll_rooms WHERE expires_at <= ?", (now,))
            return cur.rowcount

    # -- questions (the presenter's)
    def ask(self, code: str, key: str, qid: str, prompt: str, options: list[tuple[str, str]], answers) -> None:
        """Put a question to the room with its right answer(s), a value or a list of values (the same
        question asked with other options or other answers starts afresh: its answers would not fit)."""
        options = [(str(v)[:MAX_TEXT], str(label)[:MAX_TEXT]) for v, label in options]
        if not 2 <= len(options) <= MAX_OPTIONS:
            raise PollError("a question needs 2 to 16 options, every right answer among them")
        blob, answer = json.dumps(options), json.dumps(_answers(options, answers))
        with self._tx() as cur:
            self._room(cur, code, key)
            cur.execute("SELECT prompt, options, answer FROM poll_questions WHERE code = ? AND qid = ?", (code, qid))
            if cur.fetchone() == (prompt[:MAX_TEXT * 2], blob, answer):
                return                                  # asked already, exactly so: keep its answers
            cur.execute("DELETE FROM poll_answers WHERE code = ? AND qid = ?", (code, qid))
            cur.execute("DELETE FROM poll_questions WHERE code = ? AND qid = ?", (code, qid))
            cur.execute("INSERT INTO poll_questions (code, qid, prompt, options, answer, asked_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)", (code, qid, prompt[:MAX_TEXT * 2], blob, answer, self.clock()))

    def _owned(self, cur, code: str, key: str, qid: str) -> None:
        self._room(cur, code, key, open_only=False)
        cur.execute("SELECT 1 FROM poll_questions WHERE code = ? AND qid = ?", (code, qid))
        if cur.fetchone() is None:
            raise PollError(f"Question {qid!r} has not been asked in room {code}.")

    def reveal(self, code: str, key: str, qid: str) -> None:
        with self._tx() as cur:
            self._owned(cur, code, key, qid)
            cur.execute("UPDATE poll_questions SET revealed = 1 WHERE code = ? AND qid = ?", (code, qid))

    def reset(self, code: str, key: str, qid: str) -> None:
        """Every answer to the question gone, and the answer hidden again."""
        with self._tx() as cur:
            self._owned(cur, code, key, qid)
            cur.execute("DELETE FROM poll_answers WHERE code = ? AND qid = ?", (code, qid))
            # asked afresh: the time moves on, so students' pages draw a new, empty choice
            cur.execute("UPDATE poll_questions SET revealed = 0, asked_at = ? WHERE code = ? AND qid = ?",
                        (self.clock(), code, qid))

    def questions(self, code: str) -> list[Question]:
        """The open room's questions, the latest asked first (NoRoom if wrong, expired or closed)."""
        with self._tx(write=False) as cur:
            self._room(cur, code)
            cur.execute("SELECT qid, prompt, options, answer, revealed, asked_at FROM poll_questions "
                        "WHERE code = ? ORDER BY asked_at DESC", (code,))
            rows = cur.fetchall()
        return [Question(qid, prompt, tuple(tuple(o) for o in json.loads(options)), tuple(json.loads(answer)),
                         bool(revealed), at) for qid, prompt, options, answer, revealed, at in rows]

    # -- answers (the students')
    def answer(self, code: str, seat: str, qid: str, choice: str) -> None:
        """Record (or change) a student's answer: one row per seat and question, until the reveal."""
        with self._tx() as cur:
            self._room(cur, code)
            cur.execute("SELECT options, revealed FROM poll_questions WHERE code = ? AND qid = ?", (code, qid))
            row = cur.fetchone()
            if row is None:
                raise PollError("That question is not open in this room.")
            if row[1]:
                raise PollError("The answer has been revealed: answers can no longer change.")
            if choice not in {value for value, _ in json.loads(row[0])}:
                raise PollError("That is not one of the question's options.")
            cur.execute("INSERT INTO poll_answers (code, seat, qid, choice, answered_at) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT (code, qid, seat) DO UPDATE SET choice = excluded.choice, "
                        "answered_at = excluded.answered_at", (code, seat, qid, choice, self.clock()))

    def my_answers(self, code: str, seat: str) -> dict[str, str]:
        with self._tx(write=False) as cur:
            cur.execute("SELECT qid, choice FROM poll_answers WHERE code = ? AND seat = ?", (code, seat))
            return dict(cur.fetchall())

    def counts(self, code: str) -> dict[str, dict[str, int]]:
        """{question: {choice: students}} counted in the store."""
        out: dict[str, dict[str, int]] = {}
        with self._tx(write=False) as cur:
            cur.execute("SELECT qid, choice, COUNT(*) FROM poll_answers WHERE code = ? GROUP BY qid, choice", (code,))
            for qid, choice, n in cur.fetchall():
                out.setdefault(qid, {})[choice] = int(n)
        return out

    def csv(self, code: str, key: str) -> str:
        """Every answer of the room, anonymous: question, choice, whether right, seconds after asking."""
        with self._tx(write=False) as cur:
            self._room(cur, code, key, open_only=False)
            cur.execute("SELECT q.qid, q.prompt, a.choice, q.answer, a.answered_at - q.asked_at FROM poll_answers a "
                        "JOIN poll_questions q ON q.code = a.code AND q.qid = a.qid WHERE a.code = ? "
                        "ORDER BY q.asked_at, a.answered_at", (code,))
            rows = cur.fetchall()
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["question", "prompt", "choice", "right", "seconds_after_asked"])
        for qid, prompt, choice, answer, after in rows:
            writer.writerow([qid, prompt, choice, int(choice in json.loads(answer)), f"{max(after, 0):.1f}"])
        return out.getvalue()


class _Cursor:
    """A DB-API cursor that takes SQLite's '?' placeholders on either database."""

    def __init__(self, cur, postgres: bool):
        self._cur, self._pg = cur, postgres

    def execute(self, sql: str, params: tuple = ()) -> None:
        self._cur.execute(sql.replace("?", "%s") if self._pg else sql, params)

    @property
    def rowcount(self) -> int:
        return self._cur.rowcount

    def fetchone(self):
        row = self._cur.fetchone()
        return tuple(row) if row is not None else None

    def fetchall(self) -> list[tuple]:
        return [tuple(r) for r in self._cur.fetchall()]
