"""A fresh server's first page needs no pandas (0.34 s of its first run): its tables are Markdown and its
map is the attention-map component's texts; pandas is imported in the background a little later."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from conftest import run_probe
from ui.charts import attention_map as am
from ui.prose.numbers import parse

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
maps = sum(c.proto.component_name.endswith("attention_map") for c in at.get("bidi_component"))
print(json.dumps({{"drawn": drawn, "later": "pandas" in sys.modules, "charts": len(at.get("vega_lite_chart")) + maps,
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


@pytest.mark.parametrize("R, C", [(1, 1), (4, 16), (9, 9), (130, 3)])
def test_a_maps_payload_holds_every_cell(R, C):
    """Every cell of a heatmap's payload, read back one by one: its value (3 significant digits), masked cells as
    the mask's text and the masked colour, the expected flags, the labels as given (markup, a pipe, é)."""
    rng = np.random.RandomState(R * 100 + C)
    matrix = rng.standard_normal((R, C))
    rows = [f"tok<{i}>|é" for i in range(R)]  # markup, a pipe and a non-ASCII letter
    cols = [str(j) for j in range(C)]
    mask = rng.rand(R, C) > 0.3
    expected = rng.rand(R, C) > 0.5
    data = am.payload(
        [am.Panel(matrix, "m", mask, None, expected)], rows, cols, highlight=R - 1, pick=(0, R // 2, C - 1)
    )
    assert data["rows"] == rows and data["cols"] == cols
    assert data["highlight"] == R - 1 and data["pick"][1:] == [R // 2, C - 1]
    m = data["maps"][0]
    tips, colour = m["tips"].split("|"), base64.b64decode(m["colour"])
    texts = m["cells"].split("|") if m["cells"] is not None else None
    assert len(tips) == len(colour) == R * C and (texts is None) == (max(R, C) > am.MAX_LABELLED)
    for i in range(R):
        for j in range(C):
            k = i * C + j
            if mask[i, j]:
                assert parse(tips[k]) == pytest.approx(matrix[i, j], rel=5e-3) and colour[k] != am.MASKED
            else:
                assert tips[k] == "−∞" and colour[k] == am.MASKED and (texts is None or texts[k] == "−∞")
            assert m["expected"][k] == ("1" if expected[i, j] else "0")


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
