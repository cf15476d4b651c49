"""What any rerun costs the server before the app draws anything: issue 34's floor for a click.

A minimal app (the sidebar's kinds of widget in the frame's numbers, a title, one line of text, and an
`st.fragment` holding one button and one line of text) runs under this project's own `.streamlit/config.toml`
(no file watcher, no forced garbage collection after a run), on one server, one tab speaking Streamlit's
websocket protocol (benchmarks.wsclient.Tab). Full reruns (a sidebar slider moved) and fragment reruns (the
fragment's button pressed) alternate; each one's server CPU (all threads, the kernel's CPU clock of the
process) is read from the rerun sent to its run finished plus 30 ms, as benchmarks.hall reads an interaction's.

The fragment rerun's figure is what a click costs when its fragment draws next to nothing: issue 34 asks a
cell click, a β move and a replay step to cost at most 0.3 of a full rerun of their page, so their fragments
have 0.3 × (the page's full rerun) minus this floor for everything they draw. With --maps the fragment also
draws what a cell click must redraw at the least: two of this app's heatmaps (ui.charts.heatmap, 5 × 5,
the picked cell outlined, so that the outline follows in both), a caption and a one-line formula.

    python -m benchmarks.fragment_floor                 # 200 of each, medians and quartiles
    python -m benchmarks.fragment_floor --maps          # the fragment draws two maps and a formula too
    python -m benchmarks.fragment_floor --reruns 50     # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
from pathlib import Path

from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks import floor_app, servers
from benchmarks.wsclient import Tab
from harness import browser as bs

SETTLE_S = 0.03  # as benchmarks.hall: the server's last bookkeeping of a run

MINIMAL_APP = '''
"""Issue 34's floor: the frame's kinds of sidebar widget, a title, a line, and a fragment with a button (with
FLOOR_MAPS=1 in the environment, and two of the app's heatmaps, a caption and a formula: a cell click's least)."""
import os
import sys

import numpy as np
import streamlit as st

MAPS = os.environ.get("FLOOR_MAPS") == "1"
if MAPS:
    sys.path.insert(0, os.environ["FLOOR_APP_ROOT"])
    from ui import charts

with st.sidebar:
    st.selectbox("Preset", ["a", "b", "c"], key="preset")
    st.text_input("Tokens", "the cat sat on the mat", key="tokens")
    for i in range(4):
        st.slider(f"slider {i}", 0, 64, 8, key=f"slider{i}")
    st.number_input("Seed", 0, 10_000, 0, key="seed")
    for i in range(6):
        st.checkbox(f"switch {i}", key=f"switch{i}")
    for i in range(2):
        st.selectbox(f"picker {i}", ["x", "y"], key=f"picker{i}")
st.title("Floor")
st.markdown("One line of text.")


@st.fragment
def part():
    st.button("Press", key="press")
    st.markdown("One line in the fragment.")
    if MAPS:
        turn = st.session_state["turn"] = st.session_state.get("turn", -1) + 1
        pick = (turn % 5, (3 * turn) % 5)                     # another cell each click
        labels = [f"w{i}" for i in range(5)]
        raw = np.random.RandomState(0).standard_normal((5, 5))
        for title, values in (("raw", raw), ("scaled", raw / 2)):
            charts.heatmap(values, labels, labels, width=400, title=title, pick=pick, key=title)
        st.caption("One colour scale for both maps.")
        st.latex(r"s_{%d%d} = q_%d \\cdot k_%d" % (pick + pick))


part()
'''


def write_app() -> Path:
    """The minimal app as floor_app.py in a new temporary folder, with this project's Streamlit configuration."""
    return floor_app.write_floor(MINIMAL_APP, prefix="fragment-floor-")


async def measure(url: str, cpu: servers.Cpu, reruns: int) -> dict[str, list[float]]:
    """Alternating full and fragment reruns of one tab: each one's server CPU in ms."""
    tab = Tab(url, "", "")
    await tab.open()
    costs: dict[str, list[float]] = {"full": [], "fragment": []}
    try:
        for i in range(2 * reruns):
            kind = "full" if i % 2 == 0 else "fragment"
            state = WidgetState()
            if kind == "full":
                state.double_array_value.data[:] = [float(8 + (i // 2) % 5)]
                target = tab.set("slider0", state)
            else:
                state.trigger_value = True
                target = tab.set("press", state)
            before = cpu.seconds()
            run = await tab.run(target)
            await asyncio.sleep(SETTLE_S)
            if run.errors:
                raise RuntimeError(f"{kind} rerun: {run.errors}")
            if (kind == "fragment") != bool(run.fragment):
                raise RuntimeError(f"a {kind} rerun came back as {'a fragment' if run.fragment else 'a full'} run")
            costs[kind].append(1000 * (cpu.seconds() - before))
    finally:
        await tab.close()
    return costs


def summary(values: list[float]) -> str:
    q1, median, q3 = statistics.quantiles(values, n=4)
    return f"median {median:.1f} ms (quartiles {q1:.1f}–{q3:.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reruns", type=int, default=200, help="reruns of each kind")
    parser.add_argument("--maps", action="store_true", help="the fragment also draws two of the app's heatmaps")
    args = parser.parse_args()
    if args.reruns < 4:
        parser.error("--reruns must be at least 4")
    folder = write_app()
    os.environ.update(FLOOR_MAPS="1" if args.maps else "0", FLOOR_APP_ROOT=str(bs.ROOT))  # the server inherits them
    try:
        with bs.Server(app="floor_app.py", cwd=folder, log_name="fragment-floor.log") as server:
            costs = asyncio.run(measure(server.url, servers.Cpu(server.pid), args.reruns))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    drawn = "two heatmaps, a caption and a formula" if args.maps else "a button and a line"
    print(
        f"minimal app (its fragment: {drawn}), {args.reruns} of each, server CPU a rerun (the run and 30 ms after it):"
    )
    print(f"  full rerun (a sidebar slider)  {summary(costs['full'])}")
    print(f"  fragment rerun (its button)    {summary(costs['fragment'])}")
    print(f"  fragment / full {statistics.median(costs['fragment']) / statistics.median(costs['full']):.2f}")


if __name__ == "__main__":
    main()
