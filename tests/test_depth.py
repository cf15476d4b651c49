"""Depth in the app: the Layers slider (1–4) and the layer picker on every page, the pre-LayerNorm
switch, the URL, L = 1 exactly as before, the model view and its click, the Learn page's induction run."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest

import engine
import engine.loss_curve
import engine.measure
from conftest import PAGES, assert_clean, attention_maps, formulas, open_app, open_switches, replay_steps, replay_to
from ui.charts import run_charts
from ui.charts.attention_map import decoded
from ui.shell import presets, site, state, url

PAGE = {page.path: page.file for page in site.PAGES}
NOTICED = [page.file for page in site.CONCEPT_PAGES] + [PAGE["model"]]


def _tables(at, name: str = "cells") -> list:
    """Every chart's dataset called `name`, as a pyarrow table, in page order."""
    out = []
    for chart in at.get("vega_lite_chart"):
        data = next((d for d in chart.proto.datasets if d.name == name), None)
        if data is not None:
            out.append(pa.ipc.open_stream(data.data.data).read_all())
    return out


@pytest.mark.parametrize("layers", [1, 2, 3, 4])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_at_every_depth_on_its_last_layer(page, layers):
    at = open_app(page, {"layers": str(layers), "layer": str(layers - 1), "seq_len": "5"}, timeout=60)
    assert_clean(at)
    assert at.title, "the page drew nothing"
    assert at.session_state["layers"] == layers and at.session_state["layer"] == layers - 1
    if page in NOTICED:
        assert any("What to notice" in s.value for s in at.success)
    if layers > 1 and page in (PAGE["exercise"], PAGE["experiments"]):
        assert any("works on layer 0" in i.value or "run on layer 0" in i.value for i in at.info), (
            "the page says which layer it uses"
        )


@pytest.mark.parametrize("layer", [0, 1, 2])
def test_the_scores_page_shows_the_picked_layer_of_the_stack(layer):
    params = {"layers": "3", "layer": str(layer), "heads": "4", "head": "3", "causal": "1"}
    at = open_app(PAGE["scores"], params)
    assert_clean(at)
    controls, _ = url.from_params(params)
    stack = engine.run(state.to_config(controls), state.to_tokens(controls).words)
    t = stack.layers[layer]
    raw = attention_maps(at)[0]["values"]
    np.testing.assert_allclose(raw, t.scores[3], rtol=5e-3, atol=1e-12)  # 3 significant digits
    assert any(f"head 3, layer {layer}" in m["title"] for m in attention_maps(at))


def test_one_layer_is_exactly_the_single_block_and_layer_0_does_not_depend_on_depth():
    """L = 1 runs the one-block forward pass it always ran (the article's numbers); block 0 is drawn
    first, so at any depth layer 0 is that very block (to the engine's 1e-12: BLAS may differ in the last bits)."""
    at = open_app(PAGE["softmax"], {"preset": "day33", "layers": "1"})
    assert_clean(at)
    golden = engine.run_preset("day33").layers[0]
    shown = attention_maps(at)[0]["values"]
    np.testing.assert_allclose(shown, golden.weights[0], rtol=5e-3, atol=1e-12)  # sent as 3 significant digits
    assert dict(at.query_params) == {"preset": "day33"}, "L = 1 is the default: nothing new in the URL"
    for name in ("part4", "day33"):
        base = engine.get_preset(name)
        one = engine.run(base.config, base.tokens).layers[0]
        for layers in (2, 4):
            deep = engine.run(replace(base.config, n_layers=layers), base.tokens).layers[0]
            for field, value in one.arrays().items():
                np.testing.assert_allclose(
                    getattr(deep, field), value, rtol=1e-12, atol=1e-15, err_msg=f"{name} {field} at L={layers}"
                )


def test_pre_layernorm_switch_changes_the_numbers_and_shows_in_the_formulas():
    at = open_app(PAGE["qkv"])
    assert not any("LN" in x.value for x in at.latex)
    open_switches(at).toggle(key="layer_norm").set_value(True).run()
    assert_clean(at)
    assert dict(at.query_params) == {"layer_norm": "1"}
    latex = formulas(at)
    assert r"Q = \text{LN}(X) W_Q" in latex and "pre-LayerNorm" in latex
    controls = replace(state.preset_controls("part4"), layer_norm=True)
    t = engine.run(state.to_config(controls), state.to_tokens(controls).words).layers[0]
    source = attention_maps(at)[0]["values"]
    np.testing.assert_allclose(source, t.x_norm, rtol=5e-3, atol=1e-12)
    np.testing.assert_allclose(t.x_norm.mean(axis=-1), 0, atol=1e-12)
    at.switch_page(PAGE["output"]).run()
    assert_clean(at)
    assert any(r"\text{LN}" in x.value for x in at.latex)


