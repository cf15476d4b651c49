"""A lecture hall's mix of interactions: which page and preset each student is on (a station), what it
does in turn (its plan), and how each kind of interaction changes a widget, as a student's hand would.

Kinds: `sidebar` (a sidebar control moved: sequence length, d_model, d_ff, the seed; at a trained preset,
where other sizes would train a new model, the sequence length, the head and the layer), `cell` (a click
on a heatmap cell: the scores and softmax maps, ui.shell.CELL_CHARTS; free where the browser answers it),
`beta` (the softmax page's β: its select slider, or since issue 49 the map's own scrubber, which sends one
event when let go), `knockout` (the model view's knock-out multiselect), `exercise` (the exercise's choices in
turn: a prediction, "Check my prediction", a twist switched), `train` (the Learn page's Train button, once per
student: it replays the shipped run) and `replay` (the Learn page's replay: a select slider, or the replay's
scrubber let go).

Every page is a station at the defaults and at ?preset=trained-induction (with layer=1 on the one-block
pages). Students are handed stations in a cycle of 12: the 8 stations with in-page interactions (scores,
softmax, model, exercise; both presets), whose students alternate an in-page interaction and a sidebar
move, the 2 Learn stations (Train, then replay steps; its sidebar only has training controls), and 2
students on the pages without in-page interactions, which take turns (sidebar moves only). So the mix is
half sidebar moves and half in-page interactions, and 60 students cover every station.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from streamlit.proto.WidgetStates_pb2 import WidgetState

from ui.shell import site

TRAINED = "preset=trained-induction"
# The widget keys the hall changes, as strings: the same in every checkout it is run against (each checkout
# declares them in its own modules).
SEQ_LEN, D_MODEL, D_FF, SEED, HEAD, LAYER, BETA, ABLATE = (
    "seq_len",
    "d_model",
    "d_ff",
    "seed",
    "head",
    "layer",
    "beta",
    "ablate",
)
CELL_CHARTS = ("scores_raw", "scores_scaled", "scores_maps", "softmax_map")  # Vega charts before issue 49, then maps
BROWSER = "answered in the browser"  # a hand's answer for an interaction that sends nothing (tests/test_map_picks.py)
LEARN_STEP, LEARN_TRAIN = "learn_step", "learn_train"
EX_REVEAL, EX_PREDICTION, EX_TWIST = "ex_reveal", "ex_prediction", ("ex_twist_causal", "ex_twist_positions")
SIDEBAR_KEYS = {"defaults": (SEQ_LEN, D_MODEL, D_FF, SEED), "trained": (SEQ_LEN, HEAD, LAYER)}
IN_PAGE = {
    "scores": ("cell",),
    "softmax": ("cell", "beta"),
    "model": ("knockout",),
    "exercise": ("exercise",),
    "learn": ("replay",),
}
KINDS = ("sidebar", "cell", "beta", "knockout", "exercise", "train", "replay")
EXERCISE_TURNS = ("predict", "reveal", "twist", "predict", "reveal", "twist")


@dataclass(frozen=True)
class Station:
    page: str  # the page's URL path ("": the default page, at the root URL)
    preset: str  # "defaults" or "trained"
    query: str
    in_page: tuple[str, ...]  # in-page kinds, in turn
    sidebar: tuple[str, ...]  # the sidebar widgets a move may change
    cells: tuple[str, ...]  # the page's cell-pick charts

    file: str  # pages/<path>.py

    @property
    def name(self) -> str:
        return f"/{self.file[len('pages/') : -len('.py')]} {self.preset}"


def stations() -> list[Station]:
    """Every page (ui.shell.site's list) at the defaults and at the trained induction preset."""
    found = []
    for preset in ("defaults", "trained"):
        for page in site.PAGES:
            query = "" if preset == "defaults" else TRAINED + ("&layer=1" if page.concept else "")
            found.append(
                Station(
                    "" if page is site.PAGES[0] else page.path,
                    preset,
                    query,
                    IN_PAGE.get(page.path, ()),
                    () if page.trains else SIDEBAR_KEYS[preset],
                    CELL_CHARTS if "cell" in IN_PAGE.get(page.path, ()) else (),  # whichever the checkout draws
                    page.file,
                )
            )
    return found


# The floor app's one station (benchmarks.floor_app: one sidebar slider, seq_len, and one heatmap): its students
# only move the slider.
FLOOR = Station("", "floor", "", (), (SEQ_LEN,), (), "pages/floor_app.py")


def assign(students: int) -> list[Station]:
    """The station of each student, in the cycle of 12 (see the module's doc)."""
    every = stations()
    busy = [s for s in every if s.in_page]  # 10: 8 in-page stations + 2 Learn
    plain = {preset: [s for s in every if not s.in_page and s.preset == preset] for preset in ("defaults", "trained")}
    quiet = [
        plain["defaults" if i % 2 == 0 else "trained"][i % len(plain["defaults"])]  # presets and pages in turn
        for i in range(2 * len(plain["defaults"]))
    ]
    cycle = len(busy) + 2
    chosen = []
    for i in range(students):
        slot = i % cycle
        chosen.append(busy[slot] if slot < len(busy) else quiet[(2 * (i // cycle) + slot - len(busy)) % len(quiet)])
    return chosen


def plan(station: Station, moves: int, nth: int) -> list[str]:
    """A student's interactions, in order: `moves` of them (Learn: Train first, then replay steps)."""
    if not station.in_page:
        return ["sidebar"] * moves
    if not station.sidebar:
        return ["train"] + [station.in_page[0]] * (moves - 1)
    kinds = station.in_page
    return [kinds[(i // 2 + nth) % len(kinds)] if i % 2 == 0 else "sidebar" for i in range(moves)]


# ------------------------------------------------------------------------------- a student's hand
def _other(options, current, rng: random.Random):
    choices = [o for o in options if o != current]
    return rng.choice(choices) if choices else None


def _state(**value) -> WidgetState:
    state = WidgetState()
    for name, v in value.items():
        if name.endswith("_array_value"):
            getattr(state, name).data.extend(v)
        else:
            setattr(state, name, v)
    return state


def sidebar(tab, station: Station, rng: random.Random, turn: int = 0):
    """Move one of the station's sidebar controls a little (a slider ±1–3, a picker to another option)."""
    keys = [k for k in station.sidebar if tab.widget(k) is not None]
    if not keys:
        return None
    key = rng.choice(keys)
    drawn, state = tab.widget(key), tab.state(key)
    proto = drawn.proto
    if drawn.kind == "selectbox":
        option = _other(list(proto.options), state.string_value if state else None, rng)
        return None if option is None else (key, _state(string_value=option))
    step = rng.choice([-3, -2, -1, 1, 2, 3])
    if drawn.kind == "slider":
        now = int(state.double_array_value.data[0])
        new = now + step if proto.min <= now + step <= proto.max else now - step
        return key, _state(double_array_value=[float(new)])
    now = state.int_value if state.WhichOneof("value") == "int_value" else int(state.double_value)
    low, high = (proto.min if proto.has_min else 0), (proto.max if proto.has_max else now + 3)
    new = now + step if low <= now + step <= high else now - step
    return key, _state(int_value=int(new))


def cell(tab, station: Station, rng: random.Random, turn: int = 0):
    """Click a cell of one of the page's cell-pick maps (its T × T cells; on or below the diagonal, which a
    causal mask never hides). On an attention-map component (issue 49) the browser answers it: BROWSER, no run."""
    keys = [k for k in station.cells if tab.widget(k) is not None]
    if any(tab.widget(k).kind == "bidi_component" for k in keys):
        return BROWSER
    slider = tab.state(SEQ_LEN)
    if not keys or slider is None:
        return None
    size = int(slider.double_array_value.data[0])
    row = rng.randrange(size)
    picked = {"selection": {"cell": [{"r": row, "c": rng.randrange(row + 1)}]}}
    return rng.choice(keys), _state(string_value=json.dumps(picked))


def _option(tab, key: str, rng: random.Random, array: bool):
    drawn = tab.widget(key)
    if drawn is None:
        return None
    state = tab.state(key)
    current = (
        (list(state.string_array_value.data) or [None])[0]
        if state and array
        else (state.string_value if state else None)
    )
    option = _other(list(drawn.proto.options), current, rng)
    if option is None:
        return None
    return key, _state(string_array_value=[option]) if array else _state(string_value=option)


# A Components v2 component's events reach the server through one trigger widget per element (Streamlit 1.67,
# streamlit/components/v2/bidi_component/main.py: _make_trigger_id(element id, "events")), a JSON list of events.
EVENTS_ID = "$$STREAMLIT_INTERNAL_KEY_{}__events"
SOFTMAX_MAP, LEARN_GRID = "softmax_map", "learn_grid"  # the components whose scrubber sends a rested frame


def frame_rest(tab, key: str, rng: random.Random):
    """A scrubber of the attention-map component let go on another frame (issue 49: β, the Learn page's replay):
    dragging sends nothing (the browser redraws), the rest sends one `frame` event, as the browser would."""
    drawn = tab.widget(key)
    if drawn is None or drawn.kind != "bidi_component" or drawn.proto.WhichOneof("data") != "bytes":
        return None
    data = json.loads(drawn.proto.bytes.decode("utf-8"))
    if not data.get("frames"):
        return None
    frame = _other(range(len(data["frames"])), data.get("frame"), rng)
    if frame is None:
        return None
    event = json.dumps([{"event": "frame", "value": frame}])
    return key, _state(id=EVENTS_ID.format(drawn.proto.id), json_trigger_value=event)


def beta(tab, station: Station, rng: random.Random, turn: int = 0):
    """β moved: the page's select slider (before issue 49), else the map's own β scrubber let go."""
    return _option(tab, BETA, rng, array=True) or frame_rest(tab, SOFTMAX_MAP, rng)


def replay(tab, station: Station, rng: random.Random, turn: int = 0):
    """A replay step: the select slider (before issue 49), else the replay's scrubber let go."""
    return _option(tab, LEARN_STEP, rng, array=True) or frame_rest(tab, LEARN_GRID, rng)


def knockout(tab, station: Station, rng: random.Random, turn: int = 0):
    """Knock a head out, or put one back (at most two out at once)."""
    drawn = tab.widget(ABLATE)
    if drawn is None:
        return None
    state = tab.state(ABLATE)
    options = list(drawn.proto.options)
    chosen = [o for o in (state.string_array_value.data if state else []) if o in options]
    free = [o for o in options if o not in chosen]
    if chosen and (len(chosen) >= 2 or not free or rng.random() < 0.4):
        chosen.remove(rng.choice(chosen))
    else:
        chosen.append(rng.choice(free))
    return ABLATE, _state(string_array_value=chosen)


def train(tab, station: Station, rng: random.Random, turn: int = 0):
    drawn = tab.widget(LEARN_TRAIN)
    return None if drawn is None else (LEARN_TRAIN, _state(trigger_value=True))


def exercise(tab, station: Station, rng: random.Random, turn: int = 0):
    """The exercise's choices in turn: predict, check the prediction, switch a twist (each needs the one
    before it on the page: a reveal needs a prediction, a twist a revealed result)."""
    want = EXERCISE_TURNS[turn % len(EXERCISE_TURNS)]
    reveal = tab.widget(EX_REVEAL)
    if want == "reveal" and reveal is not None and not reveal.proto.disabled:
        return EX_REVEAL, _state(trigger_value=True)
    if want == "twist":
        key = rng.choice(list(EX_TWIST))
        drawn, state = tab.widget(key), tab.state(key)
        if drawn is not None:
            return key, _state(bool_value=not (state.bool_value if state else False))
    return _option(tab, EX_PREDICTION, rng, array=False)


HANDS = {
    "sidebar": sidebar,
    "cell": cell,
    "beta": beta,
    "knockout": knockout,
    "train": train,
    "replay": replay,
    "exercise": exercise,
}
