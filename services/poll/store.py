"""The class poll's store: rooms, the questions asked in them, and one answer per student and question,
on SQLAlchemy Core (its engine and connection pool; the SQLite and PostgreSQL dialects).

SQLite by default (one file in WAL mode, so every replica on the machine shares it and a restart keeps
it); PostgreSQL when DATABASE_URL is set (the app on several machines). Every count is read from the
store, never kept in memory, and every write is one transaction (on SQLite a BEGIN IMMEDIATE, so two
writers queue instead of failing half way). The app imports this module only when a room is opened.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import secrets
import threading
import time
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from services.poll import drawn, seats
from services.poll.codes import (
    ALPHABET,
    CODE_LEN,
    KEY_BYTES,
    MAX_OPTIONS,
    MAX_TEXT,
    TTL_S,
    NoRoom,
    NotPresenter,
    PollError,
    Room,
    StoreDown,
    closed_words,
    digest,
    right_answers,
)
from services.poll.connect import default_target, open_engine
from services.poll.reads import BUMP, COUNTS, MINE, QUESTIONS, ROOM, TOUCH, question
from services.poll.schema import MIGRATIONS, ROOM_TABLES, answers, questions, rooms

LOCK_ID = 2727  # PostgreSQL's advisory lock: one process migrates at a time
SWEEP_EVERY_S = 60.0  # expired rooms are deleted on a store's use, and by services/poll/sweeper.py, this often


class Store:
    """The poll's tables in SQLite (a file path) or PostgreSQL (a postgresql:// URL)."""

    def __init__(self, target: str | Path | None = None, ttl_s: float = TTL_S, clock=time.time):
        target = target or default_target()
        self.target = str(target)
        self.postgres = self.target.startswith(("postgres://", "postgresql://"))
        self.ttl_s, self.clock = ttl_s, clock
        self._insert = postgresql.insert if self.postgres else sqlite.insert
        if not self.postgres:
            try:
                Path(self.target).parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreDown(f"The poll's database is not available ({err.strerror}); try again.") from err
        self.engine = open_engine(self.target, self.postgres)
        self._swept: float | None = None  # when this store last deleted expired rooms (None: not yet migrated)
        self._beats: dict[tuple[str, str], tuple] = {}  # (room, seat) -> (last beat written, handle, its place)
        self.closed = threading.Event()  # set by close(): a background sweeper ends
        self.migrate()
        self._swept = float("-inf")

    # -- transactions
    @contextlib.contextmanager
    def _tx(self, write: bool = True):
        """One transaction on a pooled connection; a refused request (PollError) rolls it back and goes on,
        a database that does not answer becomes StoreDown. Any use may first delete expired rooms."""
        self._sweep()
        try:
            with self.engine.connect() as conn:
                conn.execution_options(poll_write=write)
                with conn.begin():
                    yield conn
        except PollError:
            raise
        except sa.exc.DBAPIError as err:
            raise StoreDown(f"The poll's database did not answer ({type(err.orig).__name__}); try again.") from err

    def _sweep(self) -> None:
        """Delete expired rooms at most once a SWEEP_EVERY_S per store, on whatever use comes: a room nobody
        closed goes when it expires, whether or not anyone opens a room afterwards."""
        now = self.clock()
        if self._swept is None or now - self._swept < SWEEP_EVERY_S:
            return
        self._swept = now  # first: purge's own transaction does not sweep again
        with contextlib.suppress(PollError):  # the use itself says if the database is down
            self.purge()

    def close(self) -> None:
        self.closed.set()
        self.engine.dispose()

    def migrate(self) -> int:
        """Create or bring the schema up to date (safe with several processes starting at once)."""
        with self._tx() as conn:
            if self.postgres:
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({LOCK_ID})")
            conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS poll_schema (version INTEGER NOT NULL)")
            version = conn.exec_driver_sql("SELECT version FROM poll_schema").scalar()
            if version is None:
                conn.exec_driver_sql("INSERT INTO poll_schema (version) VALUES (0)")
                version = 0
            for number, statements in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in statements:
                    conn.exec_driver_sql(statement)
                conn.execute(sa.text("UPDATE poll_schema SET version = :v"), {"v": number})
        return len(MIGRATIONS)

    def schema_version(self) -> int:
        with self._tx(write=False) as conn:
            return conn.exec_driver_sql("SELECT version FROM poll_schema").scalar_one()

    # -- rooms
    def create_room(self) -> Room:
        """A new room with a random code (not in use) and its presenter key."""
        key = secrets.token_urlsafe(KEY_BYTES)
        now = self.clock()
        self.purge()
        for _ in range(50):
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))
            with self._tx() as conn:
                made = conn.execute(
                    self._insert(rooms)
                    .values(code=code, key_sha256=digest(key), created_at=now, expires_at=now + self.ttl_s)
                    .on_conflict_do_nothing()
                    .returning(rooms.c.code)
                ).first()
                if made is not None:  # a code nobody holds (psycopg gives no rowcount here)
                    return Room(code, key)
        raise PollError("no free room code was found; try again")

    def _room(self, conn, code: str, key: str | None = None, open_only: bool = True) -> None:
        """Raises NoRoom for a wrong, expired (or, if open_only, closed) code; NotPresenter for a wrong key."""
        row = conn.execute(ROOM, {"code": code}).first()
        if row is None or row.expires_at <= self.clock():
            raise NoRoom.gone(code, self.ttl_s)
        if key is not None and not hmac.compare_digest(row.key_sha256, digest(key)):
            raise NotPresenter(f"Only the presenter of room {code} can do that.")
        if open_only and row.closed:
            raise NoRoom.closed(code)

    def check(self, code: str, key: str | None = None) -> None:
        """NoRoom / NotPresenter unless the room is open (and the key is its presenter's)."""
        with self._tx(write=False) as conn:
            self._room(conn, code, key)

    def is_presenter(self, code: str, key: str) -> bool:
        try:
            self.check(code, key)
        except PollError:
            return False
        return True

    def close_room(self, code: str, key: str) -> None:
        """The room closes and its answers, presence and class experiment are deleted in the same transaction (the
        presenter's panel offers the export first); the questions stay until the room expires (nothing of a
        student)."""
        with self._tx() as conn:
            self._room(conn, code, key)
            for table in ROOM_TABLES:
                conn.execute(table.delete().where(table.c.code == code))
            conn.execute(rooms.update().where(rooms.c.code == code).values(closed=1))
            self._bump(conn, code)

    def purge(self) -> int:
        """Delete expired rooms with everything of theirs (schema.ROOM_TABLES and the questions); how many went."""
        expired = sa.select(rooms.c.code).where(rooms.c.expires_at <= self.clock())
        self._swept = None if self._swept is None else self.clock()  # a sweep too
        with self._tx() as conn:
            for table in (*ROOM_TABLES, questions):
                conn.execute(table.delete().where(table.c.code.in_(expired)))
            return len(
                conn.execute(rooms.delete().where(rooms.c.expires_at <= self.clock()).returning(rooms.c.code)).all()
            )

    # -- questions (the presenter's)
    def ask(self, code: str, key: str, qid: str, prompt: str, options: list[tuple[str, str]], answers_, **at) -> None:
        """Put a question to the room with its right answer(s), a value or a list of values (the same
        question asked with other options or other answers starts afresh: its answers would not fit);
        at: page= (else the qid's page) and settings= (the link's, a dict) it was asked at, for the export."""
        page = str(at.get("page") or qid.partition("@")[0])[:MAX_TEXT]
        settings = json.dumps({str(k): str(v) for k, v in (at.get("settings") or {}).items()})[: MAX_TEXT * 20]
        options = [(str(v)[:MAX_TEXT], str(label)[:MAX_TEXT]) for v, label in options]
        if not 2 <= len(options) <= MAX_OPTIONS:
            raise PollError("a question needs 2 to 16 options, every right answer among them")
        blob, answer = json.dumps(options), json.dumps(right_answers(options, answers_))
        prompt = prompt[: MAX_TEXT * 2]
        this = (questions.c.code == code) & (questions.c.qid == qid)
        with self._tx() as conn:
            self._room(conn, code, key)
            old = conn.execute(
                sa.select(questions.c.prompt, questions.c.options, questions.c.answer).where(this)
            ).first()
            if old is not None and tuple(old) == (prompt, blob, answer):
                return  # asked already, exactly so: keep its answers
            conn.execute(answers.delete().where((answers.c.code == code) & (answers.c.qid == qid)))
            conn.execute(questions.delete().where(this))
            row = dict(code=code, qid=qid, prompt=prompt, options=blob, answer=answer, page=page, settings=settings)
            conn.execute(questions.insert().values(**row, asked_at=self.clock()))
            self._bump(conn, code)

    def _bump(self, conn, code: str) -> None:
        conn.execute(BUMP, {"room": code, "now": self.clock()})

    def _owned(self, conn, code: str, key: str, qid: str) -> None:
        self._room(conn, code, key, open_only=False)
        if (
            conn.execute(
                sa.select(questions.c.qid).where((questions.c.code == code) & (questions.c.qid == qid))
            ).first()
            is None
        ):
            raise PollError(f"Question {qid!r} has not been asked in room {code}.")

    def reveal(self, code: str, key: str, qid: str) -> None:
        with self._tx() as conn:
            self._owned(conn, code, key, qid)
            conn.execute(
                questions.update().where((questions.c.code == code) & (questions.c.qid == qid)).values(revealed=1)
            )
            self._bump(conn, code)

    def reset(self, code: str, key: str, qid: str) -> None:
        """Every answer to the question gone, and the answer hidden again."""
        with self._tx() as conn:
            self._owned(conn, code, key, qid)
            conn.execute(answers.delete().where((answers.c.code == code) & (answers.c.qid == qid)))
            # asked afresh: the time moves on, so students' pages draw a new, empty choice
            conn.execute(
                questions.update()
                .where((questions.c.code == code) & (questions.c.qid == qid))
                .values(revealed=0, asked_at=self.clock(), closes_at=None)  # a countdown is set afresh
            )
            self._bump(conn, code)

    def questions(self, code: str) -> list:
        """The open room's questions, the latest asked first (NoRoom if wrong, expired or closed)."""
        with self._tx(write=False) as conn:
            self._room(conn, code)
            rows = conn.execute(QUESTIONS, {"code": code}).all()
        return [question(r) for r in rows]

    # -- answers (the students')
    def answer(self, code: str, seat: str, qid: str, choice, asked_at: float | None = None) -> None:
        """Record (or change) a student's answer: one row per seat and question, until the reveal; the seat
        gets its handle in the room if it has none yet (PollError for a seat id no link gives). asked_at: when
        the question the student saw was asked; an answer to it after a reset (asked afresh) is refused."""
        seat, q = seats.checked(seat), questions.c
        with self._tx() as conn:
            self._room(conn, code)
            row = conn.execute(
                sa.select(q.options, q.revealed, q.asked_at, q.closes_at, q.kind, q.frozen).where(
                    (q.code == code) & (q.qid == qid)
                )
            ).first()
            if row is None:
                raise PollError("That question is not open in this room.")
            if row.revealed:
                raise PollError("The answer has been revealed: answers can no longer change.")
            if row.closes_at is not None and self.clock() > row.closes_at:  # the countdown (services/poll/pace.py)
                raise PollError(closed_words(row.closes_at))
            if asked_at is not None and abs(asked_at - row.asked_at) > 1e-3:
                raise PollError("The presenter reset this question: choose your answer again.")
            if row.kind == drawn.KIND:  # a drawn row: checked, kept as its JSON (services/poll/drawn.py)
                choice = json.dumps(drawn.vector(choice, len(json.loads(row.frozen)["row"])))
            elif not isinstance(choice, str) or choice not in {value for value, _ in json.loads(row.options)}:
                raise PollError("That is not one of the question's options.")
            seats.handle(conn, code, seat, self.clock())
            given = self._insert(answers).values(code=code, seat=seat, qid=qid, choice=choice, answered_at=self.clock())
            conn.execute(
                given.on_conflict_do_update(
                    index_elements=[answers.c.code, answers.c.qid, answers.c.seat],
                    set_={"choice": given.excluded.choice, "answered_at": given.excluded.answered_at},
                )
            )
            conn.execute(TOUCH, {"room": code, "at": seat})  # the hall view shows it (presence.glance)

    def my_answers(self, code: str, seat: str) -> dict[str, str]:
        with self._tx(write=False) as conn:
            return dict(conn.execute(MINE, {"code": code, "seat": seat}).all())

    def counts(self, code: str) -> dict[str, dict[str, int]]:
        """{question: {choice: students}} counted in the store."""
        out: dict[str, dict[str, int]] = {}
        with self._tx(write=False) as conn:
            for qid, choice, n in conn.execute(COUNTS, {"code": code}):
                out.setdefault(qid, {})[choice] = int(n)
        return out

    def csv(self, code: str, key: str) -> str:
        """Every answer of the room (services/poll/export.py): no seat ids, the room's handles."""
        from services.poll import export

        return export.answers_csv(self, code, key)
