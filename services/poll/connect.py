"""The poll store's database engine: SQLAlchemy's pool on PostgreSQL (psycopg 3) or on one SQLite file in WAL
mode, whose every write transaction takes the write lock at once (services/poll/store.py)."""

from __future__ import annotations

import os

import sqlalchemy as sa


def default_target() -> str:
    """The rooms' database when none is given: DATABASE_URL (PostgreSQL), else ATTENTION_LAB_POLL_DB (a SQLite
    file), else the project's .poll/poll.sqlite3 (the server and the class experiment's workers alike)."""
    from services.poll.codes import DEFAULT_DB

    return os.environ.get("DATABASE_URL") or os.environ.get("ATTENTION_LAB_POLL_DB") or str(DEFAULT_DB)


def _url(target: str) -> sa.URL | str:
    """SQLAlchemy's URL for a postgresql:// address (psycopg 3 is the driver) or a SQLite file path."""
    if target.startswith(("postgres://", "postgresql://")):
        return "postgresql+psycopg://" + target.split("://", 1)[1]
    return sa.URL.create("sqlite", database=target)


def open_engine(target: str, postgres: bool) -> sa.Engine:
    """A pooled engine on the target: a postgresql:// URL, else a SQLite file path (its connections set up by
    the two hooks below)."""
    options = {} if postgres else {"connect_args": {"timeout": 30, "check_same_thread": False}}
    engine = sa.create_engine(_url(target), pool_size=8, max_overflow=8, pool_pre_ping=postgres, **options)
    if not postgres:
        sa.event.listen(engine, "connect", _sqlite_connect)
        sa.event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connect(dbapi_connection, record) -> None:
    """Each new SQLite connection: the transactions are ours (BEGIN below), WAL so readers never wait for a
    writer and replicas share the file, WAL's durable-enough sync, and a writer waits for the lock."""
    dbapi_connection.isolation_level = None
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=30000"):
        dbapi_connection.execute(f"PRAGMA {pragma}")


def _sqlite_begin(conn) -> None:
    """A write transaction takes SQLite's write lock at once (BEGIN IMMEDIATE), so two writers queue."""
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("poll_write", True) else "BEGIN")