def test_layers_and_the_switch_round_trip_through_the_url():
    c = replace(state.preset_controls("part4"), layers=3, layer_norm=True, layer=2, head=1)
    params = url.to_params(c)
    assert params == {"layers": "3", "layer_norm": "1", "layer": "2", "head": "1"}
    assert url.from_params(params) == (c, [])
    at = open_app(PAGE["heads"], params)
    assert_clean(at)
    assert dict(at.query_params) == params
    assert {k: at.session_state[k] for k in ("layers", "layer_norm", "layer")} == {
        "layers": 3,
        "layer_norm": True,
        "layer": 2,
    }
    at.slider(key="layers").set_value(1).run()  # layer 2 is gone: layer 0, said so
    assert_clean(at)
    assert at.session_state["layer"] == 0 and "layer" not in dict(at.query_params)
    assert any("There is no layer 2 with 1 layer; showing layer 0." in i.value.replace("\\", "") for i in at.info)


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"layers": "5"}, "layers='5' is not valid"),
        ({"layers": "two"}, "layers='two' is not valid"),
        ({"layer_norm": "maybe"}, "layer_norm='maybe' is not valid"),
        ({"layer": "-1"}, "layer='-1' is not valid"),
        ({"layers": "2", "layer": "3"}, "There is no layer 3 with 2 layers; showing layer 0."),
    ],
)
def test_malformed_depth_params_fall_back_with_a_notice(params, fragment):
    at = open_app(None, params)
    assert_clean(at)
    assert fragment in " | ".join(i.value.replace("\\", "") for i in at.info)


def test_article_presets_stay_one_layer_without_layernorm_and_reset_depth():
    for name in ("part4", "day33"):
        c = state.preset_controls(name)
        assert (c.layers, c.layer_norm, c.layer) == (1, False, 0)
    at = open_app(None, {"layers": "3", "layer": "2", "layer_norm": "1"})
    at.selectbox(key="preset").set_value("day33").run()
    assert_clean(at)
    assert (at.session_state["layers"], at.session_state["layer"], at.session_state["layer_norm"]) == (1, 0, False)


# --------------------------------------------------------------------------- the model view
def _grid(at, key: str = "model_map") -> dict:
    """The data the model view's component was sent (ui.charts.attention_grid)."""
    return decoded(next(e for e in at.get("bidi_component") if e.key == key))


def test_model_view_draws_every_layer_and_head_in_one_element():
    at = open_app(PAGE["model"], {"layers": "4", "heads": "16", "d_model": "128", "seq_len": "64"})
    assert_clean(at)
    sent = _grid(at)
    assert sent["columns"] == 16 and len(sent["maps"]) == 4 * 16 and sent["raster"]
    assert [m["title"] for m in sent["maps"][:17:16]] == ["layer 0 · head 0", "layer 1 · head 0"]
    assert sent["maps"][16 + 3]["title"] == "layer 1 · head 3" and len(sent["rows"]) == 64
    assert all(m["about"].startswith(m["title"] + ". Heatmap of 64 rows") for m in sent["maps"])
    assert sent["summary"].startswith("4 layers × 16 heads, 64 × 64 each. Grid of 4 layers × 16 heads")
    assert sent["levels"] and all(m["tips"] is None for m in sent["maps"])  # 262,144 cells: the level texts
    size = len(json.dumps(sent, separators=(",", ":")).encode())
    assert size < 600_000, size  # attention_grid's docstring: about 0.4 MB
    notice = next(s.value for s in at.success if "What to notice" in s.value)
    assert "of these 64 maps" in notice and "Mean spread by layer: layer 0" in notice


def test_model_view_notice_comes_from_the_numbers():
    from engine import analysis

    controls, _ = url.from_params({"layers": "2", "preset": "trained-induction"})
    cfg, words = state.to_config(controls), state.to_tokens(controls).words
    from ui import compute

    stack = engine.run(cfg, words, compute.train(cfg, presets.training("trained-induction")).params)
    spread, top, uniform = analysis.map_summary(stack)
    assert spread.shape == top.shape == (2, 2)
    w = analysis.stack_weights(stack)
    rows = np.arange(len(words)) > 0  # the causal mask: row 0 sees one key
    np.testing.assert_allclose(top, w.max(axis=-1)[..., rows].mean(axis=-1))
    np.testing.assert_allclose(uniform, np.mean(1 / np.arange(1, len(words) + 1)[rows]))
    at = open_app(PAGE["model"], {"preset": "trained-induction"}, timeout=120)
    assert_clean(at)
    sharp = np.unravel_index(np.argmin(spread), spread.shape)
    notice = next(s.value for s in at.success if "What to notice" in s.value)
    assert f"layer {sharp[0]} head {sharp[1]} is the sharpest" in notice
    assert f"{spread[sharp]:.2f}" in notice


