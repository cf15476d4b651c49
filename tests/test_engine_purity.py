"""The engine is plain NumPy, and the factory and the services beside it plain Python: importing and running them
pulls in no app or dataframe library."""

from __future__ import annotations

from pathlib import Path

from conftest import FORBIDDEN, ROOT, run_probe

PROBE = """
import json, sys
import engine
from engine import analysis, experiments
from factory import corpus, ship, shipped_measures, store, shown
from services import learnruns, weights
trace = engine.run_preset("part4").layers[0]
analysis.extend(engine.PRESETS["day33"].config, engine.PRESETS["day33"].tokens, 9)
experiments.shuffle(engine.PRESETS["part4"].config, engine.PRESETS["part4"].tokens, 0)
analysis.explain_cell(trace, 0, 1, 2)
print(json.dumps({"loaded": sorted(m for m in sys.modules if m.split(".")[0] in %r),
                  "engine_file": engine.__file__, "T": trace.T}))
"""


def test_engine_imports_no_app_libraries():
    result = run_probe(PROBE % (FORBIDDEN,))
    assert Path(result["engine_file"]).resolve().parent == ROOT / "engine"  # the project's engine, not another
    assert result["T"] == 4
    assert result["loaded"] == [], f"the engine pulled in {result['loaded']}"


def test_probe_can_see_a_forbidden_import():
    """The probe does notice such an import (pandas is installed in the dev environment)."""
    result = run_probe(PROBE.replace("import engine\n", "import engine\nimport pandas\n", 1) % (FORBIDDEN,))
    assert "pandas" in result["loaded"]
