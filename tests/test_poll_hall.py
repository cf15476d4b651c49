"""A small hall runs benchmarks.poll end to end: students join by link, answer 3 questions each, and the
store and the presenter's panel hold every answer; once on one server, once on 2 replicas behind HAProxy
sharing one SQLite file with one replica killed mid-poll (its students reconnect and go on).

Skipped without haproxy for the replica run, unless REQUIRE_BROWSER=1 (CI)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, require
from deploy import replicas

pytestmark = pytest.mark.browser  # starts servers: with the browser and replica tests


def run(*options: str) -> dict:
    """The benchmark's own command (the tests import nothing from benchmarks/): its JSON report, and
    its last line, OK or FAILED with the problems it found."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.poll",
            "--students",
            "8",
            "--spread",
            "2",
            "--pause",
            "1",
            "--timeout",
            "60",
            "--deadline",
            "240",
            "--seed",
            "3",
            *options,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
    )
    body, _, last = done.stdout.rstrip().rpartition("\n")
    assert last == "OK" and done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(body)


def assert_complete(report: dict) -> None:
    assert report["errors"] == 0, report["error_samples"]
    assert report["answers_sent"] == report["answers_stored"] == 3 * report["students"]
    assert report["store_matches_students"] and report["presenter_matches_store"]


def test_a_hall_on_one_server():
    assert_complete(run())


def test_a_replica_killed_mid_poll_loses_no_answer():
    require(None if replicas.haproxy_path() else "haproxy is not installed (apt-get install -y haproxy)")
    report = run("--replicas", "2", "--kill", "--spread", "1", "--pause", "1.5")
    assert_complete(report)
    assert report["killed_r1_at_s"] is not None and report["reconnects"] >= 1
    assert set(report["students_per_replica_at_end"]) == {"r2"}
