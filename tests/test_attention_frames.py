"""ui.charts.attention_frames and attention_grid (issue 49's frames and model view in the attention-map component):
the payloads in pure Python (frames on one colour scale, their labels and link values, their size, the thinning
of a long run, the level texts) and the pages' data under AppTest: β's 10 frames on the Softmax page and the
Learn page's replay of the text run and of each one-layer run at 64 tokens within 1 MB. Drags and clicks in
Chromium: tests/test_browser.py (β, the induction and the one-layer replays, a model-view click)."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest

from conftest import assert_clean, open_app
from ui.charts import attention_frames as af
from ui.charts import attention_grid as ag
from ui.charts import attention_map as am
from ui.charts import colours as co
from ui.charts import map_texts
from ui.prose.numbers import parse
from ui.sections.learn import scrub
from ui.shell import site, state

PAGE = {page.path: page.file for page in site.PAGES}


def size(data: dict) -> int:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())


def weights(T: int, beta: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    mask = np.tril(np.ones((T, T), bool))
    s = np.where(mask, rng.normal(size=(T, T)) * beta, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True), mask


def beta_payload(T: int) -> dict:
    frames = [[am.Panel(*weights(T, b)[:1], f"β {b:g}", weights(T, b)[1])] for b in state.BETAS]
    return af.maps_payload(
        frames,
        [f"w{i}" for i in range(T)],
        start=3,
        labels=[f"β = {b:g}" for b in state.BETAS],
        texts=[f"β = {b:g}" for b in state.BETAS],
        values=[f"{b:g}" for b in state.BETAS],
        label="β",
        param="beta",
    )


def test_frames_share_one_scale_carry_their_numbers_and_leave_the_start_frame_as_the_maps():
    data = beta_payload(6)
    assert data["frame"] == 3 and data["frames"][3] is None and len(data["frames"]) == 10
    assert (
        data["frameLabels"][0] == "β = 0" and data["scrub"]["values"][-1] == "64" and data["scrub"]["param"] == "beta"
    )
    assert data["maps"][0]["title"] == "β 1" and data["frames"][9][0]["title"] == "β 64"
    w64, mask = weights(6, 64.0)
    tips = data["frames"][9][0]["tips"].split("|")
    for (r, c), x in np.ndenumerate(w64):
        if mask[r, c]:
            assert parse(tips[r * 6 + c]) == pytest.approx(x, rel=5e-3, abs=1e-12)
    flat = np.frombuffer(base64.b64decode(data["frames"][0][0]["colour"]), np.uint8)  # β = 0: even rows
    assert flat[0] == am.LEVELS - 1 and flat[1] == am.MASKED  # row 0 sees one key: weight 1, the top colour
    assert data["frames"][9][0]["about"].startswith("β 64. Heatmap of 6 rows (query) × 6 columns (key)")


def test_frame_payload_sizes_are_the_docstrings():
    sizes = {T: size(beta_payload(T)) for T in (16, 64)}
    print(f"\nβ frames: {sizes} bytes")
    assert sizes[16] < 40_000 and sizes[64] < 450_000


def test_a_long_run_is_thinned_keeping_the_first_the_last_and_the_shown():
    assert af.thinned(10, 1000, 4) == list(range(10))
    kept = af.thinned(500, 50_000, 123)
    assert kept[0] == 0 and kept[-1] == 499 and 123 in kept and len(kept) <= af.MAX_BYTES // 50_000 + 1


def test_level_texts_name_each_colour_of_the_scale():
    texts = ag.level_texts(co.WEIGHTS, (0.0, 1.0), "0")
    assert len(texts) == 256 and texts[0] == "≈ 0" and texts[am.LEVELS - 1] == "≈ 1" and texts[am.MASKED] == "0"
    assert parse(texts[127].removeprefix("≈ ")) == pytest.approx(127 / 254, rel=5e-3)


def test_the_model_view_sends_a_title_and_a_description_per_map():
    w = np.random.default_rng(1).random((2, 3, 5, 5))
    data = ag.payload(w / w.sum(-1, keepdims=True), list("abcde"), title="T", info=[["i"] * 3] * 2, report=True)
    assert [m["title"] for m in data["maps"]] == [f"layer {ell} · head {h}" for ell in range(2) for h in range(3)]
    assert all(m["about"].endswith(" i.") and m["note"] == "i" for m in data["maps"])
    assert data["columns"] == 3 and data["report"] and data["summary"].startswith("T. Grid of 2 layers × 3 heads")


def test_the_softmax_page_sends_every_beta_once():
    at = open_app(PAGE["softmax"], {"preset": "day33", "seq_len": "6", "beta": "4"})
    assert_clean(at)
    sent = am.decoded(next(e for e in at.get("bidi_component") if e.key == "softmax_map"))
    assert sent["frame"] == state.BETAS.index(4.0) and sent["frames"][sent["frame"]] is None
    assert [f is None for f in sent["frames"]].count(True) == 1 and len(sent["frames"]) == len(state.BETAS)
    assert sent["maps"][0]["title"] == "weights at β = 4, head 0: 6 × 6"
    assert sent["scrub"]["texts"][3] == "β = 1, the model"


def test_the_text_runs_replay_at_64_tokens_stays_within_1_mb():
    at = open_app(PAGE["learn"], {"preset": "trained-text"}, timeout=300)
    assert_clean(at)
    element = next(e for e in at.get("bidi_component") if e.key == "learn_grid")
    sent = am.decoded(element)
    assert len(sent["rows"]) == 64 and len(sent["maps"]) == 2 * 4 and sent["levels"]
    assert len(sent["frames"]) == len(sent["frameLabels"]) == 10 and sent["frameLabels"][-1] == "step 2,500"
    print(f"\ntext replay: {len(element.proto.bytes)} bytes")
    assert len(element.proto.bytes) <= 1_000_000


@pytest.mark.parametrize("task", ["previous", "first", "reverse", "max"])
@pytest.mark.parametrize("tokens", [None, 64])
def test_a_one_layer_runs_replay_sends_every_saved_step_with_the_expected_cells_within_1_mb(task, tokens):
    """A one-layer run's replay is the frames component too: every saved step, each head's map on 0 to 1 with the
    task's expected cells dashed (the start frame carries them; the script keeps them on every frame), at the
    task's own length and at 64 tokens (the longest the Learn page takes) within 1 MB."""
    import engine

    t = engine.TASKS[task]
    words = [w for w in t.vocab if not w.startswith("<")]
    typed = {} if tokens is None else {"sequence": " ".join((words * tokens)[:tokens])}
    at = open_app(PAGE["learn"], {"task": task, "replay": "0", **typed}, timeout=300)
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]  # the typed sequence was taken
    element = next(e for e in at.get("bidi_component") if e.key == "learn_grid")
    sent = am.decoded(element)
    T, H = (tokens or t.seq_len), t.config.num_heads
    steps = [int(v) for v in sent["scrub"]["values"]]
    assert len(sent["rows"]) == T and len(sent["maps"]) == H and sent["across"] == min(H, 2)
    assert len(sent["frames"]) == len(steps) and sent["frame"] == 0 and steps[0] == 0 and sent["frames"][0] is None
    assert [m["title"] for m in sent["maps"]] == [f"head {h}" for h in range(H)]
    assert sent["scrub"]["label"] == "Replay: the weights after" and sent["scrub"]["param"] == "replay"
    assert [tick[1] for tick in sent["legend"]["ticks"]] == [map_texts.number(0.0), map_texts.number(1.0)]  # 0 to 1
    ids = np.array([[t.vocab.index(re.sub(r" \(\d+\)$", "", w)) for w in sent["rows"]]])  # 'A (3)': a repeat
    expected = "".join("1" if x else "0" for x in t.expected_keys(ids)[0].ravel())
    assert all(m["expected"] == expected for m in sent["maps"]) and "1" in expected
    assert all(len(f) == H and all(m["title"].startswith("head ") for m in f) for f in sent["frames"][1:])
    print(f"\n{task} replay at {T} tokens: {len(steps)} frames, {len(element.proto.bytes)} bytes")
    assert len(element.proto.bytes) <= 1_000_000


