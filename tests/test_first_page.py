"""A fresh server's first page needs no pandas (0.34 s of its first run): its tables are Markdown and its
chart's columns are Arrow built from buffers; pandas is imported in the background a little later."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from conftest import run_probe
from ui.charts import maps

FIRST_PAGE = """
import json, sys, time
from streamlit.testing.v1 import AppTest
import ui.shell.frame
ui.shell.frame.IMPORT_LATER_S = {later}
at = AppTest.from_file("streamlit_app.py", default_timeout=60)
for key, value in {params}.items():
    at.query_params[key] = value
at.run()
if {page!r}:
    at.switch_page({page!r}).run()
assert not at.exception, at.exception
drawn = "pandas" in sys.modules
time.sleep({wait})
print(json.dumps({{"drawn": drawn, "later": "pandas" in sys.modules, "charts": len(at.get("vega_lite_chart")),
                  "tables": sum(m.value.startswith("| ") for m in at.markdown)}}))
"""


def test_the_first_page_is_drawn_without_pandas_which_comes_later():
    held = run_probe(FIRST_PAGE.format(later=1e6, wait=0, params={}, page=""))
    assert held == {"drawn": False, "later": False, "charts": 1, "tables": 1}  # drawn: a chart, a table
    warmed = run_probe(FIRST_PAGE.format(later=0.05, wait=3, params={}, page=""))
    assert warmed["drawn"] is False and warmed["later"] is True  # then imported


MODEL_VIEW = """
import json, sys
import numpy as np
from ui.charts import attention_grid
weights = np.random.RandomState(0).rand(2, 2, 16, 16)
attention_grid.model_view(weights / weights.sum(-1, keepdims=True), labels=list("abcdefghijklmnop"), title="t",
                          info=[["a", "b"], ["c", "d"]], mask=np.tril(np.ones((16, 16), bool)), key="k",
                          on_open=lambda: None)
print(json.dumps({"pandas": "pandas" in sys.modules}))
"""


def test_the_model_view_grid_is_drawn_without_pandas():
    """Issue 25's cold start is measured on /model?preset=trained-induction: its grid's columns are Arrow
    built from buffers too (pa.array of a list imported pandas: ~0.35 s of that first page)."""
    assert run_probe(MODEL_VIEW) == {"pandas": False}


def plain_cells(matrix, rows, cols, mask=None, pick=None, why="", highlight=None, expected=None) -> list[dict]:
    """The heatmap's cells written out one by one, as an independent oracle for maps.cells."""
    out = []
    for i in range(len(rows)):
        for j in range(len(cols)):
            hidden = mask is not None and not mask[i][j]
            cell = {
                "row": str(rows[i]),
                "col": str(cols[j]),
                "r": i,
                "c": j,
                "value": None if hidden else float(np.float32(matrix[i][j])),
                "pick": pick == (i, j),
                "nz": not hidden and matrix[i][j] != 0,
            }
            if mask is not None:
                cell["why"] = why if hidden else ""
            if highlight is not None:
                cell["hl"] = i == highlight or j == highlight
            if expected is not None:
                cell["expected"] = bool(expected[i][j])
            out.append(cell)
    return out


@pytest.mark.parametrize("R, C", [(1, 1), (4, 16), (9, 9), (130, 3)])  # 130 rows: int16 codes
def test_cells_built_from_buffers_hold_every_cell(R, C):
    rng = np.random.RandomState(R * 100 + C)
    matrix = rng.standard_normal((R, C))
    rows = [f"tok<{i}>|é" for i in range(R)]  # markup, a pipe and a non-ASCII letter
    cols = [str(j) for j in range(C)]
    mask = rng.rand(R, C) > 0.3
    expected = rng.rand(R, C) > 0.5
    pick = (R // 2, C - 1)
    table = maps.cells(
        matrix, rows, cols, mask=mask, pick=pick, why="the key comes later", highlight=R - 1, expected=expected
    )
    assert isinstance(table, pa.Table)
    assert table.to_pylist() == plain_cells(matrix, rows, cols, mask, pick, "the key comes later", R - 1, expected)
    bare = maps.cells(matrix, rows, cols)  # no mask, no pick: every value, no flag set
    assert bare.to_pylist() == plain_cells(matrix, rows, cols)
    assert bare.column_names == ["row", "col", "r", "c", "value", "pick", "nz"]


POLL_IMPORTS = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("streamlit_app.py", default_timeout=60)
for key, value in {params}.items():
    at.query_params[key] = value
at.run()
print(json.dumps({{"sqlalchemy": "sqlalchemy" in sys.modules, "errors": [e.message for e in at.exception]}}))
"""


def test_the_poll_store_loads_sqlalchemy_only_when_a_room_is_opened(tmp_path):
    """The poll's store is SQLAlchemy Core (0.4 s to import): a page without a room does not import it; a
    student's link to a room does (and says the room is not there, without a traceback)."""
    import os

    os.environ["ATTENTION_LAB_POLL_DB"] = str(tmp_path / "poll.sqlite3")  # the probe inherits it
    try:
        assert run_probe(POLL_IMPORTS.format(params={})) == {"sqlalchemy": False, "errors": []}
        assert run_probe(POLL_IMPORTS.format(params={"present": "1"})) == {"sqlalchemy": False, "errors": []}
        assert run_probe(POLL_IMPORTS.format(params={"room": "K7QF"})) == {"sqlalchemy": True, "errors": []}
    finally:
        os.environ.pop("ATTENTION_LAB_POLL_DB")
