"""English text for a language model: Jane Austen's six novels (assets/text/, made by factory.corpus),
a tokenizer for them and for typed sentences, and windows of real text to train and test on.

Tokens: lowercased words (an apostrophe inside a word stays: "don't"; a final 's is a token of its
own: "emma 's"), every punctuation mark ("--" is one), "mr." and "mrs." whole, and ¶ at the end of
each paragraph. The vocabulary is the 999 most frequent tokens of the training chapters plus <unk>
(id 0) for every other word. Every tenth chapter is held out: no training window comes from it.

Nothing here reads the corpus until a window or the corpus itself is asked for (corpus() keeps
it once read); importing the engine reads only the vocabulary (vocab.txt, 1,000 lines).
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .config import MAX_TOKENS

FOLDER = Path(__file__).resolve().parents[1] / "assets" / "text"
CORPUS_NAME, VOCAB_NAME = "austen.txt.gz", "vocab.txt"
UNKNOWN, PARAGRAPH = "<unk>", "¶"  # id 0: any word outside the vocabulary; a paragraph's end
ENDS = (".", "!", "?")  # a sentence ends with one of these
VOCAB_SIZE = 1000  # <unk> and the 999 most frequent tokens
HELD_OUT_EVERY = 10  # chapters 10, 20, 30 ... of the six novels are held out
REPEAT_SHARE = 0.5  # windows in which a span of their text comes again
SPLITS = ("train", "held_out")

# <unk> and a lone 's (after a space or at the start) are tokens as the pages write them back: a sentence shown as
# its tokens joined by spaces ("emma 's father") reads back to the same tokens. The corpus has no lone 's.
TOKEN = re.compile(r"<unk>|(?<!\S)'s\b|\b(?:mrs|mr|dr|st)\.|[^\W_]+(?:'[^\W_]+)*|--|[^\s_]", re.IGNORECASE)
TYPOGRAPHY = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2014": "--", "\u2013": "-"}


def pieces(text: str) -> list[str]:
    """The tokens of text as written (case kept); words() lowercases them."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    text = unicodedata.normalize("NFKC", text)
    for curly, plain in TYPOGRAPHY.items():
        text = text.replace(curly, plain)
    found = []
    for piece in TOKEN.findall(text):
        possessives = []
        while len(piece) > 2 and piece[-2:].lower() == "'s":
            piece, possessives = piece[:-2], [piece[-2:]] + possessives  # "Emma's" -> "Emma", "'s"
        found += [piece] + possessives
    return found


def words(text: str) -> list[str]:
    """Lowercased tokens of a sentence: words, punctuation marks, ¶."""
    return [piece.lower() for piece in pieces(text)]


@lru_cache(maxsize=1)
def vocabulary() -> tuple[str, ...]:
    """The model's tokens, id = position: <unk> first, then the most frequent first."""
    path = FOLDER / VOCAB_NAME
    try:
        vocab = tuple(path.read_text(encoding="utf-8").split("\n")[:-1])
    except OSError as error:
        raise ValueError(
            f"{path} cannot be read ({error}): restore it from git or run python -m factory.corpus --build"
        ) from error
    if len(vocab) != VOCAB_SIZE or vocab[0] != UNKNOWN:
        raise ValueError(f"{path} must list {VOCAB_SIZE} tokens, {UNKNOWN} first: python -m factory.corpus --build")
    return vocab


@lru_cache(maxsize=1)
def index() -> dict[str, int]:
    """token -> id."""
    return {token: i for i, token in enumerate(vocabulary())}


@dataclass(frozen=True)
class Encoded:
    """A typed sentence as the model reads it."""

    words: tuple[str, ...]  # its tokens, lowercased (an unknown word as typed)
    ids: tuple[int, ...]  # their ids; 0 (<unk>) for a word outside the vocabulary
    unknown: tuple[int, ...]  # positions of the words the vocabulary does not know

    @property
    def unknown_words(self) -> tuple[str, ...]:
        return tuple(self.words[i] for i in self.unknown)

    @property
    def labels(self) -> tuple[str, ...]:
        """What the model sees: the word, or <unk>."""
        return tuple(UNKNOWN if i in self.unknown else word for i, word in enumerate(self.words))


def encode(text: str) -> Encoded:
    """Token ids of a typed sentence, and which of its words are unknown (<unk>)."""
    found, known = words(text), index()
    if not found:
        raise ValueError("there are no tokens: type at least one word")
    if len(found) > MAX_TOKENS:
        raise ValueError(f"{len(found)} tokens is too many; the engine takes at most {MAX_TOKENS}")
    ids = tuple(known.get(word, 0) for word in found)
    unknown = tuple(i for i, (word, id_) in enumerate(zip(found, ids)) if id_ == 0 and word != UNKNOWN)
    return Encoded(words=tuple(found), ids=ids, unknown=unknown)