def test_frames_built_once_send_what_frames_built_in_the_payload_send():
    """A caller's cached frames (map_frames, grid_frames) make the same payload at every start frame as frames built
    inside the payload; built frames are immutable (a cache shares them) and need the domain they were built with."""
    T = 6
    frames = [[am.Panel(*weights(T, b)[:1], f"β {b:g}", weights(T, b)[1])] for b in state.BETAS]
    rows = [f"w{i}" for i in range(T)]
    built = af.map_frames(frames, rows, (0.0, 1.0))
    common = dict(labels=list("0123456789"), texts=list("0123456789"), values=list("0123456789"), label="β")
    for start in (0, 3, 9):
        here = af.maps_payload(frames, rows, start=start, domain=(0.0, 1.0), **common)
        assert af.maps_payload(frames, rows, start=start, domain=(0.0, 1.0), built=built, **common) == here
    with pytest.raises(ValueError, match="domain"):
        af.maps_payload(frames, rows, start=0, built=built, **common)
    with pytest.raises(TypeError):
        built.maps[0][0][0][1].upper  # a str, and the container a tuple:  # noqa: B018
        built.maps[0][0] += ()  # tuples only: nothing in it can be changed in place
    w = np.random.default_rng(2).random((4, 2, 2, 5, 5))
    w /= w.sum(-1, keepdims=True)
    mask = np.tril(np.ones((5, 5), bool))
    grid = af.grid_frames(list(w), list("abcde"), mask, (0.0, 1.0))
    for start in (0, 2):
        here = af.grid_payload(list(w), list("abcde"), start=start, mask=mask, **{**common, "labels": list("0123")})
        again = af.grid_payload(
            list(w), list("abcde"), start=start, mask=mask, built=grid, **{**common, "labels": list("0123")}
        )
        assert again == here and here["frames"][start] is None


