"""A small hall runs benchmarks.lesson end to end (issue 35): on 2 replicas behind HAProxy sharing one SQLite
file, students join a room that follows a lesson and reach every step the presenter's Next opens, over
Streamlit's own websocket protocol; replica r1 is killed mid-lesson and its students reconnect onto the
current step. Skipped without haproxy, unless REQUIRE_BROWSER=1 (CI). A step reaches each student well within
the fallback timer: the room's change was pushed (ui/poll/push.py), not found by the student's check. The
presenter's hall view, open throughout, says every student is on each step, and no answer is lost."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, require
from deploy import replicas
from ui.poll import follow

pytestmark = pytest.mark.browser  # starts servers: with the browser and replica tests


def hall(*extra: str) -> dict:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.lesson",
            "--students",
            "8",
            "--steps",
            "5",
            "--gap",
            "7",
            "--idle",
            "3",
            "--spread",
            "2",
            "--timeout",
            "60",
            *extra,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
    )
    body, _, last = done.stdout.rstrip().rpartition("\n")
    assert last == "OK" and done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads(body)
    assert report["missed_steps"] == 0 and report["errors"] == 0 and report["step_s"]["count"] == 8 * 4
    assert report["check_every_s"] == follow.WATCH_PUSHED_S  # the server pushes: its timer is the fallback
    # Issue 51: the presenter's hall view (box open) was right after every step, every answer is in the store
    assert report["hall"]["never_right"] == [] and report["hall"]["expected"] == 8, report["hall"]
    assert report["answers"]["lost"] == 0 and report["answers"]["sent"] >= 8, report["answers"]
    return report


def test_every_step_is_pushed_to_a_small_hall_on_one_process():
    report = hall()
    # Every step reached every student well before the check's fallback timer: pushed. A push that meets a run
    # the student asked for at that moment (an answer's click: the students answer each question) is merged into
    # that run by Streamlit and counted as the student's (CI saw 31 of 32 once), so not every arrival is a push.
    assert report["step_s"]["max"] < follow.WATCH_PUSHED_S / 3, report["step_s"]
    assert report["pushed_runs"] >= 8 * 3, report["pushed_runs"]


def test_a_replica_killed_mid_lesson_loses_no_student():
    require(None if replicas.haproxy_path() else "haproxy is not installed (apt-get install -y haproxy)")
    report = hall("--replicas", "2", "--kill")
    assert report["step_s"]["p95"] < follow.WATCH_PUSHED_S / 3, report["step_s"]
    assert report["killed_r1_after_step"] == 3 and report["reconnects"] >= 1
    assert set(report["students_per_replica_at_end"]) == {"r2"}
