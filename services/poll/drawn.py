"""Draw your prediction (issue 51): a poll question answered by a row of weights, one per key, that sum to 1.

* freeze: what is kept when the presenter asks (the true row, its layer, head and row, the key labels, β),
  refused with a sentence for a row of fewer than 2 or more than MAX_KEYS keys;
* vector: a student's answer checked (a list, or its JSON, of `n` finite numbers in [0, 1] summing to 1
  within SUM_TOL), else PollError saying why; stored as its JSON in poll_answers.choice;
* summary: the class's drawn rows against the true one: the mean and the interquartile range per key, each
  answer's total-variation distance from the true row (TV = ½ Σ|p − q|, 0 to 1), the share within TV_WITHIN
  and the median TV. Pure: no database, no page;
* ask: the presenter's write, on the store's transaction (services/poll/store.py calls it)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from services.poll.codes import MAX_TEXT, PollError

MAX_KEYS = 16  # a drawn row has at most this many bars
SUM_TOL = 1e-6  # a drawn row sums to 1 within this
TV_WITHIN = 0.2  # "close": a drawn row within this total-variation distance of the true row
KIND = "draw"


def freeze(row, keys, *, layer: int, head: int, query: int, query_label: str, beta: float, columns) -> dict:
    """The drawn question's frozen truth: `row` the true weights over the keys the row sees (labels `keys`,
    map columns `columns`). PollError for a row of fewer than 2 or more than MAX_KEYS keys."""
    row = [float(x) for x in row]
    if len(row) != len(keys) or len(row) != len(columns):
        raise PollError("a drawn row needs one weight and one label per key")
    if len(row) < 2:
        raise PollError(f"Row {query} sees one key only: its weight 1 is forced, so there is nothing to draw.")
    if len(row) > MAX_KEYS:
        raise PollError(
            f"Row {query} sees {len(row)} keys: a drawn question has at most {MAX_KEYS} bars. "
            "Use a shorter sentence, or pick an earlier row under the causal mask."
        )
    return {
        "row": row,
        "keys": [str(k)[:MAX_TEXT] for k in keys],
        "columns": [int(c) for c in columns],
        "layer": int(layer),
        "head": int(head),
        "query": int(query),
        "query_label": str(query_label)[:MAX_TEXT],
        "beta": float(beta),
    }


def vector(raw, n: int) -> list[float]:
    """A drawn answer checked: PollError (a sentence) unless it is n finite weights in [0, 1] summing to 1."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise PollError("A drawn answer is a list of weights, one per key.") from None
    if not isinstance(raw, (list, tuple)):
        raise PollError("A drawn answer is a list of weights, one per key.")
    if len(raw) != n:
        raise PollError(f"A drawn answer has one weight per key: {n} expected, {len(raw)} given.")
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in raw):
        raise PollError("Every weight of a drawn answer must be a number.")
    values = [float(x) for x in raw]
    if not all(math.isfinite(x) for x in values):
        raise PollError("Every weight of a drawn answer must be a finite number.")
    if not all(0.0 <= x <= 1.0 for x in values):
        raise PollError("Every weight of a drawn answer must be between 0 and 1.")
    if abs(math.fsum(values) - 1.0) > SUM_TOL:
        raise PollError(f"The weights of a drawn answer must sum to 1 (these sum to {math.fsum(values):.6g}).")
    return values


def tv(p, q) -> float:
    """Total-variation distance between two rows of weights: ½ Σ|p − q| (0: the same; 1: no overlap)."""
    return 0.5 * float(np.abs(np.asarray(p, float) - np.asarray(q, float)).sum())


@dataclass(frozen=True)
class Summary:
    n: int  # answers summarised
    mean: list[float]  # per key
    q1: list[float]  # per key: the 25th percentile (numpy's linear interpolation)
    q3: list[float]  # per key: the 75th percentile
    tvs: list[float]  # each answer's TV from the true row, in the order given
    within: float  # share of answers with TV <= TV_WITHIN (0 to 1)
    median_tv: float


def summary(true_row, drawn: list) -> Summary | None:
    """The class's drawn rows against the true one; None when nobody answered."""
    if not drawn:
        return None
    a = np.asarray(drawn, float)
    q1, q3 = np.percentile(a, [25, 75], axis=0)
    tvs = [tv(d, true_row) for d in a]
    return Summary(
        n=len(a),
        mean=a.mean(axis=0).tolist(),
        q1=q1.tolist(),
        q3=q3.tolist(),
        tvs=tvs,
        within=sum(d <= TV_WITHIN + 1e-12 for d in tvs) / len(tvs),
        median_tv=float(np.median(tvs)),
    )


def from_counts(counts: dict[str, int]) -> list[list[float]]:
    """The drawn rows of a question from the store's counts ({vector JSON: students})."""
    return [json.loads(v) for v, n in sorted(counts.items()) for _ in range(n)]


def is_right(choice: str, answer: str, frozen: str | None) -> bool:
    """Any question's answer right (the export's `right`, the hall's): a choice among the question's right ones
    (`answer`, their JSON); a drawn row (the question's `frozen` truth set) within TV_WITHIN of the true row."""
    if frozen:
        return tv(json.loads(choice), json.loads(frozen)["row"]) <= TV_WITHIN + 1e-12
    return choice in json.loads(answer)


def ask(store, code: str, key: str, qid: str, prompt: str, frozen: dict, page: str, settings: dict) -> None:
    """Put a drawn question to the room (presenter only): asked afresh, its earlier answers go."""
    from services.poll.schema import answers, questions

    blob = json.dumps(frozen)
    row = dict(
        code=code,
        qid=qid,
        prompt=prompt[: MAX_TEXT * 2],
        options="[]",
        answer="[]",
        page=str(page)[:MAX_TEXT],
        settings=json.dumps({str(k): str(v) for k, v in (settings or {}).items()})[: MAX_TEXT * 20],
        kind=KIND,
        frozen=blob,
    )
    this = (questions.c.code == code) & (questions.c.qid == qid)
    with store._tx() as conn:
        store._room(conn, code, key)
        conn.execute(answers.delete().where((answers.c.code == code) & (answers.c.qid == qid)))
        conn.execute(questions.delete().where(this))
        conn.execute(questions.insert().values(**row, asked_at=store.clock()))
        store._bump(conn, code)
