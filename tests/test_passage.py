"""The English text preset's passage (issue 47, items 1, 3, 5, 6, 10 and its rule "What is shown is real"):
every length the slider allows shows the first T tokens of ONE window of held-out text, the same on every
page and on the Learn page; that window is the corpus read in order except the task's declared repeat; the
sidebar says a span comes again only where both copies are shown, marks the pasted copy and any filling of a
typed sentence (the passage's own tokens at those positions), names only unknown words that are shown, and
says where the passage comes from; another passage is picked in the link (passage=). Every expected number is
read from the passage, the corpus or the Learn page's own sequence, never typed here."""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine
from conftest import assert_clean, open_app, tables
from engine.text import corpus
from ui.prose import passage as words_of
from ui.shell import presets, site, state, url

TEXT = engine.TASKS["text"]
PRESET = "trained-text"
LENGTHS = range(state.SEQ_LEN[0], state.SEQ_LEN[1] + 1)  # every length the slider allows
SPAN_WORDS = "a span comes again"
PAGES = {p: site.by_path(p).file for p in ("inputs", "scores", "model", "learn")}


def _controls(T: int, number: int = 0, **more) -> state.Controls:
    params = {"preset": PRESET, "seq_len": str(T)} | ({"passage": str(number)} if number else {}) | more
    controls, problems = url.from_params(params)
    assert problems == [], problems
    return controls


def _learn_words(number: int = 0) -> tuple[str, ...]:
    """The Learn page's own sequence for the text task: the passage at its training length."""
    return presets.sample_words(TEXT, TEXT.seq_len, number)


def _source(c: state.Controls) -> str:
    """The sidebar's sentence on where the passage comes from, as the sidebar builds it."""
    found, t = presets.passage(TEXT.name, c.passage), state.to_tokens(c)
    return words_of.source(
        found.title, c.passage, found.begin, len(t.words), found.span, found.second, t.own, t.pasted, t.copied_from
    )


def _chapter(position: int) -> int:
    return int(np.searchsorted(corpus().bounds, position, side="right")) - 1


@pytest.mark.parametrize("number", [0, 7])
def test_every_length_shows_the_first_tokens_of_one_window_of_the_corpus(number):
    """At every T: the sidebar's tokens are the Learn page's first T, nothing is marked as filling, and they
    are the corpus from the passage's start in order, but for the task's declared pasted copy (a copy of its
    first copy), all within one held-out chapter."""
    learn, found, text = _learn_words(number), presets.passage(TEXT.name, number), corpus()
    chapter = _chapter(found.begin)
    assert text.held_out[chapter] and found.title == text.titles[chapter]
    for T in LENGTHS:
        tokens = state.to_tokens(_controls(T, number))
        assert tokens.words == learn[:T], T
        assert tokens.filled_from is None and tokens.note is None, T
        pasted = found.pasted(T)
        assert tokens.pasted == pasted, T
        own = [TEXT.vocab.index(w) for i, w in enumerate(tokens.words) if i not in pasted]
        assert own == text.ids[found.begin : found.begin + len(own)].tolist(), T
        assert found.begin + len(own) <= text.bounds[chapter + 1]
        assert [tokens.words[i] for i in pasted] == [tokens.words[found.first + i - found.second] for i in pasted]
        assert words_of.strip(tokens.words, None, pasted, tokens.copied_from).count("⟦pasted copy") == (len(pasted) > 0)


def test_the_span_sentence_only_where_both_copies_are_shown():
    """'A span comes again' at exactly the lengths holding both copies, the second in full; where the second copy
    is cut, the sidebar says so; before it starts, that every token is the author's text in order."""
    found = presets.passage(TEXT.name, 0)
    said = {T: _source(_controls(T)) for T in LENGTHS}
    both = [T for T in LENGTHS if T >= found.second + found.span]
    assert [T for T in LENGTHS if SPAN_WORDS in said[T]] == both and both
    for T in both:
        assert (
            f"positions {found.second}–{found.second + found.span - 1} are the task's pasted copy of positions "
            f"{found.first}–{found.first + found.span - 1}"
        ) in said[T]
    cut = range(found.second + 1, found.second + found.span)
    assert all(f"cut it at position {T - 1}" in said[T] for T in cut) and len(cut)
    assert all(f"starts at position {found.second}, past them" in said[T] for T in LENGTHS if T <= found.second)
    # nothing else in the sidebar claims the repeat: the drawing rule is one sentence for every length
    rule = words_of.rule(
        0, presets.PASSAGES, presets.SAMPLE_SEED, presets.CANDIDATES, TEXT.seq_len, presets.shown_length(TEXT)
    )
    assert SPAN_WORDS not in rule.lower()


