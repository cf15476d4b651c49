"""A small hall runs benchmarks.poll end to end: students join by link, answer 3 questions each, and the
store and the presenter's panel hold every answer; once on one server, once on 2 replicas behind HAProxy
sharing one SQLite file with one replica killed mid-poll (its students reconnect and go on).

Skipped without haproxy for the replica run, unless REQUIRE_BROWSER=1 (CI)."""
from __future__ import annotations

import argparse
import asyncio

import pytest

from benchmarks import poll
from deploy import replicas
from tests.conftest import require

pytestmark = pytest.mark.browser           # starts servers: with the browser and replica tests


def run(**options) -> dict:
    args = argparse.Namespace(students=8, spread=2.0, pause=1.0, replicas=0, kill=False, no_poll=False,
                              timeout=60.0, deadline=240.0, seed=3)
    for name, value in options.items():
        setattr(args, name, value)
    return asyncio.run(poll.hall(args))


def assert_complete(report: dict) -> None:
    assert report["errors"] == 0, report["error_samples"]
    assert report["answers_sent"] == report["answers_stored"] == 3 * report["students"]
    assert report["store_matches_students"] and report["presenter_matches_store"]
    assert poll.verdict(report, None) == []


def test_a_hall_on_one_server():
    assert_complete(run())


def test_a_replica_killed_mid_poll_loses_no_answer():
    require(None if replicas.haproxy_path() else "haproxy is not installed (apt-get install -y haproxy)")
    report = run(replicas=2, kill=True, spread=1.0, pause=1.5)
    assert_complete(report)
    assert report["killed_r1_at_s"] is not None and report["reconnects"] >= 1
    assert set(report["students_per_replica_at_end"]) == {"r2"}
