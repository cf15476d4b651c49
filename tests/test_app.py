"""The dashboard under AppTest: every page runs, shows the engine's numbers, and survives bad input."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import engine
from conftest import PAGES, assert_clean, attention_maps, formulas, open_app, open_exports, open_switches, tables
from ui.charts import map_texts
from ui.shell import session, site, state, url

CONCEPT_PAGES = [page.file for page in site.CONCEPT_PAGES]

EXTREMES = [
    {},  # part4 defaults
    {"preset": "day33"},
    {"seq_len": "64", "d_model": "128", "heads": "16", "d_ff": "512", "seed": "10000"},
    {"seq_len": "2", "d_model": "4", "heads": "1", "d_ff": "4", "seed": "0"},
    {"d_model": "4", "heads": "4", "causal": "1", "positional": "1", "scale": "0"},
    {"preset": "day33", "seq_len": "64", "causal": "1", "head": "0"},
]


@pytest.mark.parametrize("page", CONCEPT_PAGES)
@pytest.mark.parametrize("params", EXTREMES, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults")
def test_every_page_runs_at_defaults_presets_and_extremes(page, params):
    at = open_app(page, params)
    assert_clean(at)
    assert at.title, "the page drew nothing"
    assert any("What to notice" in s.value for s in at.success), "every page ends with a 'what to notice' line"


def infos(at) -> str:
    """Every info box's text as a student reads it (Markdown escapes removed)."""
    return " | ".join(i.value.replace("\\", "") for i in at.info)


def _controls(at) -> dict:
    return {
        key: at.session_state[key]
        for key in (
            "preset",
            "d_model",
            "heads",
            "d_ff",
            "seed",
            "seq_len",
            "text",
            "causal",
            "positional",
            "scale",
            "head",
        )
    }


def test_sidebar_sliders_move_to_their_extremes_without_exceptions():
    at = open_app(site.file("scores"))
    for key, low, high in (("seq_len", *state.SEQ_LEN), ("d_model", *state.D_MODEL), ("d_ff", *state.D_FF)):
        for value in (high, low):
            at.slider(key=key).set_value(value).run()
            assert_clean(at)
            assert at.session_state[key] == value
    at.number_input(key="seed").set_value(state.SEED[1]).run()
    assert_clean(at)
    for value in reversed(state.head_choices(at.session_state["d_model"])):
        at.select_slider(key="heads").set_value(value).run()
        assert_clean(at)


def test_changing_d_model_picks_the_nearest_valid_head_count_and_says_so():
    at = open_app(site.file("scores"))
    at.slider(key="d_model").set_value(96).run()
    at.select_slider(key="heads").set_value(12).run()
    assert at.session_state["heads"] == 12
    at.slider(key="d_model").set_value(100).run()  # 12 does not divide 100
    assert_clean(at)
    assert at.session_state["heads"] == 10  # divisors of 100 up to 16: 1 2 4 5 10
    assert "12 heads do not divide d_model=100; using 10 heads instead." in infos(at)


def test_heads_widget_offers_only_divisors():
    at = open_app()
    at.slider(key="d_model").set_value(12).run()
    assert list(at.select_slider(key="heads").options) == ["1", "2", "3", "4", "6", "12"]


def test_preset_sets_every_control_and_pages_show_the_articles_numbers():
    at = open_app(site.file("softmax"))
    at.slider(key="d_model").set_value(40).run()
    at.selectbox(key="preset").set_value("day33").run()
    assert_clean(at)
    c = state.preset_controls("day33")
    assert _controls(at) == {k: getattr(c, k) for k in _controls(at)}
    # The softmax page's table holds each row's strongest weight: compare with the article's matrix.
    golden = engine.run_preset("day33").layers[0].weights[0]
    table = tables(at)[0]
    assert list(table["row sum"]) == [f"{x:.6f}" for x in golden.sum(axis=1)]  # printed with 6 decimals
    np.testing.assert_allclose(table["weight"].astype(float), golden.max(axis=1), atol=5e-5)  # 4 decimals
    # Day 33's rows are within a few percent of uniform: no key is named as the one attended to most.
    assert set(table["attends most to"]) == {"none\\: spread evenly"}


