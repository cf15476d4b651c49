"""The presenter's export of a room (issue 51), three CSV files a spreadsheet opens (UTF-8, a header row;
for_download adds the byte-order mark spreadsheets look for):

* answers_csv: one row per answer: question, prompt, the page and settings it was asked at, the student's
  anonymous handle ("student 17"), choice, right (1/0), seconds after asking; a drawn question's choice is
  the student's row as one JSON cell ('[0.2, 0.8]', one weight per key in the order of the question's keys)
  and right is 1 within total-variation distance 0.2 of the true row (services/poll/drawn.py);
* summary_csv: one row per question: how many answered, how many right, the median seconds;
* progress_csv: one row per student the room has seen: the furthest lesson step reached, the step and page
  at the last beat, following or exploring (from presence).

No seat id, no key and nothing typed by a student is in any of them. Presenter only (NotPresenter)."""

from __future__ import annotations

import csv
import io
import json
import statistics
from urllib.parse import urlencode

import sqlalchemy as sa

from services.poll import drawn, seats
from services.poll.schema import answers, presence, questions

ANSWERS = ["question", "prompt", "page", "settings", "student", "choice", "right", "seconds_after_asked"]
SUMMARY = ["question", "prompt", "page", "settings", "answered", "right", "median_seconds"]
PROGRESS = ["student", "furthest_step", "last_step", "last_page", "follows"]


def _text(header: list[str], rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def for_download(text: str) -> bytes:
    """A CSV's bytes for a spreadsheet: UTF-8 with its byte-order mark (Excel reads √ and β right)."""
    return text.encode("utf-8-sig")


def _settings(raw: str | None) -> str:
    """A question's settings as a link's query ('beta=2&row=3'), or '' where none were stored."""
    return urlencode(json.loads(raw)) if raw else ""


def _read(store, code: str, key: str, statement) -> list:
    """The rows of statement, read once the presenter's key opened the room (closed or not)."""
    with store._tx(write=False) as conn:
        store._room(conn, code, key, open_only=False)
        return conn.execute(statement).all()


def _answers(store, code: str, key: str) -> list:
    q, a, p = questions.c, answers.c, presence.c
    return _read(
        store,
        code,
        key,
        sa.select(
            q.qid, q.prompt, q.page, q.settings, p.handle, a.choice, q.answer, a.answered_at - q.asked_at, q.frozen
        )
        .select_from(
            answers.join(questions, (q.code == a.code) & (q.qid == a.qid)).outerjoin(
                presence, (p.code == a.code) & (p.seat == a.seat)
            )
        )
        .where(a.code == code)
        .order_by(q.asked_at, a.answered_at),
    )


def answers_csv(store, code: str, key: str) -> str:
    rows = []
    for qid, prompt, page, settings, handle, choice, answer, after, frozen in _answers(store, code, key):
        student = "" if handle is None else seats.name(handle)
        right = int(drawn.is_right(choice, answer, frozen))
        rows.append([qid, prompt, page or "", _settings(settings), student, choice, right, f"{max(after, 0):.1f}"])
    return _text(ANSWERS, rows)


def summary_csv(store, code: str, key: str) -> str:
    """One row per question asked (answered or not), in the order asked."""
    q = questions.c
    asked = _read(
        store, code, key, sa.select(q.qid, q.prompt, q.page, q.settings).where(q.code == code).order_by(q.asked_at)
    )
    given: dict[str, list] = {}
    for qid, _, _, _, _, choice, answer, after, frozen in _answers(store, code, key):
        given.setdefault(qid, []).append((drawn.is_right(choice, answer, frozen), max(after, 0)))
    rows = []
    for qid, prompt, page, settings in asked:
        mine = given.get(qid, [])
        median = f"{statistics.median(s for _, s in mine):.1f}" if mine else ""
        rows.append([qid, prompt, page or "", _settings(settings), len(mine), sum(r for r, _ in mine), median])
    return _text(SUMMARY, rows)


def progress_csv(store, code: str, key: str) -> str:
    """Every student the room has seen (present now or not), by handle."""
    p = presence.c
    found = _read(
        store,
        code,
        key,
        sa.select(p.handle, p.furthest, p.step, p.page, p.follows).where(p.code == code).order_by(p.handle),
    )
    rows = [
        [seats.name(h), "" if far is None else far, "" if step is None else step, page or "", "yes" if f else "no"]
        for h, far, step, page, f in found
    ]
    return _text(PROGRESS, rows)
