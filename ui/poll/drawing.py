"""Draw your prediction, the student's side (issue 51): one Components v2 component (draw.js, draw.css) with one
bar per key, each a slider (mouse, touch, arrow keys, PageUp/PageDown, Home/End) and the bars summing to 1, and a
Submit button that sends the row once (a trigger: one run). The store checks it (services/poll/drawn.py) and a
refusal is said on the page. Key labels are the sidebar's tokens: draw.js writes them with textContent only."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import streamlit as st

from services.poll import drawn
from services.poll.codes import PollError, Question
from ui.poll import countdown, participant, room
from ui.poll.db import store
from ui.prose.numbers import fmt
from ui.prose.text import md_escape

NAME = "attention_lab_draw_row"  # unique in the app
_HERE = Path(__file__).resolve().parent
_component = st.components.v2.component(
    NAME,
    html='<div class="drow"></div>',
    css=(_HERE / "draw.css").read_text(encoding="utf-8"),
    js=(_HERE / "draw.js").read_text(encoding="utf-8"),
)
HELP = (
    "Drag a bar, or focus it and use the arrow keys (0.01), Page Up and Page Down (0.1), Home (0) and End (1). "
    "The bars always sum to 1: when you set one, the others keep their proportions and share the rest."
)


def payload(q: Question, key: str, stored: list[float] | None, closed: bool = False) -> dict:
    """What the browser gets: the key labels, the row to start from (the student's stored answer, else even
    shares), and the texts it prints. closed: the question's countdown has ended (the bars no longer move)."""
    keys = q.frozen["keys"]
    return {
        "id": key,
        "label": q.prompt,
        "help": HELP,
        "keys": keys,
        "value": stored or [1 / len(keys)] * len(keys),
        "disabled": q.revealed or closed,
        "submit": "Submit my row",
        "sending": "Sending…",
        "sum_text": "Sum of the bars:",
        "status": _status(q.revealed, stored is not None, closed),
    }


def _status(revealed: bool, stored: bool, closed: bool = False) -> str:
    if revealed or closed:
        why = "The answer is revealed" if revealed else "The countdown has ended"
        return f"{why}: rows can no longer change." + ("" if stored else " You sent none.")
    return "Your row is in: you can change it and submit again until the reveal." if stored else ""


def _submitted(code: str, seat: str, q: Question, key: str) -> None:
    value = st.session_state.get(key) or {}
    row = value.get("submit") if hasattr(value, "get") else getattr(value, "submit", None)
    if row is None:
        return
    try:
        store().answer(code, seat, q.qid, row, q.asked_at)
    except PollError as err:
        participant.say(str(err))
        return
    room.answered(q.qid, json.dumps([float(x) for x in row]))


def ask_row(code: str, seat: str, q: Question, stored: str | None) -> None:
    """A drawn question for a student: the bars until the reveal, then their row next to the true one."""
    key = participant.answer_key(f"{q.qid}_{int(q.asked_at * 1000)}")  # asked afresh: a new component
    mine = json.loads(stored) if stored else None
    countdown.left(q, key=f"{key}_countdown")
    closed = q.closes_at is not None and store().clock() > q.closes_at
    _component(
        key=key,
        data=json.dumps(payload(q, key, mine, closed), ensure_ascii=False).encode("utf-8"),
        on_submit_change=functools.partial(_submitted, code, seat, q, key),
    )
    if q.revealed:
        true = q.frozen["row"]
        lines = [
            f"{k}: true {fmt(t, '.2f')}" + ("" if mine is None else f", yours {fmt(m, '.2f')}")
            for k, t, m in zip(q.frozen["keys"], true, mine or true, strict=True)
        ]
        if mine is not None:
            lines.append(
                f"Total-variation distance of yours from the true row: {fmt(drawn.tv(mine, true), '.2f')} "
                "(0 when the rows are equal, 1 when they put weight on no key in common; within "
                f"{fmt(drawn.TV_WITHIN, '.1f')} counts as close)"
            )
        st.info("**The true row:**  \n" + "  \n".join(md_escape(line) for line in lines))
