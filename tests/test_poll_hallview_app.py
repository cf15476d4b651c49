"""Issue 51 in the app (AppTest): the presenter's hall view (opened on the presenter's own screen: a box
drawn only while open) shows the room's students by handle, where each is, follow or explore, and who
answered the open question; eyes up puts following students' pages on the hold card, late joiners too,
leaves explorers' pages with a note, and brings the page back when switched off."""

from __future__ import annotations

import pytest

from services.poll import hallview as store_hall
from services.poll import live
from tests.conftest import open_app
from tests.test_poll_app import presenter, room_of
from ui.poll import eyesup, hallview, participant
from ui.poll import panel as poll_panel

pytestmark = pytest.mark.usefixtures("poll_db")  # conftest: a fresh SQLite file a test
HOLD = "Look at the projector"


def eyes_up(at, on: bool):
    """The presenter's eyes-up switch as drawn (its key carries the room's state and change counter)."""
    found = [t for t in at.toggle if t.key.startswith(f"{eyesup.EYES}_{int(on)}_")]
    assert len(found) == 1, [t.key for t in at.toggle]
    return found[0]


def hall_text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def held(at) -> bool:
    return any(h.value == HOLD for h in at.header)


def test_the_presenters_hall_view_shows_who_is_where_and_who_answered():
    at = presenter()
    code, _ = room_of(at)
    assert "| Student |" not in hall_text(at)  # closed: nothing of the hall drawn
    students = [open_app("pages/softmax.py", {"room": code}) for _ in range(3)]
    students[2].toggle(key=participant.FOLLOW).set_value(False).run()  # explores from now
    students[2].switch_page("pages/scores.py").run()
    students[0].radio[0].set_value("1").run()  # a move is in the hall at once: no 10 s wait for a beat
    at.session_state[hallview.BOX] = True  # the presenter opens the box
    at.run()
    assert not at.exception
    text = hall_text(at).replace("\\", "")
    said = "**3 in the room now: 2 follow, 1 explores; 1 of 3 have answered the question “the top key”.**"
    assert said in text
    rows = [line for line in text.splitlines() if line.startswith("| student")]
    assert rows == [
        "| student 1 | Softmax weights | follows | yes |",
        "| student 2 | Softmax weights | follows | no |",
        "| student 3 | Scaled scores | explores | no |",
    ]
    assert all("| 1 |" not in r for r in rows)  # never what they answered
    assert any("not the projector" in c.value for c in at.caption)
    at.button(key=participant.REVEAL).click().run()  # once revealed: what each answered, and whether right
    right = "1" in poll_panel.store().questions(code)[0].answers
    text = hall_text(at).replace("\\", "")
    assert f"1 of 3 have answered the question “the top key” (revealed: {int(right)} right)." in text
    rows = [line for line in text.splitlines() if line.startswith("| student")]
    assert rows[0].startswith("| student 1 | Softmax weights | follows | yes | ")
    assert rows[0].endswith(f" | {'yes' if right else 'no'} |") and rows[1].endswith("| no | — | — |")


def test_eyes_up_holds_following_students_and_late_joiners_not_explorers():
    at = presenter()
    code, key = room_of(at)
    follower, explorer = (open_app("pages/softmax.py", {"room": code}) for _ in range(2))
    explorer.toggle(key=participant.FOLLOW).set_value(False).run()
    assert not held(follower) and follower.radio
    eyes_up(at, False).set_value(True).run()
    assert not at.exception and live.watch(poll_panel.store(), code).hold
    assert eyes_up(at, True).value  # drawn at the room's value
    follower.run()
    late = open_app("pages/softmax.py", {"room": code})
    for student in (follower, late):
        assert not student.exception and held(student)
        assert not student.radio and not [t for t in student.toggle if t.key == participant.FOLLOW]  # no poll box
        assert not student.main.caption and not student.main.markdown  # nor the page: the card alone
        assert any('role="status"' in h.proto.body for h in student.get("html"))
    explorer.run()
    assert not held(explorer) and explorer.radio
    assert any("look at the projector" in i.value for i in explorer.info)
    at.run()
    assert eyes_up(at, True).value
    eyes_up(at, True).set_value(False).run()
    for student in (follower, late):
        student.run()
        assert not held(student) and student.radio
    assert not store_hall.hold(poll_panel.store(), code, key, False)  # off already


