"""The foot of every page: its numbers to download, its charts as figures for slides, the engine's code."""

from __future__ import annotations

import importlib
import inspect
import io
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np
import streamlit as st

from ui.page import figures
from ui.shell import session, view
from ui.shell.lazy import opened


def _csv(matrices: dict[str, tuple[np.ndarray, Sequence[str], Sequence[str]]]) -> Callable[[], str]:
    def build() -> str:
        import pandas as pd

        out = io.StringIO()
        for name, (matrix, rows, cols) in matrices.items():
            out.write(f"# {name}\n")
            pd.DataFrame(np.asarray(matrix), index=list(rows), columns=list(cols)).to_csv(out)
            out.write("\n")
        return out.getvalue()

    return build


def _npz(trace) -> Callable[[], bytes]:
    def build() -> bytes:
        out = io.BytesIO()
        np.savez_compressed(out, labels=np.array(trace.labels), **trace.arrays())
        return out.getvalue()

    return build


@lru_cache(maxsize=64)
def _source(name: str) -> str:
    """The source of the engine function a page names ("block_forward", "analysis.extend")."""
    where, _, what = name.rpartition(".")
    return inspect.getsource(getattr(importlib.import_module("engine" + (f".{where}" if where else "")), what))


def exports(
    slug: str, trace, matrices: dict[str, tuple[np.ndarray, Sequence[str], Sequence[str]]], code: Sequence[str] = ()
) -> None:
    """Download this page's matrices (CSV) and the whole trace (.npz), save its charts as figures,
    show the engine's code (functions named under engine: "forward", "analysis.extend"): each behind an
    expander, drawn once opened."""
    if view.current().present:
        return
    if box := opened(
        "Download these numbers, save figures for slides", session.export_key(slug), icon=":material/download:"
    ):
        with box:
            left, right, _ = st.columns([1, 1, 2])
            left.download_button(
                "Matrices (CSV)",
                _csv(matrices),
                file_name=f"attention-lab-{slug}.csv",
                mime="text/csv",
                key=session.download_key("csv", slug),
                icon=":material/table:",
                on_click="ignore",
            )
            right.download_button(
                "Whole trace (.npz)",
                _npz(trace),
                file_name="attention-lab-trace.npz",
                mime="application/octet-stream",
                key=session.download_key("npz", slug),
                icon=":material/download:",
                on_click="ignore",
            )
            figures.panel(slug)
    if code and (box := opened("Show the NumPy code for this step", session.code_key(slug), icon=":material/code:")):
        with box:
            for name in code:
                st.code(_source(name), language="python")


class StackArrays:
    """Every layer's arrays of a stack, for the exports: the .npz (names prefixed layer0_, layer1_ …)
    and every head's weights as CSV."""

    def __init__(self, stack) -> None:
        self.labels = stack.labels
        self.layers = stack.layers

    def arrays(self) -> dict[str, np.ndarray]:
        return {f"layer{t.layer}_{name}": a for t in self.layers for name, a in t.arrays().items()}

    def weights(self) -> dict:
        return {
            f"weights layer {t.layer} head {h}": (t.weights[h], self.labels, self.labels)
            for t in self.layers
            for h in range(t.num_heads)
        }