def test_a_short_typed_sentence_is_filled_from_the_same_passage_and_marked():
    """A sentence shorter than T is filled with the passage's own tokens at those positions (no other window),
    marked as filling in the strip, the notice and the sidebar; the pasted copy inside the filling is marked too."""
    typed = ["she", "was", "very", "happy"]
    assert all(w in TEXT.vocab for w in typed)
    learn, found = _learn_words(), presets.passage(TEXT.name, 0)
    for T in (8, 33, 40, 64):
        tokens = state.to_tokens(_controls(T, text=" ".join(typed)))
        assert tokens.words == tuple(typed) + learn[len(typed) : T]
        assert tokens.filled_from == len(typed)
        assert f"positions {len(typed)}–{T - 1} ({T - len(typed)} tokens) are filling" in tokens.note
        runs = words_of.parts(tokens.words, tokens.filled_from, tokens.pasted)
        assert runs[0] == (words_of.TEXT, tuple(typed))
        kinds = [kind for kind, run in runs for _ in run]
        assert kinds[len(typed) :] == [
            words_of.COPY if i in found.pasted(T) else words_of.FILLING for i in range(len(typed), T)
        ]
        assert f"Positions {len(typed)}–{T - 1} fill your {len(typed)} tokens up to {T}" in _source(
            _controls(T, text=" ".join(typed))
        )
        assert "⟦filling:" in words_of.strip(tokens.words, tokens.filled_from, tokens.pasted, tokens.copied_from)


def test_the_unknown_word_note_names_only_words_within_the_tokens_shown():
    learn = _learn_words()
    at = 10
    assert "zzyzx" not in TEXT.vocab
    text = " ".join(learn[:at] + ("zzyzx",) + learn[at + 1 : 20])
    for T in LENGTHS:
        note = state.to_tokens(_controls(T, text=text)).note or ""
        assert ("zzyzx" in note) == (T > at), (T, note)


def test_a_passage_travels_in_the_link_and_a_bad_one_falls_back_with_a_notice():
    c = _controls(32, 7)
    assert c.passage == 7 and c.text == " ".join(presets.default_words(PRESET, 7))
    assert url.to_params(c) == {"preset": PRESET, "passage": "7"}
    assert url.from_params(url.to_params(c)) == (c, [])
    typed = _controls(20, 7, text="she was very happy")
    assert url.from_params(url.to_params(typed)) == (typed, [])
    for bad in ("abc", str(presets.PASSAGES), "-1", "2.5", ""):
        controls, problems = url.from_params({"preset": PRESET, "passage": bad})
        assert controls.passage == 0 and controls.text == " ".join(presets.default_words(PRESET))
        assert len(problems) == 1 and problems[0].startswith("passage="), problems
    assert presets.passage(TEXT.name, 7).begin != presets.passage(TEXT.name, 0).begin


def _strip(at) -> str:
    found = [m.value for m in at.markdown if re.match(r"\*\*The \d+ tokens:\*\*", m.value)]
    assert len(found) == 1, found
    return found[0]


def _token_column(at) -> list[str]:
    """The Inputs page's tokens, read from its table's vocabulary ids (its labels number repeated tokens)."""
    table = next(t for t in tables(at) if "vocab id" in t.columns)
    return [TEXT.vocab[int(i)] for i in table["vocab id"]]


def test_the_pages_and_the_learn_page_show_the_same_tokens_at_every_length():
    """Under AppTest: the Inputs page's token column at every length the slider allows is the Learn page's own
    sequence's first T tokens; at a few lengths the scores and model pages draw the same token strip."""
    learn = open_app(PAGES["learn"], {"preset": PRESET, "task": "text"}, timeout=300)
    assert_clean(learn)
    shown = next(t for t in learn.text_input if t.key == "sequence").placeholder.split(" ")
    assert tuple(shown) == _learn_words()
    at = open_app(PAGES["inputs"], {"preset": PRESET}, timeout=300)
    strips = {}
    for T in LENGTHS:
        at.slider(key="seq_len").set_value(T).run()
        assert_clean(at)
        assert _token_column(at) == shown[:T], T
        strips[T] = _strip(at)
        assert ("⟦pasted copy" in strips[T]) == (len(presets.passage(TEXT.name, 0).pasted(T)) > 0), T
    found = presets.passage(TEXT.name, 0)
    edges = sorted({LENGTHS[0], found.second, found.second + 1, found.second + found.span, LENGTHS[-1]})
    for page in ("scores", "model"):  # the lengths where the copy starts, is whole, and the ends
        other = open_app(PAGES[page], {"preset": PRESET}, timeout=300)
        for T in edges:
            other.slider(key="seq_len").set_value(T).run()
            assert_clean(other)
            assert _strip(other) == strips[T], (page, T)