def test_a_student_with_a_forged_key_gets_no_switch_and_changes_nothing():
    at = presenter()
    code, _ = room_of(at)
    forger = open_app("pages/softmax.py", {"room": code, "key": "A" * 22})  # a key that is not the room's
    assert not forger.exception
    assert not [t for t in forger.toggle if t.key.startswith(eyesup.EYES)]
    assert not live.watch(poll_panel.store(), code).hold


def test_a_held_student_in_a_lesson_sees_no_step_and_comes_back_where_the_presenter_moved_meanwhile():
    from test_lessons_app import bar_text
    from test_lessons_room import code_of, student
    from test_lessons_room import presenter as lesson_presenter

    from ui.lessons import progress

    at = lesson_presenter()
    code = code_of(at)
    follower = student(code)
    assert "Step 1 of 8" in bar_text(follower)
    eyes_up(at, False).set_value(True).run()
    follower.run()
    assert held(follower) and "Step 1" not in bar_text(follower)  # nor the step's text: the card alone
    at.button(key=progress.NEXT).click().run()
    follower.run()
    assert not follower.exception and held(follower)
    eyes_up(at, True).set_value(False).run()
    follower.run()
    assert not held(follower) and "Step 2 of 8" in bar_text(follower)
    assert follower.title[0].value == at.title[0].value


def test_the_hall_view_stays_open_when_the_presenter_moves_to_another_page_and_shut_once_closed():
    """Streamlit forgets a widget's state when the page changes: the box, opened on one page, would be shut on
    the next (every Next of a lesson that moves to another page); it is kept (ui/shell/lazy.py)."""
    at = presenter()
    code, _ = room_of(at)
    open_app("pages/softmax.py", {"room": code})
    at.session_state[hallview.BOX] = True
    at.run()
    assert "1 in the room now" in hall_text(at).replace("\\", "")
    at.switch_page("pages/scores.py").run()
    assert not at.exception
    assert "1 in the room now" in hall_text(at).replace("\\", "")  # still open on the other page
    at.session_state[hallview.BOX] = False  # the presenter shuts it
    at.run()
    at.switch_page("pages/softmax.py").run()
    assert not at.exception and "in the room now" not in hall_text(at)


class _Slot:
    """A placeholder as the panel's refresh writes into it: what each write put there."""

    def __init__(self):
        self.writes = []

    def markdown(self, body):
        self.writes.append(("markdown", body))

    def warning(self, body, icon=None):
        self.writes.append(("warning", body))


def test_every_refresh_sends_the_hall_and_makes_its_text_only_when_it_changed(monkeypatch):
    """The hall goes into a placeholder the panel's whole run draws, outside the refresh's fragment. The browser
    drops what a fragment's run wrote there when its next run does not write it again (the table vanished a
    second after it was drawn: seen in Chromium), so every refresh writes it; a Same (the glance saw no change)
    writes the text made before, a changed hall or a refused read its own."""
    from services.poll.hallview import Hall, Here
    from services.poll.presence import Seat

    monkeypatch.setattr(hallview.st, "session_state", {})
    made = []
    table = hallview.table
    monkeypatch.setattr(hallview, "table", lambda hall: made.append(hall) or table(hall))
    slot = _Slot()
    seats = tuple(Here(Seat(h, "softmax", 4, 4, True, 0.0), h == 2) for h in (1, 2))
    hall = Hall(seats, "softmax@4", False, False)
    hallview.show(slot, hall)
    for _ in range(2):
        hallview.show(slot, hallview.Same(2))
    assert len(slot.writes) == 3 and len({w[1] for w in slot.writes}) == 1 and len(made) == 1
    assert "| student 2 | Softmax weights\\, step 4 | follows | yes |" in slot.writes[0][1]
    moved = Hall((seats[0], Here(Seat(2, "scores", 5, 5, True, 0.0), True)), "softmax@4", False, False)
    hallview.show(slot, moved)
    hallview.show(slot, "The room's database did not answer.")
    hallview.show(slot, hallview.Same(2))  # the refusal again, as it stands
    assert [w[0] for w in slot.writes[3:]] == ["markdown", "warning", "warning"] and "step 5" in slot.writes[3][1]
    hallview.show(None, hall)  # the box shut: nothing to write into
    hallview.st.session_state[hallview.SHOWN] = None  # what a whole run's hallview.box does
    hallview.show(slot, hallview.Same(2))  # nothing made yet for the new placeholder: nothing to send
    assert len(slot.writes) == 6


