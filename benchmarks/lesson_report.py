"""The lesson hall's figures (benchmarks.lesson): the hall view's right counts after each step, the answers
sent against those stored, the hall view's cost against one student's, and the verdict on a report."""

from __future__ import annotations

import json
import statistics
from urllib.parse import parse_qs

from benchmarks import load_report

TARGET_S = {1: 5.0, 2: 3.0}  # step p95 on one process, on 2 replicas or more
IDLE_CORES = 0.5  # the checks of 100 students while nobody moves
HALL_S = 3.0  # the issue: the hall view's counts right within 3 s after every step (p95)


def pct(values, q) -> float:
    return round(load_report.pct(values, q), 3) if values else 0.0


def spread(values) -> dict:
    return {"p50": pct(values, 50), "p95": pct(values, 95), "max": round(max(values, default=0), 3)}


def right(seen, step: int, expected: int) -> bool:
    """A hall the presenter saw says every one of `expected` students is in the room, follows, and is on
    `step`."""
    return (
        seen.count == expected
        and len(seen.seats) == expected
        and all(at == step and follows for at, follows in seen.seats.values())
    )


def hall_right_s(halls, clicks: dict[int, float], expected: int) -> dict[int, float | None]:
    """Per step: s from its Next to the end of the first run of the presenter's hall view (begun after the
    Next) that was right; None when none was before the next Next."""
    out, marks = {}, sorted(clicks.items())
    for i, (step, clicked) in enumerate(marks):
        until = marks[i + 1][1] if i + 1 < len(marks) else float("inf")
        out[step] = next(
            (round(h.at - clicked, 3) for h in halls if clicked <= h.at < until and right(h, step, expected)),
            None,
        )
    return out


def seat_right_s(halls, clicks: dict[int, float], handles) -> list[float]:
    """Per (student, step): s from the Next to the first hall that showed that student on that step."""
    out, marks = [], sorted(clicks.items())
    for i, (step, clicked) in enumerate(marks):
        until = marks[i + 1][1] if i + 1 < len(marks) else float("inf")
        shown = [h for h in halls if clicked <= h.at < until]
        for handle in handles:
            first = next((h.at for h in shown if h.seats.get(handle, (None,))[0] == step), None)
            if first is not None:
                out.append(first - clicked)
    return out


def after_kill(halls, killed_at: float, step: int, expected: int, until: float) -> dict:
    """The hall between r1's death and the next Next: its lowest count, and s until it was right again."""
    shown = [h for h in halls if killed_at <= h.at < until]
    again = next((h.at - killed_at for h in shown if right(h, step, expected)), None)
    return {
        "halls_drawn": len(shown),
        "lowest_count": min((h.count for h in shown), default=None),
        "right_again_s": None if again is None else round(again, 3),
    }


def seat_of(query: str) -> str | None:
    return parse_qs(query).get("seat", [None])[0]


def answers_kept(stored: list[tuple[str, str, str]], options: dict[str, list], sent: dict) -> dict:
    """The answers whose run finished (sent: seat -> {qid: option index}) against the store's rows (seat,
    qid, choice; options: qid -> [[value, label], ...]): each must be there with the option sent last."""
    held = {(seat, qid): choice for seat, qid, choice in stored}
    lost = [
        (seat, qid, held.get((seat, qid)), options[qid][index][0])
        for seat, given in sent.items()
        for qid, index in given.items()
        if held.get((seat, qid)) != options[qid][index][0]
    ]
    confirmed = sum(len(given) for given in sent.values())
    return {"sent": confirmed, "stored": len(held), "lost": len(lost), "lost_samples": lost[:5]}


def read_answers(store, code: str) -> tuple[list, dict]:
    """The room's answer rows and its questions' options, straight from the store."""
    import sqlalchemy as sa

    from services.poll.schema import answers, questions

    with store._tx(write=False) as conn:
        rows = conn.execute(sa.select(answers.c.seat, answers.c.qid, answers.c.choice).where(answers.c.code == code))
        stored = [tuple(r) for r in rows]
        asked = conn.execute(sa.select(questions.c.qid, questions.c.options).where(questions.c.code == code))
        options = {qid: json.loads(text) for qid, text in asked}
    return stored, options


def handles(store, code: str) -> dict[str, int]:
    """seat -> the handle the room gave it."""
    import sqlalchemy as sa

    from services.poll.schema import presence

    with store._tx(write=False) as conn:
        rows = conn.execute(sa.select(presence.c.seat, presence.c.handle).where(presence.c.code == code))
        return {seat: int(handle) for seat, handle in rows}


