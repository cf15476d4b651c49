"""The hall and profile benchmarks' own machinery (not their timings, which are run by hand): the mix of
interactions, the categories a stack falls in, the probe's accounting, the options, a fragment's widget
rerunning only its fragment over the websocket protocol, as a browser does, and the fragment floor's app."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks import (
    first_run,
    floor_app,
    fragment_floor,
    hall,
    mix,
    profile,
    server_probe,
    servers,
    wsclient,
)
from benchmarks import (
    profile_categories as cats,
)
from harness import browser as bs
from ui.shell import site

ROOT = "/srv/app"
SITE = "/venv/lib/python3.11/site-packages"


def test_the_mix_is_half_sidebar_moves_and_covers_every_page_at_both_presets():
    stations = mix.assign(60)
    kinds = Counter(k for i, s in enumerate(stations) for k in mix.plan(s, 6, i))
    assert kinds["sidebar"] == sum(v for k, v in kinds.items() if k != "sidebar")
    assert {s.name for s in stations} == {s.name for s in mix.stations()}
    assert len(mix.stations()) == 2 * len(site.PAGES)
    learn = next(i for i, s in enumerate(stations) if not s.sidebar)
    assert mix.plan(stations[learn], 6, learn)[0] == "train"
    assert all(s.query.startswith(mix.TRAINED) for s in mix.stations() if s.preset == "trained")


@pytest.mark.parametrize(
    "frames, thread, expected",
    [
        (
            [
                f"<module> ({ROOT}/pages/scores.py)",
                f"trace ({ROOT}/ui/compute.py)",
                f"block_forward ({ROOT}/engine/block.py)",
                f"sum ({SITE}/numpy/_core/fromnumeric.py)",
            ],
            "",
            "engine",
        ),
        ([f"<module> ({ROOT}/pages/scores.py)", f"notice ({ROOT}/ui/prose/stages.py)"], "", "prose"),
        ([f"draw ({ROOT}/ui/sections/scores/maps.py)", f"notice ({ROOT}/ui/sections/scores/words.py)"], "", "prose"),
        ([f"heatmap ({ROOT}/ui/charts/maps.py)", f"dumps ({SITE}/altair/utils/core.py)"], "", "charts"),
        ([f"table ({ROOT}/ui/page/tables.py)", f"__init__ ({SITE}/pandas/core/frame.py)"], "", "tables"),
        (
            [f"notice ({ROOT}/ui/page/layout.py)", f"markdown ({SITE}/streamlit/elements/markdown.py)"],
            "",
            "st_elements",
        ),
        (
            [f"trace ({ROOT}/ui/compute.py)", f"__call__ ({SITE}/streamlit/runtime/caching/cache_utils.py)"],
            "ScriptRunner.scriptThread",
            "st_run",
        ),
        (
            [
                f"heatmap ({ROOT}/ui/charts/maps.py)",
                f"vega ({SITE}/streamlit/elements/vega_charts.py)",
                "dumps (/usr/lib/python3.11/json/__init__.py)",
            ],
            "",
            "serialisation",
        ),
        ([f"draw ({ROOT}/ui/shell/sidebar.py)"], "", "frame"),
        (
            ["run_forever (/usr/lib/python3.11/asyncio/base_events.py)", f"send ({SITE}/uvicorn/protocols/ws.py)"],
            "MainThread",
            "sending",
        ),
        (
            [
                "run_forever (/usr/lib/python3.11/asyncio/base_events.py)",
                f"_handle ({SITE}/streamlit/runtime/app_session.py)",
            ],
            "MainThread",
            "st_loop",
        ),
        ([f"task ({SITE}/streamlit/watcher/polling_path_watcher.py)"], "ThreadPoolExecutor-0_0", "other"),
    ],
)
def test_a_stack_falls_in_one_category_by_the_checkouts_folders(frames, thread, expected):
    assert cats.Categoriser(Path(ROOT)).category(frames, thread) == expected


def test_the_probe_report_adds_up_to_the_process_cpu():
    report = {
        "main_cpu": 0.3,
        "rows": [
            ["top", "script", [], 0.6],
            ["top", "main", [], 0.1],
            ["runner", "", [], 0.05],
            ["element", "slider", [f"draw ({ROOT}/ui/shell/sidebar.py)"], 0.2],
            ["gap", "", [f"<module> ({ROOT}/pages/scores.py)", f"run ({ROOT}/engine/model.py)"], 0.3],
            ["carve", "serialisation", [], 0.05],
            ["loop", "st_loop", [], 0.1],
        ],
    }
    by, callers, functions, calls, totals = cats.tally(report, cats.Categoriser(Path(ROOT)), 1.0)
    assert by["engine"] == pytest.approx(0.3) and by["sending"] == pytest.approx(0.2)
    assert by["other"] == pytest.approx(0.1) and callers["frame"] == pytest.approx(0.2)
    assert calls["st.slider from frame"] == pytest.approx(0.2) and "run (engine/model.py)" in functions
    assert totals["accounted_s"] == pytest.approx(1.0)


def _busy(seconds: float) -> None:
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


def test_the_probe_counts_a_runs_cpu_at_its_regions(tmp_path):
    probe = server_probe.Probe(tmp_path)
    probe.name = "test"
    element = probe.region("element")(lambda: _busy(0.02))
    page = probe.region("exec")(lambda: (_busy(0.02), element(), _busy(0.01)))
    probe.region("runner")(lambda: (_busy(0.01), page()))()
    spent = Counter()
    for (kind, _, _), seconds in probe.totals.items():
        spent[kind] += seconds
    assert spent["element"] == pytest.approx(0.02, abs=0.006)
    assert spent["gap"] == pytest.approx(0.03, abs=0.008)
    assert spent["runner"] == pytest.approx(0.01, abs=0.006)
    assert spent["top"] == pytest.approx(0.06, abs=0.01)


def test_the_options_are_checked(monkeypatch):
    for module, argv in (
        (hall, ["--students", "0"]),
        (profile, ["--presets", "nowhere"]),
        (fragment_floor, ["--reruns", "1"]),
        (profile, ["--clicks", "train"]),  # Train replays a run: not a rerun to profile
        (first_run, ["--link", "?preset=trained-text"]),
        (first_run, ["--repeats", "0"]),
    ):
        monkeypatch.setattr(sys, "argv", ["x", *argv])
        with pytest.raises(SystemExit) as stop:
            module.main()
        assert stop.value.code == 2


def test_widget_ids_and_the_states_a_tab_sends():
    assert wsclient.key_of("$$ID-0123abcd-seq_len") == "seq_len"
    assert wsclient.key_of("$$ID-0123abcd-None") is None
    proto = NumberInput(id="$$ID-1-seed", default=42, data_type=NumberInput.INT)
    assert wsclient.initial_state("number_input", proto).int_value == 42
    proto = NumberInput(id="$$ID-1-lr", default=0.06, data_type=NumberInput.FLOAT)
    assert wsclient.initial_state("number_input", proto).double_value == pytest.approx(0.06)


FRAGMENT_APP = """
import streamlit as st
st.session_state.setdefault("runs", [0, 0])
st.session_state.runs[0] += 1
st.sidebar.slider("Sequence length T", 2, 64, 4, key="seq_len")

