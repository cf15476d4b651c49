"""English text: the tokenizer and a typed sentence's ids, the shipped corpus and its vocabulary, the
held-out split, and the text task's windows (sentence starts, next-token targets, repeated spans)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import engine
from conftest import run_probe
from engine import language, text
from engine.windows import text_keys, windows

TASK = engine.TASKS["text"]


def test_words_are_lowercased_words_and_marks():
    assert text.words("Well, I never!") == ["well", ",", "i", "never", "!"]
    assert text.words("Emma's friend--Mr. Knightley--said \u201cno\u201d.") == [
        "emma",
        "'s",
        "friend",
        "--",
        "mr.",
        "knightley",
        "--",
        "said",
        '"',
        "no",
        '"',
        ".",
    ]
    assert text.words("don't   twenty-one\n\u00b6") == ["don't", "twenty", "-", "one", "\u00b6"]
    assert text.words("_them_") == ["them"]  # the corpus's italics marks go


@settings(max_examples=300, deadline=None)
@given(
    hst.lists(
        hst.sampled_from(list("emaEMA's'  -._,.!\u2019\u2014\u00b6<>unk") + ["mr.", "<unk>", "'s", "--"]), max_size=40
    ).map("".join)
    | hst.text(max_size=60)
)
def test_tokens_written_back_as_the_pages_write_them_read_back_the_same(typed):
    """A sentence is shown as its tokens joined by spaces (the token box, a link's text=, a lesson's step);
    reading that again gives the same tokens, possessives included ("emma 's": 's was read as ' and s)."""
    found = text.words(typed)
    assert text.words(" ".join(found)) == found


def test_every_vocabulary_token_and_held_out_window_reads_back_the_same():
    vocab = text.vocabulary()
    assert [v for v in vocab if text.words(v) != [v]] == []
    for row in language.held_out(100, 0, 64).tokens:
        shown = [vocab[i] for i in row]
        assert text.read_text(" ".join(shown)) == (shown, [])
    assert text.read_text("Emma's father") == (["emma", "'s", "father"], [])


def test_encode_names_the_unknown_words():
    encoded = text.encode("The zorblax sat with Emma and a computer.")
    vocab = text.vocabulary()
    assert encoded.words == ("the", "zorblax", "sat", "with", "emma", "and", "a", "computer", ".")
    assert encoded.unknown == (1, 7) and encoded.unknown_words == ("zorblax", "computer")
    assert [encoded.ids[i] for i in encoded.unknown] == [0, 0]
    assert all(vocab[i] == w for i, w in zip(encoded.ids, encoded.words) if w not in encoded.unknown_words)
    assert encoded.labels[1] == text.UNKNOWN and encoded.labels[0] == "the"


def test_encode_one_word_and_64_tokens():
    one = text.encode("Emma")
    assert one.words == ("emma",) and one.unknown == () and one.ids == (text.index()["emma"],)
    long = text.encode(" ".join(["she", "said", ","] * 21 + ["no"]))
    assert len(long.ids) == 64 and long.unknown == ()
    with pytest.raises(ValueError, match="at least one word"):
        text.encode("   ")
    with pytest.raises(ValueError, match="at most 1024"):
        text.encode("so " * 1025)
    with pytest.raises(ValueError, match="string"):
        text.encode(42)


def test_vocabulary_is_the_most_frequent_training_tokens():
    vocab = text.vocabulary()
    assert len(vocab) == len(set(vocab)) == text.VOCAB_SIZE and vocab[0] == text.UNKNOWN
    assert {text.PARAGRAPH, *text.ENDS, ",", '"', "mr.", "'s"} <= set(vocab)
    assert vocab == text.count_vocabulary(text.read_chapters())  # vocab.txt is what the corpus gives
    assert TASK.vocab == vocab


def test_held_out_chapters_are_every_tenth():
    corpus = text.corpus()
    K = len(corpus.titles)
    assert K == 269 and corpus.held_out.tolist() == [(k + 1) % 10 == 0 for k in range(K)]
    assert corpus.titles[0] == "Sense and Sensibility, chapter 1" and corpus.titles[-1] == "Persuasion, chapter 24"
    assert len(corpus.ids) > 800_000 and corpus.bounds[-1] == len(corpus.ids)
    held = sum(corpus.bounds[k + 1] - corpus.bounds[k] for k in range(K) if corpus.held_out[k])
    assert 0.07 < held / len(corpus.ids) < 0.13


def test_sentences_start_after_a_sentence_end():
    corpus, vocab = text.corpus(), text.vocabulary()
    before = corpus.ids[corpus.starts[corpus.starts > 0] - 1]  # the token before each start
    allowed = {vocab.index(t) for t in (*text.ENDS, '"', text.PARAGRAPH)}
    assert set(np.unique(before).tolist()) <= allowed
    assert set(corpus.bounds[:-1].tolist()) <= set(corpus.starts.tolist())  # every chapter starts one
    assert text.sentence_starts(text.pieces('"Oh!" cried she. "Yes." He left.')) == [0, 7, 11]


def test_the_real_words_of_a_window_are_its_ids():
    corpus, known = text.corpus(), text.index()
    for start in corpus.starts[::4000]:
        found = corpus.words(int(start), int(start) + 80)
        assert len(found) == 80
        assert [known.get(w, 0) for w in found] == corpus.ids[start : start + 80].tolist()


@pytest.mark.parametrize("split", text.SPLITS)
def test_windows_start_at_sentence_starts_and_targets_are_next_tokens(split):
    corpus = text.corpus()
    drawn = windows(split, np.random.RandomState(1), 400, 64, repeat_share=0.0)
    assert drawn.tokens.shape == drawn.targets.shape == (400, 64)
    assert np.isin(drawn.begin, corpus.starts).all()
    chapter = np.searchsorted(corpus.bounds, drawn.begin, side="right") - 1
    assert (corpus.held_out[chapter] == (split == "held_out")).all(), "a window from the other split"
    assert (drawn.begin + 65 <= corpus.bounds[chapter + 1]).all(), "a window runs into the next chapter"
    read = corpus.ids[drawn.begin[:, None] + np.arange(65)]  # (400, 65)
    assert np.array_equal(drawn.tokens, read[:, :-1]) and np.array_equal(drawn.targets, read[:, 1:])
    assert (drawn.first == -1).all() and (drawn.span == 0).all()


def test_repeated_spans_really_repeat():
    drawn = windows("held_out", np.random.RandomState(2), 300, 64, repeat_share=1.0)
    corpus = text.corpus()
    spans = set()
    for row in range(300):
        s, a, m = drawn.first[row], drawn.second[row], drawn.span[row]
        seq = np.append(drawn.tokens[row], drawn.targets[row, -1])  # x[0] .. x[T]
        assert 0 <= s and s + m <= a and a + m <= 64 and m >= 4
        assert np.array_equal(seq[a : a + m], seq[s : s + m])
        real = corpus.ids[drawn.begin[row] : drawn.begin[row] + 65]
        assert np.array_equal(seq[:a], real[:a]) and np.array_equal(seq[a + m :], real[a : 65 - m])
        spans.add(int(m))
    assert len(spans) > 15, "span lengths vary"
    queries, keys = drawn.copy_queries(), drawn.copy_keys()
    assert queries.sum() == (drawn.span - 1).sum()
    for row, i in zip(*np.nonzero(queries)):
        (j,) = np.flatnonzero(keys[row, i])
        assert drawn.tokens[row, j] == drawn.targets[row, i] and drawn.tokens[row, j - 1] == drawn.tokens[row, i]


def test_the_task_mixes_plain_and_repeating_windows():
    tokens, targets = TASK.sample(np.random.RandomState(3), 2000)
    assert tokens.shape == (2000, TASK.seq_len) and np.array_equal(targets[:, :-1], tokens[:, 1:])
    drawn = windows("train", np.random.RandomState(3), 2000, TASK.seq_len)
    assert np.array_equal(drawn.tokens, tokens) and np.array_equal(drawn.targets, targets)
    assert abs(np.mean(drawn.span > 0) - text.REPEAT_SHARE) < 0.05
    short, _ = TASK.sample(np.random.RandomState(3), 5, 2)  # too short to repeat: plain text
    assert short.shape == (5, 2)


def test_expected_keys_include_the_copy_and_hold_the_answer():
    drawn = windows("held_out", np.random.RandomState(4), 100, 64, repeat_share=1.0)
    keys = text_keys(drawn.tokens)
    assert np.array_equal(keys, TASK.expected_keys(drawn.tokens))
    for row, i in zip(*np.nonzero(keys.any(axis=-1))):
        where = np.flatnonzero(keys[row, i])
        assert where.max() <= i and i < 63
        assert (drawn.tokens[row, where] == drawn.tokens[row, i + 1]).all()
    copy = drawn.copy_keys() & (drawn.tokens != 0)[:, :, None]
    assert not (copy & ~keys).any(), "the copy's key is always an expected key (but for <unk>)"


def test_importing_the_engine_reads_no_corpus():
    """A fresh interpreter: import engine opens vocab.txt only; drawing a window opens the corpus."""
    result = run_probe("""
import json, sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
import engine
from engine import language, text
before = [p for p in opened if "assets/text" in p]
cached = text.corpus.cache_info().currsize
import numpy as np
engine.TASKS["text"].sample(np.random.RandomState(0), 2)
after = [p for p in opened if "assets/text" in p]
print(json.dumps({"before": before, "cached": cached, "after": after}))
""")
    assert [p.rsplit("/", 1)[-1] for p in result["before"]] == ["vocab.txt"]
    assert result["cached"] == 0
    assert any(p.endswith(text.CORPUS_NAME) for p in result["after"])


def test_a_fresh_servers_first_page_reads_no_corpus():
    result = run_probe("""
import json
from streamlit.testing.v1 import AppTest
from engine import language, text
at = AppTest.from_file("streamlit_app.py", default_timeout=60)
at.run()
assert not at.exception, at.exception
print(json.dumps({"read": text.corpus.cache_info().currsize}))
""")
    assert result["read"] == 0