def test_sidebar_draws_the_switches_once_opened_and_a_picker_only_with_a_choice():
    at = open_app()
    toggles = lambda: [t.key for t in at.sidebar.toggle]  # noqa: E731
    pickers = lambda: [s.key for s in at.sidebar.selectbox]  # noqa: E731
    assert toggles() == ["present"] and pickers() == ["preset", "head"]  # 2 heads, 1 layer, switches shut
    open_switches(at).toggle(key="causal").set_value(True).run()
    assert toggles() == ["causal", "positional", "scale", "layer_norm", "stretch", "present"]
    at.session_state["switches_open"] = False
    at.run()
    assert_clean(at)
    assert toggles() == ["present"] and at.session_state["causal"] is True  # shut, and still on
    assert dict(at.query_params) == {"causal": "1"}
    assert len(tables(at)) == 1  # the tokens; the stages once opened
    at.session_state["stages_open"] = True
    at.run()
    assert any("causal mask" in step for step in tables(at)[-1]["what happens"])  # the block masks
    at.slider(key="layers").set_value(2).run()
    assert pickers() == ["preset", "head", "layer"]
    at.selectbox(key="layer").set_value(1).run()
    assert_clean(at)
    assert at.session_state["layer"] == 1 and at.query_params["layer"] == "1"
    at.slider(key="layers").set_value(1).run()  # its picker goes; the layer is 0 again
    assert pickers() == ["preset", "head"] and at.session_state["layer"] == 0 and "layer" not in at.query_params
    one_head = open_app(params={"preset": "day33"})
    assert [s.key for s in one_head.sidebar.selectbox] == ["preset"] and one_head.session_state["head"] == 0
    linked = open_app(params={"causal": "1"})  # a link that sets a switch shows them
    assert [t.key for t in linked.sidebar.toggle][:4] == ["causal", "positional", "scale", "layer_norm"]
    assert linked.toggle(key="causal").value is True


def test_widget_values_persist_across_page_switches():
    at = open_app(site.file("qkv"))
    at.slider(key="seq_len").set_value(7).run()
    at.slider(key="d_model").set_value(24).run()
    at.select_slider(key="heads").set_value(3).run()
    open_switches(at).toggle(key="causal").set_value(True).run()
    at.text_input(key="text").set_value("one two three").run()
    before = _controls(at)
    for page in [site.file(p) for p in ("scores", "softmax", "heads", "output", "inputs")]:
        at.switch_page(page).run()
        assert_clean(at)
        assert _controls(at) == before, page


@pytest.mark.parametrize(
    "text, expect",
    [
        ("<script>alert(1)</script>", None),
        ("x" * 5000, None),
        ("🙂 emoji 👩‍🔬 and ünïcödé \u202eevil", None),
        ("", "The token box is empty"),
        ("   \t  ", "The token box is empty"),
        (" ".join(f"w{i}" for i in range(300)), "Cut to the first"),
    ],
)
def test_hostile_token_text_gives_a_message_or_a_cut_sequence(text, expect):
    at = open_app(site.file("softmax"))
    at.text_input(key="text").set_value(text[: state.MAX_TEXT]).run()
    assert_clean(at)
    if expect:
        assert expect in infos(at)
    labels = tables(at)[0]["query"].tolist()
    assert len(labels) == at.session_state["seq_len"]
    assert all(len(label) <= 40 for label in labels)


def test_html_token_text_is_escaped_in_markdown():
    at = open_app(
        site.file("softmax"),
        {
            "text": "<img src=x onerror=alert(1)> [a](javascript:alert(1)) $x$",
            "seq_len": "5",
            "d_model": "128",
            "heads": "1",
        },
    )  # rows that lean: labels named
    assert_clean(at)
    notice = next(s.value for s in at.success if "What to notice" in s.value)
    assert "\\<img" in notice and not re.search(r"(?<!\\)[<>\[\]$]", notice.split("**", 2)[2])
    assert "\\[a\\]" in notice and "\\$x\\$" in notice
    # st.table reads Markdown in its cells: the softmax table holds every label escaped, never raw.
    shown = tables(at)[0]["query"].tolist()
    assert shown == [
        "\\<img",
        "src\\=x",
        "onerror\\=alert\\(1\\)\\>",
        "\\[a\\]\\(javascript\\:alert\\(1\\)\\)",
        "\\$x\\$",
    ]


