"""The Softmax weights page's parts: the weights at β, one row as bars, each row read, the worked cell."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import engine
import engine.attention
from engine import analysis
from services.handle import Handle
from ui import charts, compute
from ui.charts import attention_frames, memo
from ui.charts import attention_map as am
from ui.charts.attention_map import Panel
from ui.page import footer, layout, tables
from ui.poll import drawq
from ui.prose import rows as row_words
from ui.prose import stages
from ui.prose.numbers import spread as spread_cell
from ui.sections.cell import worked
from ui.sections.softmax import keys
from ui.shell import frame, session, state, url
from ui.shell.view import View


@frame.fragment
def draw(view: View) -> None:
    """Everything under the header, as one fragment: β released and the worked cell's selectors rerun only this; β
    being dragged redraws the map in the browser (beta_maps), and a pick on it runs nothing (the browser shows its
    worked calculation and writes it into the URL's cell=)."""
    t = compute.trace(view.model, view.words, view.layer)
    h, present = view.controls.head, view.present
    cell, beta = view.cell, view.controls.beta
    weights, rows = analysis.read_head(t, h, beta)  # (T, T) at β, each row read; the poll reads the same
    at = "" if beta == 1 else f" at β = {beta:g}"

    if drawq.hides(view):  # a student while the class draws this page's row: the answer would be on screen
        st.info(drawq.HIDDEN, icon=":material/draw:")
        return
    left, right = layout.columns(view, [3, 2])
    with left:
        beta_maps(view, t, h, cell, beta, width=left.width)
    with right:
        query = st.selectbox(
            "Query row to plot",
            range(t.T),
            format_func=lambda i: f"{i}: {t.labels[i]}",
            index=cell[0] if cell else 0,
            key=keys.QUERY,
        )
        charts.bars(
            weights[query],
            t.labels,
            title=f"weights of query {t.labels[query]!r}{at}, head {h}",
            highlight=rows[query].top if rows[query].kind == "lean" else None,
            present=present,
        )
    sums = pd.DataFrame(
        {
            "query": list(t.labels),
            "keys": [r.keys for r in rows],
            "row sum": weights.sum(axis=-1),
            "weight": [r.weight for r in rows],
            "uniform": [r.uniform for r in rows],
            "entropy (bits)": engine.attention.row_entropy(weights),
            "spread": [spread_cell(r.spread) for r in rows],
            "attends most to": [row_words.top_cell(r, t.labels) for r in rows],
        }
    )
    tables.table(sums, {"row sum": ".6f", "weight": ".4f", "uniform": ".4f", "entropy (bits)": ".3f"})
    st.caption(
        f"Each row{at}. weight: the row's largest weight; uniform: 1 ÷ the keys the row can see; entropy: 0 "
        "when one key takes everything, log₂(keys) when the row is uniform; spread: entropy ÷ log₂(keys), "
        "1 when every key gets the same weight; a row that sees one key has no spread (—)."
    )

    layout.notice(row_words.softmax_notice(rows, t.labels, beta=beta, trained=view.training is not None))
    if beta != 1:
        st.caption(f"A picked cell's worked calculation uses the model's β = 1, not the β = {beta:g} of the map above.")
    worked.show(t, h, cell)
    footer.exports(
        "softmax", t, {f"weights{at} head {h}": (weights, t.labels, t.labels)}, code=("softmax", "analysis.weights_at")
    )


def beta_maps(view: View, t: engine.Trace, h: int, cell: tuple[int, int] | None, beta: float, width: int) -> None:
    """The weights at every β of state.BETAS, sent once: the component's β control redraws the map as it moves
    (no run); released, it sets β (one run of this fragment; β travels in the link). A pick on the map shown first
    is answered in the browser with its worked calculation (the model's β = 1) and written into the link's cell=.
    The same model, text, head, β, pick, colour scale and size send the bytes made before (ui.charts.memo)."""
    made = lambda: am.encoded(_beta_payload(view, t, h, cell, beta, width))  # noqa: E731
    stretch = charts.colours.stretched()  # the colour scale (colours.weight_domain)
    at = ("beta", view.model.digest, repr(view.model.config), view.words, view.layer, h, cell, beta, stretch)
    at += (view.present, width)
    attention_frames.draw(memo.once(at, made), key=session.SOFTMAX_MAP, on_frame=_beta_released)


def _beta_payload(view: View, t: engine.Trace, h: int, cell: tuple[int, int] | None, beta: float, width: int):
    """The β maps' payload: the map at β with its worked cells, the other β's maps from _built."""
    start = state.BETAS.index(beta)
    frames: list = [None] * len(state.BETAS)  # the other β's maps are in `built`: this run reads none of them
    frames[start] = [_panel(t, h, view.layer, beta, compute.worked_cells(view.model, view.words, view.layer, h))]
    domain, built = _built(view.model, view.words, view.layer, h, charts.colours.stretched())
    return attention_frames.maps_payload(
        frames,
        t.labels,
        start=start,
        labels=[f"β = {b:g}" for b in state.BETAS],
        texts=[f"β = {b:g}" + (", the model" if b == 1 else "") for b in state.BETAS],
        values=[f"{b:g}" for b in state.BETAS],
        label="β, inverse temperature (1 = the model): multiplies every scaled score before the softmax, on "
        "this page only",
        param=url.URL_KEY.get(session.FIELD.beta, session.FIELD.beta),
        pick=None if cell is None else (0, *cell),
        present=view.present,
        link="cell",
        width=width,
        area=320,
        domain=domain,
        built=built,
    )


def _panel(t: engine.Trace, h: int, layer: int, beta: float, work: dict | None = None) -> Panel:
    """Head h's weights at one β of state.BETAS, as one frame's map (the worked cells on the frame shown first)."""
    at = "" if beta == 1 else f" at β = {beta:g}"
    title = f"weights{at}, head {h}{stages.where(t.config, layer)}: {t.T} × {t.T}"
    return Panel(analysis.read_head(t, h, beta)[0], title, t.mask, work=work)


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=compute.KEYS)
def _built(model: Handle, words: tuple[str, ...], layer: int, head: int, stretch: bool):
    """The β frames' colour scale and maps as the component reads them, built once per model, text, head and colour
    stretch (the scale: colours.weight_domain reads it): a released β reruns this page's fragment, which re-sends
    them without rebuilding them (issue 49)."""
    t = compute.trace(model, words, layer)
    frames = [[_panel(t, head, layer, b)] for b in state.BETAS]
    domain = attention_frames.domain_of(frames, signed=False)
    return domain, attention_frames.map_frames(frames, t.labels, domain)


def _beta_released() -> None:
    """The β control rested on a value (its callback, before the fragment's run): β set, so the run reads it."""
    frame = attention_frames.frame_of(session.SOFTMAX_MAP)
    if frame is not None and 0 <= frame < len(state.BETAS):
        session.set_raw(session.FIELD.beta, state.BETAS[frame])