def test_clicking_a_map_of_the_model_view_opens_that_head_on_the_per_head_page():
    from ui.sections.model import grid

    at = open_app(PAGE["model"], {"layers": "3", "heads": "4"})
    sent = _grid(at)
    assert sent["report"] and sent["outline"] == 0 and sent["maps"][2 * 4 + 3]["title"] == "layer 2 · head 3"
    assert grid._opened.__name__ == "_opened"  # the component's callback: what a click on map 11 does, below
    at.session_state["open_head_pick"] = 2 * 4 + 3  # (a browser test clicks the map itself: tests/test_browser.py)
    at.session_state["open_head"] = True
    at.run()
    assert_clean(at)
    assert at.title[0].value == "Per-head maps"
    assert (at.session_state["layer"], at.session_state["head"]) == (2, 3)
    assert dict(at.query_params) == {"layers": "3", "heads": "4", "layer": "2", "head": "3"}
    assert any("Layer 2 of 3" in m.value for m in at.markdown)
    at.switch_page(PAGE["model"]).run()  # back again: no stale click re-opens the page
    assert_clean(at)
    assert at.title[0].value == "Model view: every head"


# --------------------------------------------------------------------------- the Learn page: induction
def test_learn_page_trains_induction_and_names_the_drop_and_the_two_heads():
    at = open_app(PAGE["learn"], timeout=120)
    at.segmented_control(key="task").set_value("induction").run(timeout=120)
    assert_clean(at)
    if any(b.key == "learn_train" for b in at.button):
        at.button(key="learn_train").click().run(timeout=120)
    assert_clean(at)
    from ui import compute

    task = engine.TASKS["induction"]
    run = compute.train(task.config, presets.training("trained-induction")).run
    fall = engine.loss_curve.steepest_fall(run.losses)
    notice = next(s.value for s in at.success if "What to notice" in s.value)
    assert f"falls most from steps {fall.first}–{fall.step}" in notice
    assert f"averaged over {fall.window} steps" in notice.lower()
    tokens, targets = task.sample(np.random.RandomState(compute.SHARE_SEED), compute.SHARE_SEQUENCES)
    induction = engine.measure.expected_share(task, run.config, run.params, tokens, targets)  # (L, H)
    previous = engine.measure.share_per_query(
        run.config,
        run.params,
        tokens,
        np.repeat(np.eye(task.seq_len, k=-1, dtype=bool)[None], len(tokens), 0),
        np.ones(tokens.shape, bool),
    ).mean(axis=-1)  # (L, H)
    assert induction[1].max() >= 0.7 and previous[0].max() >= 0.5
    for layer, head in zip(*np.nonzero(previous >= 0.5)):  # every head past half is named
        assert f"layer {layer} head {head} ({previous[layer, head]:.0%})" in notice
    for layer, head in zip(*np.nonzero(induction >= 0.5)):
        assert f"layer {layer} head {head} ({induction[layer, head]:.0%})" in notice
    # The curve marks the drop; the model view shows every layer × head at the replayed step.
    drops = _tables(at, "drop")
    assert drops and drops[0].column("step").to_pylist() == [fall.step]
    assert drops[0].column("label").to_pylist() == [f"steepest fall, {fall.window}-step means"]
    assert drops[0].column("early").to_pylist() == [fall.step < run_charts.EARLY * task.steps]  # its label's side
    assert len(_grid(at, "learn_grid")["maps"]) == 2 * task.config.num_heads
    sent = _grid(at, "learn_grid")  # every saved step's model view, scrubbed in the browser
    assert len(sent["frames"]) == len(run.checkpoints) and sent["frame"] == len(sent["frames"]) - 1
    steps = replay_steps(at)
    replay_to(at, steps[0])
    assert_clean(at)
    assert "At step 0 of the replay" in next(s.value for s in at.success if "What to notice" in s.value)


def test_model_view_paints_each_map_on_the_shared_colour_scale():
    """Each map's cells are the oracle's colours (to within one step of 255), masked keys masked, the
    picked map outlined, and its description computed from its own numbers."""
    from conftest import paint_oracle
    from ui.charts import attention_grid as ag
    from ui.charts import attention_map as am
    from ui.charts import colours as co
    from ui.charts import describe

    cfg = engine.Config(d_model=16, num_heads=4, n_layers=3, causal=True)
    stack = engine.run(cfg, "a b c d e f g".split())
    weights = np.stack([t.weights for t in stack.layers])  # (3, 4, 7, 7)
    mask = stack.layers[0].mask
    domain = co.weight_domain(weights)
    data = ag.payload(weights, stack.labels, mask=mask, pick=(1, 2), info=[["x"] * 4] * 3)
    assert data["outline"] == 1 * 4 + 2 and not data["raster"] and data["columns"] == 4
    for m, index in enumerate(ag.colours(data)):
        layer, head = divmod(m, 4)
        want = paint_oracle(np.where(mask, weights[layer, head], np.nan), co.WEIGHTS, domain)
        for i, colour in zip(index, want):
            got = co.rgb(data["mask"]["fill"] if i == am.MASKED else data["palette"][i])
            assert np.abs(np.array(got) - colour).max() <= 4
        assert (
            data["maps"][m]["about"]
            == describe.matrix(
                weights[layer, head],
                stack.labels,
                stack.labels,
                f"layer {layer} · head {head}",
                "query",
                "key",
                mask & np.isfinite(weights[layer, head]),
            )
            + " x."
        )
