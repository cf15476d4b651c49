"""The class poll's store, on SQLite always and on PostgreSQL (a server this module starts from Debian's
binaries; skipped without them unless REQUIRE_BROWSER=1, as in CI). Every rule is checked on both."""

from __future__ import annotations

import csv
import io
import sqlite3
import threading

import pytest
import sqlalchemy as sa

from services.poll import codes
from services.poll import store as ps
from tests import postgres
from tests.conftest import require

OPTIONS = [("a", "first"), ("b", "second"), ("c", "third")]


class Clock:
    """A clock the test moves by hand (rooms expire without waiting a day)."""

    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def pg_url():
    require(None if postgres.binaries() else "PostgreSQL is not installed (apt-get install -y postgresql)")
    with postgres.server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def make(request, tmp_path):
    """A factory of stores on one database (several stores = several replicas), fresh per test."""
    if request.param == "sqlite":
        target = tmp_path / "poll.sqlite3"
    else:
        import psycopg

        base = request.getfixturevalue("pg_url")
        name = f"t{abs(hash(request.node.nodeid)) % 10**9}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name}")
            conn.execute(f"CREATE DATABASE {name}")
        target = base.replace("postgresql:///postgres", f"postgresql:///{name}")
    made = []

    def factory(**kw):
        s = ps.Store(target, **kw)
        made.append(s)
        return s

    yield factory
    for s in made:
        s.close()


def asked(store: ps.Store, **kw) -> tuple[ps.Room, ps.Store]:
    room = store.create_room()
    store.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b", **kw)
    return room, store


# ------------------------------------------------------------------------------------ the schema
def test_schema_is_created_once_and_migrations_are_recorded(make):
    first = make()
    second = make()  # a second replica starting on the same database migrates nothing
    assert first.schema_version() == second.schema_version() == len(ps.MIGRATIONS)


def test_a_new_migration_is_applied_once(make, monkeypatch):
    old = make()
    room = old.create_room()
    monkeypatch.setattr(ps, "MIGRATIONS", ps.MIGRATIONS + (("CREATE TABLE poll_later (x INTEGER)",),))
    new, newer = make(), make()  # the second would fail if it created the table again
    assert new.schema_version() == newer.schema_version() == len(ps.MIGRATIONS)
    new.check(room.code, room.key)  # the data from before the migration is still there


def test_sqlite_file_is_in_wal_mode(tmp_path):
    s = ps.Store(tmp_path / "p.sqlite3")
    assert sqlite3.connect(tmp_path / "p.sqlite3").execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    s.close()


def test_database_url_selects_postgres_and_the_file_path_is_configurable(monkeypatch, tmp_path):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("ATTENTION_LAB_POLL_DB", str(tmp_path / "x" / "poll.db"))
    s = ps.Store()
    assert not s.postgres and s.target == str(tmp_path / "x" / "poll.db") and (tmp_path / "x" / "poll.db").exists()
    s.close()


# ------------------------------------------------------------------------------------ rooms and keys
def test_codes_avoid_characters_read_two_ways_and_forgive_case():
    assert not set("0O1IL") & set(ps.ALPHABET)
    assert codes.parse_code(" k7qf ") == "K7QF"


def test_a_new_room_has_a_short_code_and_a_128_bit_key(make):
    s = make()
    rooms = [s.create_room() for _ in range(20)]
    assert len({r.code for r in rooms}) == 20
    for r in rooms:
        assert codes.parse_code(r.code) == r.code
        assert len(r.key) >= 22 and r.key not in r.code  # token_urlsafe(16): 128 bits
        s.check(r.code, r.key)


@pytest.mark.parametrize("raw", ["", "K7Q", "K7QFF", "K0QF", "<b>", "K7 QF", "ö7QF", "1234"])
def test_malformed_codes_get_a_clear_message(raw):
    with pytest.raises(ps.PollError, match="not a room code"):
        codes.parse_code(raw)


def test_wrong_and_expired_codes_say_so(make):
    clock = Clock()
    s = make(clock=clock, ttl_s=3600)
    room = s.create_room()
    wrong = next(c for c in ("AAAA", "BBBB") if c != room.code)
    with pytest.raises(ps.NoRoom, match="no room"):
        s.questions(wrong)
    with pytest.raises(ps.NoRoom):
        s.answer(wrong, "seat-00001", "q1", "a")
    clock.now += 3601
    with pytest.raises(ps.NoRoom, match="expire"):
        s.questions(room.code)


def test_expired_rooms_and_their_answers_are_purged(make):
    clock = Clock()
    s = make(clock=clock, ttl_s=60)
    room, _ = asked(s)
    s.answer(room.code, "seat-00001", "q1", "a")
    clock.now += 61
    assert s.purge() == 1
    with s._tx(write=False) as conn:
        for table in ("poll_rooms", "poll_questions", "poll_answers"):
            assert conn.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar() == 0, table


# ------------------------------------------------------------------------------------ only the presenter
def test_only_the_presenter_key_reveals_resets_closes_and_downloads(make):
    room, s = asked(make())
    other = s.create_room()
    for bad in ("", "x" * 22, other.key, room.key[:-1] + ("A" if room.key[-1] != "A" else "B")):
        for act in (
            lambda k: s.reveal(room.code, k, "q1"),
            lambda k: s.reset(room.code, k, "q1"),
            lambda k: s.close_room(room.code, k),
            lambda k: s.csv(room.code, k),
            lambda k: s.ask(room.code, k, "q2", "?", OPTIONS, "a"),
        ):
            with pytest.raises(ps.NotPresenter):
                act(bad)
        assert not s.is_presenter(room.code, bad)
    assert not s.questions(room.code)[0].revealed  # nothing happened
    assert s.is_presenter(room.code, room.key)