# --------------------------------------------------------------------------- URL round trips (issue 5)
def test_url_params_set_every_control():
    params = {
        "preset": "day33",
        "d_model": "12",
        "heads": "3",
        "d_ff": "40",
        "seed": "7",
        "seq_len": "6",
        "text": "a b c",
        "causal": "1",
        "positional": "1",
        "scale": "0",
        "head": "2",
        "cell": "4,1",
        "present": "1",
    }
    at = open_app(site.file("scores"), params)
    assert_clean(at)
    assert _controls(at) == {
        "preset": "day33",
        "d_model": 12,
        "heads": 3,
        "d_ff": 40,
        "seed": 7,
        "seq_len": 6,
        "text": "a b c",
        "causal": True,
        "positional": True,
        "scale": False,
        "head": 2,
    }
    assert at.session_state["cell"] == (4, 1) and at.session_state["present"] is True
    # ... and the app writes the same view back into the URL.
    assert dict(at.query_params) == params


def test_moving_a_slider_writes_the_url():
    at = open_app(None, {"seed": "7"})
    at.slider(key="d_model").set_value(32).run()
    assert dict(at.query_params) == {"d_model": "32", "seed": "7"}
    at.selectbox(key="preset").set_value("day33").run()  # a preset resets to its defaults
    assert dict(at.query_params) == {"preset": "day33"}


def test_round_trip_controls_to_params_and_back():
    c = state.Controls(
        preset="part4",
        d_model=32,
        heads=8,
        d_ff=64,
        seed=3,
        seq_len=9,
        text="x <b>y</b> z",
        causal=True,
        positional=True,
        scale=False,
        head=5,
        cell=(8, 0),
        present=True,
        beta=0.25,
    )
    back, problems = url.from_params(url.to_params(c))
    assert back == c and problems == []
    assert url.to_params(state.preset_controls("day33")) == {"preset": "day33"}


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"d_model": "abc"}, "d_model='abc' is not valid"),
        ({"d_model": "100000"}, "d_model='100000' is not valid"),
        ({"heads": "-1"}, "heads='-1' is not valid"),
        ({"seq_len": "1e9"}, "seq_len='1e9' is not valid"),
        ({"preset": "gpt5"}, "preset='gpt5' is unknown"),
        ({"cell": "1;2"}, "cell='1;2' is not valid"),
        ({"causal": "maybe"}, "causal='maybe' is not valid"),
        ({"heads": "5"}, "5 heads do not divide d_model=16; using 4 heads instead"),
        ({"cell": "9,9"}, "The picked cell (9, 9) is gone"),
        ({"head": "7"}, "There is no head 7"),
    ],
)
def test_malformed_url_params_fall_back_with_a_notice(params, fragment):
    at = open_app(None, params)  # the notice shows on the run that reads the URL
    assert_clean(at)
    assert fragment in infos(at)
    defaults = state.preset_controls("part4")
    for key in ("d_model", "seq_len", "preset"):
        if key in params and key not in ("heads",):
            assert at.session_state[key] == getattr(defaults, key)


# --------------------------------------------------------------------------- cell inspector (issue 5)
@pytest.mark.parametrize("page", [site.file("scores"), site.file("softmax")])
@pytest.mark.parametrize("preset, head, cell", [("part4", 1, (2, 3)), ("day33", 0, (4, 0)), ("part4", 0, (0, 0))])
def test_cell_inspector_shows_the_traces_numbers(page, preset, head, cell):
    at = open_app(page, {"preset": preset})
    at.session_state["head"] = head
    at.session_state["cell"] = cell
    at.run()
    assert_clean(at)
    t = engine.run_preset(preset).layers[0]
    i, j = cell
    assert any(f"Worked cell: query {i} → key {j}, head {head}" in s.value for s in at.subheader)
    maps = attention_maps(at)
    assert maps[0]["data"]["pick"][1:] == [i, j]  # the server's pick, shown by the map's panel
    work = maps[-1]["data"]["works"][0]
    assert work["row"]["q"][i].split("|") == [map_texts.factor(x) for x in t.q[head, i]]
    assert work["col"]["k"][j].split("|") == [map_texts.factor(x) for x in t.k[head, j]]
    assert work["cell"]["dot"].split("|")[i * t.T + j] == map_texts.number(t.scores[head, i, j])
    latex = formulas(at)
    assert f"{t.weights[head, i, j]:.5f}" in latex
    flow = next(d for d in tables(at) if any(c.startswith("weight × v") for c in d.columns))
    assert list(flow.iloc[:, 2]) == [f"{x:.5f}" for x in t.weights[head, i, j] * t.v[head, j]]
    assert list(flow.iloc[:, 3]) == [f"{x:.5f}" for x in t.heads[head, i]]