def test_the_sidebar_says_where_the_passage_comes_from_and_another_one_is_shown_everywhere():
    """passage=7 in the link: the sidebar names its novel and chapter (from the corpus), the link keeps it, and
    the Inputs page at 64 tokens and the Learn page show its tokens."""
    found, text = presets.passage(TEXT.name, 7), corpus()
    title = text.titles[_chapter(found.begin)]
    at = open_app(PAGES["inputs"], {"preset": PRESET, "passage": "7", "seq_len": "64"}, timeout=300)
    assert_clean(at)
    said = " ".join(c.value for c in at.sidebar.caption).replace("\\", "")
    assert f"Passage 7: {title}, a held-out chapter" in said
    assert at.query_params["passage"] == ["7"] or at.query_params["passage"] == "7"
    assert _token_column(at) == list(_learn_words(7))
    learn = open_app(PAGES["learn"], {"preset": PRESET, "task": "text", "passage": "7"}, timeout=300)
    assert_clean(learn)
    assert next(t for t in learn.text_input if t.key == "sequence").placeholder == " ".join(_learn_words(7))
    assert f"Passage 7: {title}" in " ".join(c.value for c in learn.sidebar.caption).replace("\\", "")


def test_picking_a_passage_in_the_sidebar_shows_it_and_puts_it_in_the_address():
    at = open_app(PAGES["inputs"], {"preset": PRESET}, timeout=300)
    at.number_input(key="passage").set_value(7).run()
    assert_clean(at)
    T = at.slider(key="seq_len").value
    assert at.text_input(key="text").value == " ".join(presets.default_words(PRESET, 7))
    assert _token_column(at) == list(_learn_words(7)[:T])
    assert at.query_params["passage"] in (["7"], "7")


def test_the_sidebar_never_calls_typed_words_the_authors():
    """A typed sentence is never called Austen's text: one that fills all T tokens shows none of the passage; a
    shorter one is filled and the copy it hides is said to lie under it."""
    found = presets.passage(TEXT.name, 0)
    typed = " ".join(["she", "was", "very", "happy"] * 3)
    for T in (4, 8, 12):
        said = _source(_controls(T, text=typed))
        assert f"Your sentence fills all {T} tokens: none of the passage is shown." in said
        assert "Austen's text" not in said and SPAN_WORDS not in said
    said = _source(_controls(found.second + found.span, text="she was very happy"))
    assert SPAN_WORDS not in said and "what it copies lies under your typed tokens" in said


def test_the_strip_shows_typed_html_and_markdown_as_text():
    tokens = state.to_tokens(_controls(12, text="<b>bold</b> [link](http://x.y) *star* :red[x]"))
    shown = words_of.strip(tokens.words, tokens.filled_from, tokens.pasted, tokens.copied_from)
    assert "<b>" not in shown and "](" not in shown and "*star*" not in shown and ":red[" not in shown


def test_the_learn_sidebar_says_a_typed_sequence_replaces_the_passage():
    learn = open_app(PAGES["learn"], {"preset": PRESET, "task": "text", "sequence": "she was very happy"}, timeout=300)
    assert_clean(learn)
    said = " ".join(c.value for c in learn.sidebar.caption)
    assert words_of.LEARN_TYPED in said
    assert not any(re.match(r"\*\*The \d+ tokens:\*\*", m.value) for m in learn.markdown)  # no passage strip


def test_the_default_page_shows_the_repeat_of_its_passage():
    """Passage 0 is drawn so that its default length holds both copies (the induction head has something to copy
    on the first page a student opens), and the sidebar says so there."""
    found = presets.passage(TEXT.name, 0)
    assert found.repeats_within(presets.shown_length(TEXT))
    at = open_app(PAGES["inputs"], {"preset": PRESET}, timeout=300)
    assert_clean(at)
    assert SPAN_WORDS in " ".join(c.value for c in at.sidebar.caption)
    assert "⟦pasted copy" in _strip(at)