def test_the_key_is_not_stored_in_clear(make):
    room, s = asked(make())
    with s._tx(write=False) as conn:
        stored = conn.execute(
            sa.text("SELECT key_sha256 FROM poll_rooms WHERE code = :code"), {"code": room.code}
        ).scalar()
    assert room.key not in stored and len(stored) == 64


# ------------------------------------------------------------------------------------ answers
def test_one_answer_per_seat_and_question_changeable_until_the_reveal(make):
    room, s = asked(make())
    s.answer(room.code, "seat-00001", "q1", "a")
    s.answer(room.code, "seat-00001", "q1", "a")  # a double click
    s.answer(room.code, "seat-00002", "q1", "a")
    assert s.counts(room.code) == {"q1": {"a": 2}}
    s.answer(room.code, "seat-00001", "q1", "b")  # changed their mind
    assert s.counts(room.code) == {"q1": {"a": 1, "b": 1}}
    assert s.my_answers(room.code, "seat-00001") == {"q1": "b"}
    s.reveal(room.code, room.key, "q1")
    with pytest.raises(ps.PollError, match="revealed"):
        s.answer(room.code, "seat-00001", "q1", "c")
    assert s.questions(room.code)[0].revealed and s.counts(room.code) == {"q1": {"a": 1, "b": 1}}


def test_answers_from_two_replicas_count_once(make):
    room, one = asked(make())
    two = make()  # another process on the same database
    one.answer(room.code, "seat-00001", "q1", "a")
    two.answer(room.code, "seat-00001", "q1", "c")  # the same student after a failover
    two.answer(room.code, "seat-00002", "q1", "c")
    assert one.counts(room.code) == two.counts(room.code) == {"q1": {"c": 2}}


def test_choices_only_never_free_text(make):
    room, s = asked(make())
    for bad in ("d", "first", "<script>alert(1)</script>", ""):
        with pytest.raises(ps.PollError, match="not one of"):
            s.answer(room.code, "seat-00001", "q1", bad)
    with pytest.raises(ps.PollError, match="not open"):
        s.answer(room.code, "seat-00001", "nope", "a")
    assert s.counts(room.code) == {}


def test_reset_clears_one_question_and_hides_its_answer(make):
    room, s = asked(make())
    s.ask(room.code, room.key, "q2", "Other?", OPTIONS, "a")
    for seat in ("seat-00001", "seat-00002"):
        s.answer(room.code, seat, "q1", "a")
        s.answer(room.code, seat, "q2", "b")
    s.reveal(room.code, room.key, "q1")
    s.reset(room.code, room.key, "q1")
    assert s.counts(room.code) == {"q2": {"b": 2}}
    assert not next(q for q in s.questions(room.code) if q.qid == "q1").revealed
    s.answer(room.code, "seat-00001", "q1", "c")  # open again


def test_asking_again_keeps_answers_unless_the_question_changed(make):
    room, s = asked(make())
    s.answer(room.code, "seat-00001", "q1", "a")
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "b")  # the presenter's page reran
    assert s.counts(room.code) == {"q1": {"a": 1}}
    s.ask(room.code, room.key, "q1", "Which one?", OPTIONS, "c")  # other settings, another right answer
    assert s.counts(room.code) == {}
    with pytest.raises(ps.PollError, match="options"):
        s.ask(room.code, room.key, "q1", "?", OPTIONS, "zzz")


def test_a_closed_room_takes_no_answers_and_keeps_none(make):
    room, s = asked(make())
    s.answer(room.code, "seat-00001", "q1", "b")
    s.close_room(room.code, room.key)
    with pytest.raises(ps.NoRoom, match="closed"):
        s.answer(room.code, "seat-00002", "q1", "a")
    with pytest.raises(ps.NoRoom, match="closed"):
        s.questions(room.code)
    assert list(csv.reader(io.StringIO(s.csv(room.code, room.key))))[1:] == []  # deleted when it closed


def test_csv_is_anonymous(make):
    room, s = asked(make())
    s.answer(room.code, "seat-secret1", "q1", "b")
    s.answer(room.code, "seat-secret2", "q1", "a")
    text = s.csv(room.code, room.key)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["question"], r["choice"], r["right"]) for r in rows] == [("q1", "b", "1"), ("q1", "a", "0")]
    assert "seat-secret" not in text and room.key not in text and room.code not in text


def test_concurrent_answers_are_all_counted(make):
    """40 threads (a hall's burst) on 4 stores (replicas) sharing one database: nothing lost."""
    room, first = asked(make())
    stores = [first] + [make() for _ in range(3)]
    errors = []

    def student(i):
        try:
            for choice in ("a", "b", OPTIONS[i % 3][0]):
                stores[i % 4].answer(room.code, f"seat-{i:05d}", "q1", choice)
        except Exception as err:  # noqa: BLE001 - the test counts them
            errors.append(err)

    threads = [threading.Thread(target=student, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    counts = first.counts(room.code)["q1"]
    assert sum(counts.values()) == 40
    assert counts == {"a": 14, "b": 13, "c": 13}


def test_an_unusable_database_is_a_message_not_a_traceback(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ps.PollError, match="not available|did not answer"):
        ps.Store(blocker / "poll.sqlite3")
    with pytest.raises(ps.PollError, match="not available|did not answer"):
        ps.Store("postgresql:///nothing?host=/nonexistent&port=1")