def hall_cost(metered, timers: dict[str, float], windows: tuple[float, float], one_student: float) -> dict:
    """What the open hall view costs the presenter's server, in ms a second, two ways: each timer fragment's runs
    with the box open against shut (medians; the hall drawn or not: an unchanged hall is not sent again), times
    its runs a second (its timer), summed over the fragments; and the server's CPU a second with the box open
    against shut. metered: (fragment id, box open, drew the hall, CPU s) of every timer run in the two windows;
    timers: fragment id -> s; windows: CPU s a second open, shut; one_student: cores."""
    per_s, of_run, runs = 0.0, {}, {}
    for f in sorted({f for f, *_ in metered}):
        on = [c for g, is_open, _, c in metered if g == f and is_open]
        off = [c for g, is_open, _, c in metered if g == f and not is_open]
        if on and off and f in timers:
            of_run[f] = statistics.median(on) - statistics.median(off)
            per_s += of_run[f] / timers[f]
            runs[f] = {"open": spread([1000 * c for c in on]), "shut": spread([1000 * c for c in off])}
    drew = [d for _, is_open, d, _ in metered if is_open]
    return {
        "open_ms_per_s": round(1000 * per_s, 3) if of_run else None,
        "of_a_run_ms": {f: round(1000 * v, 3) for f, v in of_run.items()},
        "runs_ms": runs,
        "open_runs_that_drew_it": f"{sum(drew)} of {len(drew)}",
        "open_minus_shut_ms_per_s": round(1000 * (windows[0] - windows[1]), 3),
        "presenter_server_ms_per_s_open": round(1000 * windows[0], 3),
        "presenter_server_ms_per_s_shut": round(1000 * windows[1], 3),
        "one_student_ms_per_s": round(1000 * one_student, 3),
    }


def hall_figures(presenter, students, clicks: dict, store, code: str, windows, one_student: float) -> dict:
    """The hall view's figures: right after each step, per student and step, and its cost."""
    expected = sum(not s.result.errors for s in students)
    by_seat = handles(store, code)
    right_after = hall_right_s(presenter.halls, clicks, expected)
    shown = [by_seat[seat] for s in students if (seat := seat_of(s.query)) in by_seat]
    seats = seat_right_s(presenter.halls, clicks, shown)
    return {
        "expected": expected,
        "per_step_s": right_after,
        "right_s": spread([v for v in right_after.values() if v is not None]),
        "never_right": [n for n, v in right_after.items() if v is None],
        "seat_step_s": spread(seats) | {"count": len(seats)},
        "halls_drawn": len(presenter.halls),
        "cost": hall_cost(presenter.metered, presenter.timers, windows, one_student),
    }


def answers_of(store, code: str, students) -> dict:
    stored, options = read_answers(store, code)
    sent = {seat_of(s.query): s.confirmed for s in students}
    kept = answers_kept(stored, options, sent)
    lost = {x[0] for x in kept["lost_samples"]}
    kept["lost_tabs_queries"] = [sorted(s.seats) for s in students if seat_of(s.query) in lost][:3]
    return kept | {"cut_and_sent_again": sum(s.cut for s in students)}


def still_here(store, code: str, seats: list[str]) -> None:
    """The students' rows kept in the hall after they left (a beat each, written from here): the hall view
    then reads as many rows as during the lesson."""
    from services.poll import presence

    for seat in seats:
        presence.beat(store, code, seat, "", None, True)


def verdict(report: dict) -> list[str]:
    problems = []
    if report["errors"]:
        problems.append(f"{report['errors']} errors: {report['error_samples']}")
    if report["lesson"]:
        if report["missed_steps"]:
            problems.append(f"{report['missed_steps']} (student, step) pairs never drawn: {report['missed_samples']}")
        target = TARGET_S[min(2, report["replicas"] or 1)]
        if report["step_s"]["p95"] > target:
            problems.append(f"step p95 {report['step_s']['p95']} s > {target} s")
        big = report["students"] >= 50  # a small hall is a smoke test: no verdict on costs
        per_100 = report["idle"]["cores"] * 100 / report["students"]
        if not report["sliders"] and big and per_100 > IDLE_CORES:
            problems.append(f"idle checks cost {report['idle']['cores']} cores for {report['students']} students")
        hall = report.get("hall")
        if hall is not None:
            if hall["never_right"]:
                problems.append(f"the hall view was never right after steps {hall['never_right']}")
            if hall["right_s"]["p95"] > HALL_S:
                problems.append(f"the hall view right after a step: p95 {hall['right_s']['p95']} s > {HALL_S} s")
            cost = hall.get("cost")
            if big and not report["sliders"] and (cost["open_ms_per_s"] or 0) > cost["one_student_ms_per_s"]:
                problems.append(
                    f"the open hall view costs {cost['open_ms_per_s']} ms/s, one student "
                    f"{cost['one_student_ms_per_s']} ms/s"
                )
        answers = report.get("answers")
        if answers is not None and answers["lost"]:
            problems.append(f"{answers['lost']} answers lost: {answers['lost_samples']}")
    return problems
