"""The class poll's tables, as SQLAlchemy Core sees them, and the migrations that make them.

A migration is one schema version: the statements that take the database from the version before to
this one, plain SQL that SQLite and PostgreSQL both run. The Table objects below describe the result,
for the store's queries; a change to a table is a new migration and the matching change here.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

schema = sa.Table("poll_schema", metadata, sa.Column("version", sa.Integer, nullable=False))

rooms = sa.Table(
    "poll_rooms",
    metadata,
    sa.Column("code", sa.Text, primary_key=True),
    sa.Column("key_sha256", sa.Text, nullable=False),
    sa.Column("created_at", sa.Double, nullable=False),
    sa.Column("expires_at", sa.Double, nullable=False),
    sa.Column("closed", sa.Integer, nullable=False, server_default="0"),
    # version 3: the room's live view (services/poll/live.py)
    sa.Column("rev", sa.Integer, nullable=False, server_default="0"),  # every change: a question, a move, an edit
    sa.Column("moves", sa.Integer, nullable=False, server_default="0"),  # every move of the view followers are shown
    sa.Column("lesson", sa.Text),  # the room's lesson, as its TOML file
    sa.Column("lesson_step", sa.Integer),  # its step, from 1 (NULL: a view outside it)
    sa.Column("view", sa.Text),  # JSON: {"page": path, "params": {...}}
    sa.Column("changed_at", sa.Double),  # time of the last change
    # version 4 (issue 51): the presenter shows the answers' counts live (1) or only once revealed (0)
    sa.Column("live_counts", sa.Integer, nullable=False, server_default="0"),
    # version 5 (issue 51): eyes up (1: every following student sees the hold card) and the steps students may
    # move between on their own (both NULL: presenter-paced)
    sa.Column("hold", sa.Integer, nullable=False, server_default="0"),
    sa.Column("pace_from", sa.Integer),
    sa.Column("pace_to", sa.Integer),
)

questions = sa.Table(
    "poll_questions",
    metadata,
    sa.Column("code", sa.Text, primary_key=True),
    sa.Column("qid", sa.Text, primary_key=True),
    sa.Column("prompt", sa.Text, nullable=False),
    sa.Column("options", sa.Text, nullable=False),  # JSON: [[value, label], ...]
    sa.Column("answer", sa.Text, nullable=False),  # JSON: every right value (version 2 on)
    sa.Column("revealed", sa.Integer, nullable=False, server_default="0"),
    sa.Column("asked_at", sa.Double, nullable=False),
    # version 4: the page the question was asked on and its link's settings (JSON), for the export
    sa.Column("page", sa.Text),
    sa.Column("settings", sa.Text),
    # version 5 (issue 51): the countdown's end (NULL: none; answers after it are refused), the question's kind
    # ('choice', or 'draw': the answer is a row of weights) and, for a drawn question, what was frozen when it
    # was asked (JSON: the true row, its layer, head, row and key labels)
    sa.Column("closes_at", sa.Double),
    sa.Column("kind", sa.Text, nullable=False, server_default="choice"),
    sa.Column("frozen", sa.Text),
)

answers = sa.Table(
    "poll_answers",
    metadata,
    sa.Column("code", sa.Text, primary_key=True),
    sa.Column("qid", sa.Text, primary_key=True),
    sa.Column("seat", sa.Text, primary_key=True),
    sa.Column("choice", sa.Text, nullable=False),
    sa.Column("answered_at", sa.Double, nullable=False),
)

# Version 4 (issue 51): who is in the room now, one row per seat (services/poll/presence.py): the handle the
# room gives ("student 17"), the page and lesson step at the last beat, the furthest step reached, following
# or exploring, when first and last seen. Nothing else about a student; the rows go when the room closes.
presence = sa.Table(
    "poll_presence",
    metadata,
    sa.Column("code", sa.Text, primary_key=True),
    sa.Column("seat", sa.Text, primary_key=True),
    sa.Column("handle", sa.Integer, nullable=False),
    sa.Column("page", sa.Text),
    sa.Column("step", sa.Integer),
    sa.Column("furthest", sa.Integer),
    sa.Column("follows", sa.Integer, nullable=False, server_default="1"),
    sa.Column("first_at", sa.Double, nullable=False),
    sa.Column("seen_at", sa.Double, nullable=False),
    # version 6 (issue 51): how often what the hall view shows of this seat changed (its page, step, following
    # or not, its answers), so the presenter's refresh can tell from one count that the hall has not changed
    sa.Column("changes", sa.Integer, nullable=False, server_default="0"),
)

# Version 7 (issue 52): a room's class experiment (services/poll/experiment.py): what the presenter set (the task,
# the fixed settings and the one that varies, JSON), and one run per seat, numbered k from 1 in the order seats
# asked (k is the run's weight seed and batch seed), with where it is ('queued', 'running', 'done', 'failed',
# 'cancelled'), its tries, and once done its numbers and its curves (JSON). Deleted with the room.
experiments = sa.Table(
    "poll_experiments",
    metadata,
    sa.Column("code", sa.Text, primary_key=True),
    sa.Column("eid", sa.Integer, primary_key=True),  # the room's experiments from 1; the latest is the current one
    sa.Column("plan", sa.Text, nullable=False),  # JSON: task, steps, lr, layers, width, varies, values
    sa.Column("started_at", sa.Double, nullable=False),
    sa.Column("cancelled", sa.Integer, nullable=False, server_default="0"),
    sa.Column("next_k", sa.Integer, nullable=False, server_default="1"),
)

runs = sa.Table(
    "poll_runs",
    metadata,
    sa.Column("code", sa.Text, primary_key=True),
    sa.Column("eid", sa.Integer, primary_key=True),
    sa.Column("k", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Text, nullable=False),
    sa.Column("value", sa.Text, nullable=False, server_default=""),  # the varied setting's value ('' : none)
    sa.Column("state", sa.Text, nullable=False, server_default="queued"),
    sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
    sa.Column("queued_at", sa.Double, nullable=False),
    sa.Column("started_at", sa.Double),
    sa.Column("finished_at", sa.Double),
    sa.Column("final_loss", sa.Double),
    sa.Column("accuracy", sa.Double),
    sa.Column("formed", sa.Integer),  # the step its task's head formed (engine.histories.lock), NULL: never
    sa.Column("roles", sa.Text),  # JSON: the heads that locked on, with their shares
    sa.Column("curves", sa.Text),  # JSON: loss at every step, the saved steps and every head's share at each
    sa.Column("error", sa.Text),
)

ROOM_TABLES = (answers, presence, runs, experiments)  # what closing a room deletes at once (nothing of a student)

# Each entry is one schema version; the store applies those it has not applied yet, in one transaction.
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
    # Version 3: a room follows a lesson and shows every student one view (issue 35): the lesson's TOML, its
    # step, the view as JSON, and a counter every change moves, so a student's page checks one row for news.
    (
        "ALTER TABLE poll_rooms ADD COLUMN rev INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE poll_rooms ADD COLUMN moves INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE poll_rooms ADD COLUMN lesson TEXT",
        "ALTER TABLE poll_rooms ADD COLUMN lesson_step INTEGER",
        "ALTER TABLE poll_rooms ADD COLUMN view TEXT",
        "ALTER TABLE poll_rooms ADD COLUMN changed_at DOUBLE PRECISION",
    ),
    # Version 4 (issue 51): presence (a heartbeat row per seat, with the handle the room gives), the room's
    # switch for live counts, and the page and settings a question was asked at.
    (
        "CREATE TABLE poll_presence (code TEXT NOT NULL, seat TEXT NOT NULL, handle INTEGER NOT NULL, "
        "page TEXT, step INTEGER, furthest INTEGER, follows INTEGER NOT NULL DEFAULT 1, "
        "first_at DOUBLE PRECISION NOT NULL, seen_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (code, seat))",
        "CREATE UNIQUE INDEX poll_presence_handle ON poll_presence (code, handle)",
        "CREATE INDEX poll_presence_seen ON poll_presence (code, seen_at)",
        "ALTER TABLE poll_rooms ADD COLUMN live_counts INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE poll_questions ADD COLUMN page TEXT",
        "ALTER TABLE poll_questions ADD COLUMN settings TEXT",
    ),
    # Version 5 (issue 51): eyes up and student pacing on the room; a question's countdown, kind and frozen row.
    (
        "ALTER TABLE poll_rooms ADD COLUMN hold INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE poll_rooms ADD COLUMN pace_from INTEGER",
        "ALTER TABLE poll_rooms ADD COLUMN pace_to INTEGER",
        "ALTER TABLE poll_questions ADD COLUMN closes_at DOUBLE PRECISION",
        "ALTER TABLE poll_questions ADD COLUMN kind TEXT NOT NULL DEFAULT 'choice'",
        "ALTER TABLE poll_questions ADD COLUMN frozen TEXT",
    ),
    # Version 6 (issue 51): a counter per seat of the changes the hall view shows (services/poll/presence.py).
    ("ALTER TABLE poll_presence ADD COLUMN changes INTEGER NOT NULL DEFAULT 0",),
    # Version 7 (issue 52): the class experiment and its runs.
    (
        "CREATE TABLE poll_experiments (code TEXT NOT NULL, eid INTEGER NOT NULL, plan TEXT NOT NULL, "
        "started_at DOUBLE PRECISION NOT NULL, cancelled INTEGER NOT NULL DEFAULT 0, "
        "next_k INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (code, eid))",
        "CREATE TABLE poll_runs (code TEXT NOT NULL, eid INTEGER NOT NULL, k INTEGER NOT NULL, seat TEXT NOT NULL, "
        "value TEXT NOT NULL DEFAULT '', state TEXT NOT NULL DEFAULT 'queued', tries INTEGER NOT NULL DEFAULT 0, "
        "queued_at DOUBLE PRECISION NOT NULL, started_at DOUBLE PRECISION, finished_at DOUBLE PRECISION, "
        "final_loss DOUBLE PRECISION, accuracy DOUBLE PRECISION, formed INTEGER, roles TEXT, curves TEXT, "
        "error TEXT, PRIMARY KEY (code, eid, k))",
        "CREATE UNIQUE INDEX poll_runs_seat ON poll_runs (code, eid, seat)",
    ),
)
