"""The end of a class-poll room on the presenter's panel (issue 51): the three downloads (the answers with
each student's anonymous handle, a summary per question, the progress per student: services/poll/export.py),
then "Close the room…", which shows the downloads again above the confirmation, because closing deletes the
room's answers and presence at once. And the sentences that say how long a room keeps its data.

The store's modules (SQLAlchemy) are imported when a file is made, not by a page without a room."""

from __future__ import annotations

import streamlit as st

from services.poll.codes import PollError
from ui.poll import participant, room
from ui.poll.db import store
from ui.poll.link import Link

CONFIRM, CANCEL = "poll_close_confirm", "poll_close_cancel"
_CLOSING = "_poll_closing"  # the room whose closing the presenter asked for (the confirmation is shown)
FILES = (  # (name, the button's label); answers' button keeps its key of before (participant.CSV)
    ("answers", "Answers (CSV)"),
    ("summary", "Summary per question (CSV)"),
    ("progress", "Progress per student (CSV)"),
)


def kept(ttl_s: float) -> str:
    """What a room keeps, and how long (the presenter's panel)."""
    return (
        "This room keeps the answers and, for each student, an anonymous number (\u201cstudent 17\u201d) and the "
        f"page and step they are on, until you close it or for {ttl_s / 3600:g} h at most (then deleted within a "
        "minute while the app runs, else when it starts again); nothing else about a student is stored (no name, "
        "no address)."
    )


def kept_for_student(ttl_s: float) -> str:
    """The same, as a student reads it where they join."""
    return (
        "Your answers and the page and step you are on are kept under an anonymous number until the presenter "
        f"closes the room or for {ttl_s / 3600:g} h at most (then deleted within a minute while the app runs, else "
        "when it starts again); nothing else about you is stored (no name, no address)."
    )


def _csv(link: Link, name: str) -> bytes:
    from services.poll import export

    made = {"answers": export.answers_csv, "summary": export.summary_csv, "progress": export.progress_csv}[name]
    try:
        return export.for_download(made(store(), link.room, link.key))
    except PollError as err:  # the room expired or the database did not answer: the file says so
        return export.for_download("error\n" + str(err).replace("\n", " ") + "\n")


def downloads(link: Link, where: str) -> None:
    """The three files in a row that wraps (each button as wide as its label: in three equal columns the
    longer two were cut to "Summary per questi…"); where: the buttons' key suffix, so the confirmation's are
    others."""
    row = st.container(horizontal=True, wrap=True)
    for name, label in FILES:
        row.download_button(
            label,
            data=lambda name=name: _csv(link, name),
            file_name=f"attention-lab-poll-{link.room}-{name}.csv",
            mime="text/csv",
            key=participant.CSV if (name, where) == ("answers", "") else f"{participant.CSV}_{name}{where}",
            icon=":material/download:",
            on_click="ignore",
        )


def draw(link: Link) -> None:
    """The downloads and "Close the room…"; once asked, the confirmation with the downloads first."""
    if st.session_state.get(_CLOSING) != link.room:
        downloads(link, "")
        st.button("Close the room…", key=participant.CLOSE, on_click=_ask, args=(link.room,), icon=":material/logout:")
        st.caption(kept(store().ttl_s))
        return
    with st.container(border=True):
        st.warning(
            "Closing deletes every answer and who was here, at once. Download what you want to keep first:",
            icon=":material/delete_forever:",
        )
        downloads(link, "_closing")
        left, right = st.columns(2)
        left.button("Close and delete", key=CONFIRM, type="primary", on_click=_close, args=(link,))
        right.button("Keep the room open", key=CANCEL, on_click=_ask, args=(None,))


def _ask(code: str | None) -> None:
    st.session_state[_CLOSING] = code


def _close(link: Link) -> None:
    st.session_state[_CLOSING] = None
    try:
        store().close_room(link.room, link.key)
    except PollError as err:
        participant.say(str(err))
        return
    finally:
        room.forget(link.room)
    _forget_jobs(link.room)
    participant.set_link(Link())
    participant.say(f"Room {link.room} is closed: students can no longer answer, and their answers are deleted.")


def _forget_jobs(code: str) -> None:
    """The room's class runs off the queue too (services/jobs.forget), where a queue exists; a queue that does not
    answer keeps them until its tidy (services/poll/sweeper.py), and the room is closed all the same."""
    from services.jobs import exists, forget, if_it_answers

    if exists():
        if_it_answers(forget, code)
