"""A question's countdown on screen (issue 51): the presenter's setting (seconds, 0 for none) for the next
question asked, and the time left that the hall sees ("Closes in 42 s") on the students' pages and the
projector.

The time left counts down in the browser: one tiny Components v2 element (no iframe, nothing fetched) is sent
the seconds left when the page is drawn and rewrites its own text once a second, so a running countdown costs
the server no run at all (no st.fragment(run_every=1) for every student). The store decides: an answer after the
question's closes_at is refused on the server's clock (services/poll/store.py), whatever the browser shows.
Texts are the app's own, written with textContent."""

from __future__ import annotations

import streamlit as st

from services.poll.codes import MAX_S, MIN_S, Question
from ui.poll import participant
from ui.poll.db import store

_JS = """
export default function ({ parentElement, data }) {
  const out = parentElement.querySelector('.countdown');
  if (!out) return;
  const end = Date.now() + data.left * 1000;
  const show = () => {
    const left = Math.ceil((end - Date.now()) / 1000);
    out.textContent = left > 0
      ? `${data.what} closes in ${left} s`
      : `${data.what} is closed: answers are no longer taken`;
    return left > 0;
  };
  if (!show()) return;
  const timer = setInterval(() => { if (!show()) clearInterval(timer); }, 1000);
  return () => clearInterval(timer);
}
"""
_CSS = ".countdown { margin: 0 0 0.25rem 0; font-weight: 600; font-variant-numeric: tabular-nums; }"
_timer = st.components.v2.component(
    "attention_lab_countdown", html='<p class="countdown" role="timer"></p>', css=_CSS, js=_JS
)


def setting() -> None:
    """The presenter's countdown for the questions asked next (a number input: 0, or 10 to 600 seconds)."""
    st.number_input(
        "Countdown for the next question asked (seconds, 0 for none)",
        min_value=0,
        max_value=MAX_S,
        step=10,
        key=participant.COUNTDOWN,
        help=f"{MIN_S} to {MAX_S} seconds: the hall sees the time left and answers after it are refused. A reset "
        "question has no countdown until it is asked again.",
    )


def left(q: Question, key: str, what: str = "This question") -> None:
    """The time left on question `q`'s countdown, counted down in the browser (nothing without one, or once
    revealed)."""
    if q.closes_at is None or q.revealed:
        return
    seconds = max(0.0, q.closes_at - store().clock())
    _timer(key=key, data={"left": round(seconds, 2), "what": what}, height="content")