def test_cell_inspector_under_the_mask_says_the_weight_is_zero():
    at = open_app(site.file("scores"), {"causal": "1", "cell": "0,3"})
    assert_clean(at)
    assert any("hides key 3 from query 0" in w.value for w in at.warning)


def test_picked_cell_survives_slider_changes_and_is_cleared_when_gone():
    at = open_app(site.file("scores"), {"cell": "3,2", "seq_len": "5"})
    at.slider(key="d_model").set_value(32).run()
    assert at.session_state["cell"] == (3, 2)
    at.slider(key="seq_len").set_value(3).run()
    assert_clean(at)
    assert at.session_state["cell"] is None
    assert "The picked cell (3, 2) is gone" in infos(at)


def test_projection_inspector_matches_the_trace():
    at = open_app(site.file("qkv"))
    at.session_state["qkv_entry"] = ("V", 3, 12)
    at.run()
    assert_clean(at)
    t = engine.run_preset("part4").layers[0]
    table = tables(at)[-1]
    assert table["running sum"].iloc[-1] == f"{t.v[1, 3, 4]:.5f}"


# --------------------------------------------------------------------------- presenter view (issue 5)
def test_presenter_view_hides_prose_and_steps_through_pages_in_order():
    at = open_app(None, {"present": "1"})
    assert_clean(at)
    assert not any("Each token enters" in m.value for m in at.markdown)
    seen = [at.title[0].value]
    for _ in range(len(PAGES) - 1):
        at.button(key="step_next").click().run()
        assert_clean(at)
        seen.append(at.title[0].value)
    assert seen[:6] == [
        "Inputs X",
        "Q, K, V projections",
        "Scaled scores",
        "Softmax weights",
        "Per-head maps",
        "Block output",
    ]
    assert len(set(seen)) == len(PAGES)
    assert not [b for b in at.button if b.key == "step_next"], "the last step has no 'next'"
    at.button(key="step_back").click().run()
    assert at.title[0].value == seen[-2]
    assert at.session_state["present"] is True


def test_normal_view_has_prose_exports_and_no_step_buttons():
    at = open_app(site.file("softmax"))
    assert any("softmax" in m.value for m in at.markdown)
    assert "Download these numbers, save figures for slides" in [e.label for e in at.expander]
    assert not at.get("download_button"), "the exports are drawn only once their expander is opened"
    keys = {b.key for b in open_exports(at, "softmax").get("download_button")}
    assert {"csv_softmax", "npz_softmax"} <= keys
    assert not [b for b in at.button if b.key in ("step_next", "step_back")]


def test_code_and_link_are_drawn_once_their_expanders_open():
    """What few open (the engine's code, the share link) costs no run and no browser work until opened."""
    at = open_app(params={"seq_len": "6"})
    assert not at.code
    at.session_state[session.code_key("inputs")] = True
    at.run()
    assert [c.value for c in at.code] == [inspect.getsource(engine.embed).rstrip()]  # st.code strips the end
    at.session_state[session.LINK_OPEN] = True
    at.run()
    assert [c.value for c in at.sidebar.code] == ["?seq_len=6"]  # AppTest has no page URL
    assert len(at.code) == 2
    assert_clean(at)


# --------------------------------------------------------------------------- chart data = trace
@pytest.mark.parametrize(
    "params", [{}, {"preset": "day33", "causal": "1"}, {"seq_len": "9", "heads": "4", "head": "3"}]
)
def test_heatmaps_carry_the_traces_numbers(params):
    at = open_app(site.file("scores"), params)
    controls, _ = url.from_params(params)
    t = engine.run(state.to_config(controls), state.to_tokens(controls).words).layers[0]
    h = controls.head
    raw, scaled = attention_maps(at)[:2]
    np.testing.assert_allclose(raw["values"], t.scores[h], rtol=5e-3, atol=1e-12)  # 3 significant digits
    visible = t.visible
    np.testing.assert_allclose(scaled["values"][visible], t.scaled[h][visible], rtol=5e-3, atol=1e-12)
    assert (scaled["shown"] == visible).all(), "masked cells are drawn as masked, not as -inf or -1e9"
    assert all(tip == "−∞" for tip, s in zip(scaled["tips"], visible.ravel()) if not s)
    assert raw["rows"] == raw["cols"] == list(t.labels)
