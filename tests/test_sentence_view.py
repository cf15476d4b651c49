"""The sentence view (ui/charts/attention_sentence.py, attention_map_sentence.js): its payload in pure Python (each
share as fmt prints it, nothing nonzero as 0 %, masked words marked, each word's sentence naming its strongest keys),
and in headless Chromium on tests/apps/sentence_app.py: hover, a tap and the keyboard (Tab, arrows) shade the words a
word attends to with Python's shares and announce its sentence, with 0 server runs; a hostile word stays text; 64
words fit a 390 px phone without sideways scrolling; axe-core finds nothing serious."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from ui.charts import attention_map as am
from ui.charts import attention_sentence as sv
from ui.prose.numbers import parse

APP = "tests/apps/sentence_app.py"


def weights_of(T: int):
    mask = np.tril(np.ones((T, T), bool))
    scores = np.where(mask, np.random.default_rng(3).normal(scale=2.0, size=(T, T)), -np.inf)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True), mask


def test_the_payload_reads_back_to_the_weights_and_names_each_rows_strongest_keys():
    w, mask = weights_of(6)
    w[5] = [1 - 3e-7, 1e-7, 1e-7, 1e-7, 0.0, 0.0]  # tiny shares: printed, never as 0 %
    tokens = ["a", "b", "<b>c</b>", "d", "e", "f"]
    s = sv.sentence_payload(w, tokens, title="t", mask=mask)["sentence"]
    shares = s["shares"].split("|")
    levels = np.frombuffer(base64.b64decode(s["colour"]), np.uint8).reshape(6, 6)
    assert (levels[~mask] == am.MASKED).all() and (levels[mask] < am.MASKED).all()
    for (r, c), x in np.ndenumerate(w):
        if not mask[r, c] or x < sv.SHOWN_FROM:
            assert shares[r * 6 + c] == ""
        else:
            assert parse(shares[r * 6 + c].rstrip("%")) / 100 == pytest.approx(x, abs=0.006)
    assert s["tokens"][2] == "<b>c</b>"  # as text
    strongest = int(np.argmax(w[3]))
    assert s["rows"][3].startswith(f"“d” (3) attends most to “{tokens[strongest]}” ({strongest}) ")
    assert "2 later words masked" in s["rows"][3] and "masked" not in s["rows"][5]
    assert " 0%" not in s["rows"][5] and " 1.0·10⁻⁵%" in s["rows"][5]  # 1e-7 as a share, never 0 %
    with pytest.raises(ValueError, match="do not match"):
        sv.sentence_payload(w, tokens[:5], title="t")


def sentences(at) -> list[dict]:
    found = [am.decoded(e) for e in at.get("bidi_component") if e.proto.component_name == am.NAME]
    return [d["sentence"] for d in found if "sentence" in d]


@pytest.mark.parametrize("page", ["pages/heads.py", "pages/model.py"])
def test_the_text_models_pages_read_the_picked_head_in_the_text(page):
    from conftest import link_view, open_app
    from ui import compute

    params = {"preset": "trained-text", "layer": "1", "head": "2"}
    at = open_app(page, params, timeout=240)
    assert not at.exception
    (s,) = sentences(at)
    assert s["title"].startswith("head 2") and "layer 1" in s["title"]
    view = link_view(page.removeprefix("pages/").removesuffix(".py"), **params)
    t = compute.trace(view.model, view.words, 1)
    T = t.T
    assert s["tokens"] == list(t.labels)
    # the printed shares are the head's weights, the rows' sentences Python's
    shares = s["shares"].split("|")
    expected = sv.sentence_payload(t.weights[2], t.labels, title=s["title"], mask=t.mask)["sentence"]
    assert shares == expected["shares"].split("|") and s["rows"] == expected["rows"]
    last = [parse(x.rstrip("%")) / 100 for x in shares[(T - 1) * T :] if x]
    assert 0.9 <= sum(last) <= 1.0 + 1e-9
    plain = open_app(page, {"preset": "trained-induction"}, timeout=240)
    assert not plain.exception and not sentences(plain)  # a task's letters: no sentence view


@pytest.fixture(scope="module")
def app(playwright):
    from harness import browser as bs

    with bs.chromium(playwright) as context, bs.Server(app=APP, log_name="sentence-tests.log") as server:
        bs.instrument(context)
        page = context.new_page()
        runs = bs.Runs(page)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        def open_app(query: str = "") -> None:
            before = runs.finished
            page.goto(server.url + "/" + query)
            runs.wait_for(page, before + 1, timeout=60)
            page.locator(".amap .sentence").first.wait_for(timeout=30_000)
            bs.wait_ready(page, timeout=60)

        yield page, runs, open_app, errors


def work(page) -> str:
    return page.locator("[data-testid='sentence-work']").inner_text()


@pytest.mark.browser
def test_a_word_shades_what_it_attends_to_with_pythons_shares(app):
    page, runs, open_app, errors = app
    open_app()
    before = runs.finished
    w, mask = weights_of(6)
    s = sv.sentence_payload(w, ["<img src=x onerror=alert(1)>", "the", "cat", "sat", "on", "the"], title="t", mask=mask)
    words = page.locator(".amap .sentence button.word")
    assert words.count() == 6 and words.nth(0).inner_text().strip() == "<img src=x onerror=alert(1)>"
    words.nth(4).click()  # "on"
    assert work(page) == s["sentence"]["rows"][4]
    seen = [words.nth(k).locator(".share").inner_text() for k in range(6)]
    assert seen == [x for x in s["sentence"]["shares"].split("|")[4 * 6 : 5 * 6]]
    assert words.nth(5).evaluate("b => b.classList.contains('masked')")
    # the keyboard: the picked word holds the one tab stop; arrows move along the text
    page.keyboard.press("ArrowLeft")
    assert work(page) == s["sentence"]["rows"][3]
    page.keyboard.press("Home")
    assert work(page) == s["sentence"]["rows"][0]
    assert page.locator(".amap .sentence button.word[tabindex='0']").count() == 1
    words.nth(2).hover()
    assert work(page) == s["sentence"]["rows"][2]
    page.wait_for_timeout(400)
    assert runs.finished == before and not errors
    made = page.evaluate(
        "() => [...document.querySelectorAll('*')].filter(e => e.shadowRoot).reduce((n, e) =>"
        " n + e.shadowRoot.querySelectorAll('img, script').length, 0)"
    )
    assert made == 0


@pytest.mark.browser
def test_axe_finds_nothing_serious_in_the_sentence_view(app):
    from axe_playwright_python.sync_playwright import Axe

    page, runs, open_app, errors = app
    bad = []
    for query in ("", "?t=64&present=1"):
        open_app(query)
        page.locator(".amap .sentence button.word").nth(min(5, 5)).click()
        result = Axe().run(
            page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
        )
        bad += [
            (query, v["id"], v["nodes"][0]["target"])
            for v in result.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
    assert not bad, bad


@pytest.mark.browser
def test_64_words_fit_a_phone(playwright):
    from harness import browser as bs

    phone = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
    with bs.chromium(playwright, **phone) as context, bs.Server(app=APP, log_name="sentence-phone.log") as server:
        page = context.new_page()
        runs = bs.Runs(page)
        page.goto(server.url + "/?t=64")
        page.locator(".amap .sentence").wait_for(timeout=60_000)
        runs.wait_for(page, 1, timeout=60)
        word = page.locator(".amap .sentence button.word").nth(40)
        word.scroll_into_view_if_needed()
        box = word.bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        assert work(page).startswith("“w40” (40) attends most to")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        assert box["height"] >= 16  # a word stays a readable target
        page.wait_for_timeout(400)
        assert runs.finished == 1
