"""Issue 49: a map's component data is made once per content (ui.charts.memo): a rerun that draws the same maps
sends the bytes made before, and any change to what a map is made from (one value by one ulp, a label, an option)
makes new ones."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import assert_clean, open_app
from ui.charts import attention_map as am
from ui.charts import memo
from ui.shell import site

PAGE = {page.path: page.file for page in site.PAGES}


@pytest.fixture(autouse=True)
def _empty():
    memo.clear()
    yield
    memo.clear()


def _counted(monkeypatch) -> list:
    """Count attention_map.payload's calls (what a hit skips)."""
    made, real = [], am.payload
    monkeypatch.setattr(am, "payload", lambda *a, **k: made.append(1) or real(*a, **k))
    return made


def test_the_same_inputs_make_the_bytes_once_and_any_change_makes_new_ones():
    values = np.random.RandomState(0).rand(4, 4)
    calls = []

    def made(v, rows, **options):
        calls.append(1)
        return am.encoded(am.payload([v], rows, signed=False, **options))

    def once(v, rows=("a", "b", "c", "d"), **options):
        return memo.once(("test", v, rows, options), lambda: made(v, rows, **options))

    first = once(values)
    assert once(values.copy()) is first and len(calls) == 1  # equal content, another array: a hit
    nudged = values.copy()
    nudged[2, 1] = np.nextafter(nudged[2, 1], 2.0)
    changed = [
        once(nudged),  # one value, one ulp
        once(values, ("a", "b", "c", "e")),  # one label
        once(values, present=True),  # one option
        once(values.astype(np.float32)),  # the same numbers in another dtype
    ]
    assert len(calls) == 5  # each made anew (one ulp and a dtype print alike, but they are other inputs)
    assert changed[1] != first and changed[2] != first
    assert json.loads(first) == json.loads(am.encoded(am.payload([values], list("abcd"), signed=False)))
    zeros = np.zeros((2, 2))
    assert memo.digest((zeros,)) != memo.digest((-zeros,))  # 0.0 and −0.0: two entries, never a wrong hit


def test_parts_that_cannot_be_pickled_are_made_every_time():
    made = []
    for _ in range(2):
        assert memo.once(("x", lambda: 0), lambda: made.append(1) or b"{}") == b"{}"
    assert made == [1, 1] and not memo._kept


def test_the_store_is_bounded_in_bytes_and_drops_the_least_recently_used(monkeypatch):
    monkeypatch.setattr(memo, "SIZE", 250)
    for i in range(3):
        memo.once(("n", i), lambda i=i: bytes(100) + bytes([i]))
    assert memo._held[0] <= 250 and len(memo._kept) == 2  # the first one went
    again = []
    memo.once(("n", 0), lambda: again.append(1) or bytes(101))
    assert again == [1]  # dropped, so made again
    memo.once(("n", 2), lambda: again.append(2) or b"")
    assert again == [1]  # still held


def test_a_rerun_of_a_page_of_maps_sends_the_bytes_made_before_and_a_new_length_new_ones(monkeypatch):
    """The per-head maps page at the trained induction preset, layer 1: four maps, each formatted once."""
    at = open_app(PAGE["heads"], {"preset": "trained-induction", "layer": "1"})
    assert_clean(at)
    first = {e.key: e.proto.bytes for e in at.get("bidi_component")}
    made = _counted(monkeypatch)
    at.run()
    assert_clean(at)
    assert made == [] and {e.key: e.proto.bytes for e in at.get("bidi_component")} == first
    at.session_state["seq_len"] = int(at.session_state["seq_len"]) + 1
    at.run()
    assert_clean(at)
    maps = am.decoded(next(e for e in at.get("bidi_component") if e.key == "heads_maps"))
    assert made and len(maps["rows"]) == len(json.loads(first["heads_maps"])["rows"]) + 1


@pytest.mark.parametrize("page,key", [("softmax", "softmax_map"), ("model", None), ("heads", "heads_maps")])
def test_the_colour_stretch_is_part_of_what_a_map_is_made_from(page, key):
    """The same weights with the sidebar's stretch on are another map (the scale runs to the largest weight, and
    the legend says so), however the fixed one was made before in this process; the Softmax page's β frames
    (built once per model, text and head) too, which kept the first visit's scale before."""

    def legend(at):
        found = [e for e in at.get("bidi_component") if key is None or e.key == key]
        return am.decoded(found[0])["legend"]["title"]

    assert legend(open_app(PAGE[page])) == "weight (fixed 0–1)"
    assert legend(open_app(PAGE[page], {"stretch": "1"})).startswith("weight (stretched")