def test_the_panel_refreshes_twice_as_often_just_after_the_room_moved(monkeypatch):
    """For hallview.SOON_S after the room's counter changed (a Next, a question asked), the presenter's panel runs
    its quick refresh (students are arriving: the hall is right one refresh after the last of them), then asks
    for one whole run, which draws the usual one again."""
    clock = [100.0]
    monkeypatch.setattr(hallview.st, "session_state", {})
    monkeypatch.setattr(hallview.time, "monotonic", lambda: clock[0])
    assert hallview.soon(7) and not hallview.settled()  # a first look: the room has just been opened
    clock[0] += hallview.SOON_S - 0.1
    assert hallview.soon(7) and not hallview.settled()
    clock[0] += 0.2
    assert not hallview.soon(7) and hallview.settled()  # settled: the quick refresh asks for a whole run
    assert hallview.soon(8) and not hallview.settled()  # moved again
    assert hallview.SOON_EVERY_S < hallview.HALL_EVERY_S and poll_panel.PRESENTER_EVERY_S == hallview.HALL_EVERY_S


def test_a_refresh_reads_the_whole_hall_only_when_the_glance_moved(monkeypatch):
    """The box open, each refresh glances at the store (one statement, the panel's count); the hall's own
    statement runs only when the glance's mark moved, after a whole run (the placeholder is empty), or
    FULL_EVERY_S after the last whole read; the count shown is the glance's."""
    from services.poll import presence
    from ui.poll.db import store
    from ui.poll.link import Link

    clock = [100.0]
    monkeypatch.setattr(hallview.st, "session_state", {})
    monkeypatch.setattr(hallview.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(hallview.lazy, "is_open", lambda *a, **k: True)
    reads = []
    whole = store_hall.read
    monkeypatch.setattr(store_hall, "read", lambda *a: reads.append(a) or whole(*a))
    s = store()
    room = s.create_room()
    link, slot = Link(room.code, room.key), _Slot()
    for seat in ("seat-00001", "seat-00002"):
        presence.beat(s, room.code, seat, "softmax", 1, True)

    def refresh():
        clock[0] += hallview.HALL_EVERY_S
        hall = hallview.read(link, None)
        hallview.show(slot, hall)
        return hall

    assert isinstance(refresh(), store_hall.Hall) and len(reads) == 1
    for _ in range(3):
        same = refresh()
        assert same == hallview.Same(2) and hallview.count_of(same) == 2
    assert len(reads) == 1 and len(slot.writes) == 4  # sent at every refresh, read once
    presence.beat(s, room.code, "seat-00002", "scores", 1, True)  # a student moved
    assert isinstance(refresh(), store_hall.Hall) and len(reads) == 2 and "Scaled scores" in slot.writes[-1][1]
    assert isinstance(refresh(), hallview.Same)
    clock[0] += hallview.FULL_EVERY_S
    assert isinstance(refresh(), store_hall.Hall) and len(reads) == 3  # the bound on what a glance can miss
    hallview.st.session_state[hallview.SHOWN] = None  # a whole run drew the box anew: its placeholder is empty
    assert isinstance(refresh(), store_hall.Hall) and len(reads) == 4
    assert len(slot.writes) == 8  # one write per refresh, eight refreshes