def test_a_rested_replay_step_resends_the_frames_without_rebuilding_them(monkeypatch):
    """Issue 49: a scrub that rests on another step reruns the replay's fragment; its frames (each map's description,
    colours and tips: most of that run's CPU) come from the run's cache, not built again."""
    at = open_app(PAGE["learn"], {"task": "previous", "replay": "0"}, timeout=300)
    assert_clean(at)
    first = am.decoded(next(e for e in at.get("bidi_component") if e.key == "learn_grid"))
    built = []
    real = af.frame_map
    monkeypatch.setattr(af, "frame_map", lambda *a, **k: built.append(1) or real(*a, **k))
    steps = [int(v) for v in first["scrub"]["values"]]
    at.session_state["replay_step"] = steps[5]  # what the release's callback sets (scrub._scrub_released)
    at.run(timeout=120)
    assert_clean(at)
    again = am.decoded(next(e for e in at.get("bidi_component") if e.key == "learn_grid"))
    assert again["frame"] == 5 and again["frames"][5] is None and again["frames"][1:5] == first["frames"][1:5]
    assert [{k: m[k] for k in ("title", "about", "tips")} for m in again["frames"][0]] == [
        {k: m[k] for k in ("title", "about", "tips")} for m in first["maps"]
    ]  # the step the scrub left is a frame now, with the numbers its maps had
    assert [m["title"] for m in again["maps"]] == [m["title"] for m in first["frames"][5]] and built == []


def test_a_rested_scrub_sends_the_bytes_the_browser_holds():
    """A scrub that rested on a step (its callback sets the step and says it rested: scrub._scrub_released) reruns
    the replay's fragment, which sends the very bytes sent before: nothing built or encoded, and the scrubber keeps
    the step it rests on (attention_map_frames.js keeps its frame while the server's is unchanged). A step set any
    other way (a link, a lesson) is drawn as the server's frame."""
    at = open_app(PAGE["learn"], {"task": "previous", "replay": "0"}, timeout=300)
    assert_clean(at)
    grid = lambda: next(e for e in at.get("bidi_component") if e.key == scrub.KEY)  # noqa: E731
    first = grid().proto.bytes
    steps = [int(v) for v in am.decoded(grid())["scrub"]["values"]]
    at.session_state["replay_step"] = at.session_state[scrub.RESTED] = steps[5]
    at.run(timeout=120)
    assert_clean(at)
    assert grid().proto.bytes == first and am.decoded(grid())["frame"] == 0
    assert at.query_params["replay"] == str(steps[5])  # the address names the rested step
    at.session_state["replay_step"] = steps[7]  # not a rest: the server's frame
    at.run(timeout=120)
    assert am.decoded(grid())["frame"] == 7


def test_a_released_beta_resends_the_frames_without_rebuilding_them(monkeypatch):
    """Issue 49: β released on another value reruns the Softmax page's fragment; the frames at every β come from
    the cache (keyed by the model, the text, the layer and the head), not built again."""
    at = open_app(PAGE["softmax"], {"preset": "day33", "seq_len": "6"})
    assert_clean(at)
    first = am.decoded(next(e for e in at.get("bidi_component") if e.key == "softmax_map"))
    built = []
    real = af.frame_map
    monkeypatch.setattr(af, "frame_map", lambda *a, **k: built.append(1) or real(*a, **k))
    at.session_state["beta"] = 4.0  # what the release's callback sets (softmax.weights._beta_released)
    at.run()
    assert_clean(at)
    again = am.decoded(next(e for e in at.get("bidi_component") if e.key == "softmax_map"))
    four = state.BETAS.index(4.0)
    assert (
        again["frame"] == four
        and again["frames"][four] is None
        and again["maps"][0]["title"].startswith("weights at β = 4")
    )
    assert again["frames"][:3] == first["frames"][:3] and built == []