@st.fragment
def part():
    st.session_state.runs[1] += 1
    st.select_slider("beta", options=["0", "1", "2"], value="1", key="beta")
    st.markdown(f"runs {st.session_state.runs[0]} {st.session_state.runs[1]}")

part()
"""


def test_a_widget_drawn_in_a_fragment_reruns_only_its_fragment(tmp_path):
    (tmp_path / "app.py").write_text(FRAGMENT_APP)
    drawn = []

    class Tab(wsclient.Tab):
        def _delta(self, delta, seen, run):
            if delta.WhichOneof("type") == "new_element" and delta.new_element.WhichOneof("type") == "markdown":
                drawn.append(delta.new_element.markdown.body)
            super()._delta(delta, seen, run)

    async def clicks(url):
        tab = Tab(url, "", "", 30)
        await tab.open()
        assert tab.widget("beta").fragment and not tab.widget("seq_len").fragment
        moved = WidgetState()
        moved.string_array_value.data.append("2")
        run = await tab.run(tab.set("beta", moved))
        assert run.fragment and not run.errors
        slider = WidgetState()
        slider.double_array_value.data.append(7.0)
        run = await tab.run(tab.set("seq_len", slider))
        assert not run.fragment
        await tab.close()

    with bs.Server(app="app.py", cwd=tmp_path, log_name="bench-tools-fragment.log") as server:
        asyncio.run(clicks(server.url))
    assert drawn == ["runs 1 1", "runs 1 2", "runs 2 3"]


@pytest.mark.parametrize("maps", [False, True])
def test_the_fragment_floor_app_runs_under_the_projects_config_and_its_button_reruns_only_its_fragment(
    maps, monkeypatch
):
    monkeypatch.setenv("FLOOR_MAPS", "1" if maps else "0")  # the server inherits them
    monkeypatch.setenv("FLOOR_APP_ROOT", str(bs.ROOT))
    folder = fragment_floor.write_app()
    try:
        assert (folder / ".streamlit" / "config.toml").read_text() == (
            bs.ROOT / ".streamlit" / "config.toml"
        ).read_text()
        with bs.Server(app="floor_app.py", cwd=folder, log_name="bench-tools-floor.log") as server:
            # measure() raises if a press came back as a full run or a slider move as a fragment run
            costs = asyncio.run(fragment_floor.measure(server.url, servers.Cpu(server.pid), 3))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert [len(costs["full"]), len(costs["fragment"])] == [3, 3]
    assert all(ms > 0 for ms in costs["full"] + costs["fragment"])


def test_a_first_run_is_measured_after_the_same_link_without_its_knockout_or_after_the_model_view():
    assert first_run.warm_up("model?preset=trained-text&ablate=0.1,1.2&layer=1") == "model?preset=trained-text&layer=1"
    assert first_run.warm_up("learn?preset=trained-text") == "model?preset=trained-text"
    assert all("ablate" not in first_run.warm_up(link) and first_run.warm_up(link) != link for link in first_run.LINKS)


def test_the_halls_floor_students_move_the_floor_apps_slider():
    """--floor's students: at the floor app's one station, each move a sidebar slider move that the server runs."""
    folder = floor_app.write_floor()
    try:
        with bs.Server(app="floor_app.py", cwd=folder, log_name="bench-tools-hall-floor.log") as server:
            done = asyncio.run(hall.student(server.url, mix.FLOOR, ["sidebar"] * 3, random.Random(4), 30))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert [d.kind for d in done] == ["join", "sidebar", "sidebar", "sidebar"]
    assert not [e for d in done for e in d.errors]
    assert all(d.seconds > 0 for d in done)


def test_a_scrubber_let_go_sends_one_frame_event_and_the_server_draws_that_frame():
    """The hall's β and replay hands on the attention-map component (issue 49): nothing while dragging, one `frame`
    event on the component's trigger widget when let go; the server's run draws that frame (β or step set)."""
    softmax = next(s for s in mix.stations() if s.page == "softmax" and s.preset == "defaults")
    learn = next(s for s in mix.stations() if s.page == "learn" and s.preset == "trained")

    async def hands(url):
        tab = wsclient.Tab(url, softmax.page, softmax.query, 60)
        await tab.open()
        for seed in (1, 2):
            key, state = mix.beta(tab, softmax, random.Random(seed))
            frame = json.loads(state.json_trigger_value)[0]["value"]
            assert key == mix.SOFTMAX_MAP and state.id.endswith("__events")
            run = await tab.run(tab.set(key, state))
            assert run.fragment and not run.errors and not tab.notices
            assert json.loads(tab.widget(key).proto.bytes)["frame"] == frame  # β set on the server
        await tab.close()
        return await hall.student(url, learn, ["train", "replay", "replay"], random.Random(3), 120)

    with bs.Server(log_name="bench-tools-frames.log") as server:
        done = asyncio.run(hands(server.url))
    assert [d.kind for d in done] == ["join", "train", "replay", "replay"], [d.kind for d in done]
    assert not [e for d in done for e in d.errors]