def read_text(typed: str, limit: int = MAX_TOKENS) -> tuple[list[str], list[str]]:
    """A typed text as the pages read it: its first `limit` tokens as the model sees them (<unk> for a word
    outside the vocabulary), and those unknown words as typed (in order, each once). No tokens: two empty lists."""
    found = words(typed)[: max(0, min(int(limit), MAX_TOKENS))]
    if not found:
        return [], []
    read = encode(" ".join(found))
    return list(read.labels), list(dict.fromkeys(read.unknown_words))


def read_chapters(path: Path | None = None) -> list[tuple[str, list[str]]]:
    """(title, paragraphs) of every chapter in the corpus file, in order."""
    path = FOLDER / CORPUS_NAME if path is None else Path(path)
    chapters: list[tuple[str, list[str]]] = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            line = line.rstrip("\n")
            if line.startswith("= "):
                chapters.append((line[2:], []))
            elif line:
                chapters[-1][1].append(line)
    return chapters


def is_held_out(chapter: int) -> bool:
    """Chapter k (from 0, across the six novels) is held out when k + 1 is a multiple of HELD_OUT_EVERY."""
    return (chapter + 1) % HELD_OUT_EVERY == 0


def count_vocabulary(chapters: list[tuple[str, list[str]]]) -> tuple[str, ...]:
    """<unk>, then the VOCAB_SIZE - 1 most frequent tokens of the training chapters (ties by token)."""
    counts = Counter(PARAGRAPH for k, (_, paras) in enumerate(chapters) if not is_held_out(k) for _ in paras)
    for k, (_, paras) in enumerate(chapters):
        if not is_held_out(k):
            for paragraph in paras:
                counts.update(words(paragraph))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return (UNKNOWN,) + tuple(token for token, _ in ranked[: VOCAB_SIZE - 1])


def sentence_starts(tokens: list[str]) -> list[int]:
    """Where sentences start in one paragraph's tokens (case kept): at 0, and after . ! or ? (and a
    closing quote) where a capital letter or an opening quote follows; quotes alternate open, close."""
    starts, quotes = [0], 0
    for i, token in enumerate(tokens):
        quotes += token == '"'
        if token in ENDS:
            j = i + 1
            if j < len(tokens) and tokens[j] == '"' and quotes % 2 == 1:
                j += 1  # the quote closes the sentence's speech
            if j < len(tokens) and (tokens[j][0].isupper() or (tokens[j] == '"' and quotes % 2 == 0)):
                starts.append(j)
    return starts


@dataclass(frozen=True)
class Corpus:
    """The novels as one stream of ids, chapter after chapter, and where sentences start."""

    ids: np.ndarray  # (N,) every token's id (0 = <unk>), each paragraph followed by ¶
    bounds: np.ndarray  # (K+1,) chapter k holds ids[bounds[k]:bounds[k+1]]
    titles: tuple[str, ...]  # (K,) e.g. "Emma, chapter 3"
    held_out: np.ndarray  # (K,) True for a held-out chapter
    starts: np.ndarray  # (S,) positions where a sentence starts
    room: np.ndarray  # (S,) tokens from each start to the end of its chapter
    start_held_out: np.ndarray  # (S,) True where the start lies in a held-out chapter
    paragraphs: tuple[str, ...]  # (P,) the text of every paragraph, to show real words
    paragraph_at: np.ndarray  # (P+1,) paragraph p holds ids[paragraph_at[p]:paragraph_at[p+1]]

    def words(self, start: int, stop: int) -> list[str]:
        """The real words (lowercased, unknown ones too) at positions start .. stop-1."""
        first = int(np.searchsorted(self.paragraph_at, start, side="right")) - 1
        found, p = [], first
        while len(found) < stop - self.paragraph_at[first] and p < len(self.paragraphs):
            found += words(self.paragraphs[p]) + [PARAGRAPH]
            p += 1
        return found[start - self.paragraph_at[first] : stop - self.paragraph_at[first]]


@lru_cache(maxsize=1)
def corpus() -> Corpus:
    """The corpus, read and tokenized once per process (about a second)."""
    known, stream, starts, paragraphs, paragraph_at, bounds, titles = index(), [], [], [], [], [0], []
    for title, paras in read_chapters():
        for paragraph in paras:
            cased = pieces(paragraph) + [PARAGRAPH]
            starts += [len(stream) + s for s in sentence_starts(cased)]
            paragraph_at.append(len(stream))
            paragraphs.append(paragraph)
            stream += cased
        bounds.append(len(stream))
        titles.append(title)
    ids = np.array([known.get(token.lower(), 0) for token in stream], dtype=np.int32)  # (N,)
    bounds, starts = np.array(bounds), np.array(starts)
    chapter = np.searchsorted(bounds, starts, side="right") - 1  # (S,) the chapter of each start
    held_out = np.array([is_held_out(k) for k in range(len(titles))])
    arrays = dict(
        ids=ids,
        bounds=bounds,
        held_out=held_out,
        starts=starts,
        room=bounds[chapter + 1] - starts,
        start_held_out=held_out[chapter],
        paragraph_at=np.array(paragraph_at + [len(stream)]),
    )
    for array in arrays.values():
        array.setflags(write=False)
    return Corpus(titles=tuple(titles), paragraphs=tuple(paragraphs), **arrays)
