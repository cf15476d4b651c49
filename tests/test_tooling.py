"""The formatter and linter (issue 48): ruff is configured once, in pyproject.toml, at a line length between 100
and 120, with the rule sets the project relies on; its version is pinned, so a new release cannot turn CI red on
its own; .ci/run runs `ruff format --check` and `ruff check` before the tests; and the tree is clean now (run here
too, so a developer sees it before CI does)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_ruff_is_configured_once_at_one_line_length():
    ruff = PYPROJECT["tool"]["ruff"]
    assert 100 <= ruff["line-length"] <= 120
    assert ruff["target-version"] == "py311"  # the README's oldest Python
    assert {"E", "W", "F", "I", "B", "UP"} <= set(ruff["lint"]["select"])
    assert not list(ROOT.glob("ruff.toml")) and not list(ROOT.glob(".ruff.toml")), "one configuration, not two"


def test_ruff_s_version_is_pinned():
    pins = [line for line in (ROOT / "requirements-dev.txt").read_text().splitlines() if line.startswith("ruff")]
    assert len(pins) == 1 and re.match(r"ruff==\d+\.\d+\.\d+\s", pins[0] + " "), pins


def test_ci_runs_the_formatter_and_linter_before_the_tests():
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    fmt = steps.index(".venv/bin/ruff format --check .")
    lint = steps.index(".venv/bin/ruff check .")
    first_test = next(i for i, line in enumerate(steps) if "-m pytest" in line)
    assert fmt < first_test and lint < first_test


def _ruff() -> str | None:
    here = Path(sys.executable).with_name("ruff")
    return str(here) if here.exists() else shutil.which("ruff")


@pytest.mark.parametrize("command", [["format", "--check", "."], ["check", "."]], ids=["format", "lint"])
def test_the_tree_is_clean(command):
    ruff = _ruff()
    if ruff is None:
        pytest.skip("ruff is not installed here (requirements-dev.txt installs it)")
    done = subprocess.run([ruff, *command], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
