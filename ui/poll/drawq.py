"""Draw your prediction, the presenter's side and the hide rule (issue 51).

* ask: on the Softmax weights page, "Draw where row i's weight goes" for the row and head the page shows, its
  true row (at the page's β), layer, head, row and key labels frozen into the question when asked
  (services/poll/drawn.py refuses a row of more than 16 keys, or of one);
* overlay: the class's mean and interquartile range per key over the true row, with the share of students
  within total-variation distance drawn.TV_WITHIN of it and the median distance (drawn.summary computes them);
* hides: a student's pages that draw the sidebar model's weights (HIDING: Softmax weights, Per-head maps, Scaled
  scores with its worked cell's softmax share, the model view, the exercise's maps) hide them (maps, numbers,
  worked cell) while a drawn question is open."""

from __future__ import annotations

import streamlit as st

from engine import analysis
from services.poll import drawn
from services.poll.codes import PollError, Question
from ui import compute
from ui.charts import colours as co
from ui.charts import spec as sp
from ui.page import tables
from ui.poll import participant, room
from ui.poll.asking import step_qid, who
from ui.poll.db import store
from ui.prose.numbers import count, fmt
from ui.shell import session

PAGE = "softmax"  # the page a drawn question is asked on
# The pages that hide their weights from a student while one is open: every page that draws the sidebar model's
# weights or a worked cell (its softmax share). Experiments vary a setting and Learn trains its own model: not these.
HIDING = (PAGE, "heads", "scores", "model", "exercise")
QID = "softmax:draw"  # its id in the room (with a lesson step: 'softmax:draw@5')
TITLE = "draw the row"
ASK = "poll_ask_draw"
OVERLAY = "poll_draw_overlay"  # the presenter's overlay (a container)


def question(view) -> tuple[str, dict]:
    """The drawn question at the view: its prompt and frozen truth (PollError with the reason if not askable)."""
    t = compute.trace(compute.model_of(view), view.words, view.layer)
    return row_question(t, view.controls.head, view.cell[0] if view.cell else t.T - 1, view.controls.beta)


def row_question(t, head: int, q: int, beta: float = 1.0) -> tuple[str, dict]:
    """Row q of one head at β (the page's own weights, analysis.read_head) over the keys it sees, frozen."""
    weights = analysis.read_head(t, head, beta)[0]
    columns = [j for j in range(t.T) if t.visible[q, j]]
    frozen = drawn.freeze(
        [weights[q, j] for j in columns],
        [t.labels[j] for j in columns],
        layer=t.layer,
        head=head,
        query=q,
        query_label=t.labels[q],
        beta=beta,
        columns=columns,
    )
    at = "" if beta == 1 else f" at β = {beta:g}"
    prompt = (
        f"{who(t, head)}, query row {q} ({t.labels[q]}){at}: draw where its weight goes, one bar per key it sees "
        "(the bars sum to 1)."
    )
    return prompt, frozen


def paired(qid: str) -> str:
    """The drawn question's id next to a page question's ('softmax@5' -> 'softmax:draw@5')."""
    page, at, step = qid.partition("@")
    return f"{QID}{at}{step}" if page == PAGE else qid


def ask_button(link, view, step: int | None) -> None:
    """The presenter's second button on the Softmax weights page, or why the row cannot be drawn."""
    if view.page.path != PAGE:
        return
    try:
        _, frozen = question(view)
    except PollError as why:
        st.caption(str(why))
        return
    st.button(
        f"Ask: draw where row {frozen['query']}'s weight goes",
        key=ASK,
        on_click=_ask,
        args=(link, view, step),
        icon=":material/draw:",
    )


def _ask(link, view, step: int | None) -> None:
    view = session.latest_view(view)
    try:
        prompt, frozen = question(view)
        here = room.here(view.page.path, view.controls)
        qid = step_qid(QID, step)
        drawn.ask(store(), link.room, link.key, qid, prompt, frozen, here["page"], here["params"])
        room.count_down(link, qid)  # the panel's countdown, as a picked question's
    except PollError as err:
        participant.say(str(err))
    room.forget(link.room)


def hides(view) -> bool:
    """A student in a room with a drawn question open (not revealed): the page hides the weights."""
    link = participant.link()
    if not link.student or view.page.path not in HIDING:
        return False
    now = room.current(link.room)
    try:
        asked = room.questions(link.room, None if now is None else now.rev)
    except PollError:
        return False
    return any(q.kind == drawn.KIND and not q.revealed for q in asked)


HIDDEN = (
    "This page's attention weights, their numbers and the worked cell are hidden while the class draws its "
    "prediction: they come back when the presenter reveals the answer."
)


def overlay(q: Question, counts: dict[str, int], present: bool) -> None:
    """The true row as bars, the class's mean (dots) and interquartile range (lines) on it, and the closeness."""
    import pandas as pd  # here: a page's first draw does without pandas (tests/test_first_page.py)

    keys, true = q.frozen["keys"], q.frozen["row"]
    s = drawn.summary(true, drawn.from_counts(counts))
    rows = pd.DataFrame({"key": keys, "true": true})
    if s is not None:
        rows = rows.assign(mean=s.mean, q1=s.q1, q3=s.q3)
    with st.container(key=OVERLAY):
        st.markdown(summary_text(s))  # the app's own words and numbers only
        st.vega_lite_chart(spec=_spec(rows, present, s is not None), width="stretch")
        shown = rows.rename(columns={"q1": "25th pct", "q3": "75th pct"})
        tables.table(shown, dict.fromkeys(shown.columns[1:], ".2f"))


def summary_text(s) -> str:
    if s is None:
        return "No drawn row yet."
    near = round(s.within * s.n)
    return (
        f"{count(s.n, 'answer')}. Bars: the true row; dots: the class's mean per key; lines: the middle half of "
        f"the class (25th to 75th percentile). {near} of {s.n} ({fmt(100 * s.within, '.0f')}%) drew a row within "
        f"total-variation distance {fmt(drawn.TV_WITHIN, '.1f')} of the true row; the median distance is "
        f"{fmt(s.median_tv, '.2f')}."
    )


def _spec(rows, present: bool, answered: bool) -> dict:
    size = sp.font(present)
    y = {"field": "key", "type": "nominal", "sort": None, "title": None, "axis": {"labelFontSize": size}}
    x = {"type": "quantitative", "title": "weight", "scale": {"domain": [0, 1]}}
    layers = [
        {"mark": {"type": "bar", "color": co.BAR_REST, "opacity": 0.55}, "encoding": {"x": {**x, "field": "true"}}}
    ]
    if answered:
        layers += [
            {
                "mark": {"type": "rule", "color": co.BAR_TOP, "strokeWidth": 3},
                "encoding": {"x": {**x, "field": "q1"}, "x2": {"field": "q3"}},
            },
            {
                "mark": {"type": "point", "filled": True, "size": 90, "color": co.BAR_TOP},
                "encoding": {"x": {**x, "field": "mean"}},
            },
        ]
    return {
        "data": {"values": rows.to_dict("records")},
        "height": max(120, 30 * len(rows)),
        "autosize": {"type": "fit-x", "contains": "padding"},  # fit the width, keep the height
        "encoding": {"y": y},
        "layer": layers,
        "description": "The true row as bars"
        + ("; the class's mean per key as dots and the 25th to 75th percentile as lines." if answered else "."),
    }
