"""From typed text to token vectors: words, ids, readable labels and deterministic embeddings."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np

from .config import MAX_TOKENS, Config
from .params import Params

MAX_WORD_CHARS = 24  # longer words are cut (with …) so every label fits on an axis
KEEP_FORMAT = {"\u200d"}  # zero-width joiner: part of many emoji; other invisible format marks go

# Words appended, in this order, when a sentence is shorter than the chosen sequence length.
FILLER = (
    "the cat sat on a warm mat while students watched every token look at "
    "all the others and decide how much each one matters for meaning here "
    "because attention mixes context from near and far across this short "
    "example sentence so patterns appear in rows columns heads and values"
).split()

Token = int | str


def clean_word(word: str) -> str:
    """NFC-normalise, drop control and invisible format characters, cut to MAX_WORD_CHARS."""
    text = unicodedata.normalize("NFC", word)
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co") or ch in KEEP_FORMAT)
    return text if len(text) <= MAX_WORD_CHARS else text[: MAX_WORD_CHARS - 1] + "…"


def tokenize(text: str) -> list[str]:
    """Split a sentence on white space into cleaned words (empty words are dropped)."""
    if not isinstance(text, str):
        raise ValueError(f"token text must be a string, got {type(text).__name__}")
    return [w for w in (clean_word(part) for part in text.split()) if w]


def fit_length(words: Sequence[Token], length: int) -> tuple[list[Token], int]:
    """Cut or pad (from FILLER, in order) to exactly `length` tokens; also say how many were added.

    A negative count means that many words were cut off the end.
    """
    if not isinstance(length, (int, np.integer)) or isinstance(length, bool) or not 1 <= length <= MAX_TOKENS:
        raise ValueError(f"sequence length must be a whole number between 1 and {MAX_TOKENS}, got {length!r}")
    words = list(words)
    if len(words) >= length:
        return words[:length], length - len(words)
    extra = [FILLER[i % len(FILLER)] for i in range(length - len(words))]
    return words + extra, len(extra)


def token_id(cfg: Config, token: Token) -> int | None:
    """The vocabulary id of a token, or None for a word the vocabulary does not know."""
    if isinstance(token, (int, np.integer)) and not isinstance(token, bool):
        if not 0 <= token < cfg.vocab_size:
            raise ValueError(f"token id {token} is outside the vocabulary: ids run from 0 to {cfg.vocab_size - 1}")
        return int(token)
    if isinstance(token, str):
        if not token:
            raise ValueError("a token cannot be an empty word")
        return cfg.vocab.index(token) if token in cfg.vocab else None
    raise ValueError(f"a token must be a word or a whole-number id, got {token!r}")


def label(cfg: Config, token: Token) -> str:
    """What a student reads for one token: the word, or the vocabulary word of an id."""
    index = token_id(cfg, token)
    return cfg.vocab[index] if index is not None else str(token)


def display_labels(labels: Sequence[str]) -> tuple[str, ...]:
    """Make labels unique for chart axes: a repeated word gets its position, e.g. 'the (4)'."""
    seen = {}
    for text in labels:
        seen[text] = seen.get(text, 0) + 1
    return tuple(text if seen[text] == 1 else f"{text} ({i})" for i, text in enumerate(labels))


def _word_seed(word: str, stream_seed: int) -> list[int]:
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
    return [int.from_bytes(digest[:4], "little"), int.from_bytes(digest[4:], "little"), stream_seed, 0x70C]


@lru_cache(maxsize=8192)
def _word_draw(word: str, stream_seed: int, d_model: int) -> np.ndarray:
    """The word's own d_model standard-normal draws (read-only; remembered: a new RandomState per word
    and run was most of a 64-token forward pass)."""
    raw = np.random.RandomState(_word_seed(word, stream_seed)).randn(d_model)  # (C,)
    raw.setflags(write=False)
    return raw


def unknown_word_vector(cfg: Config, word: str) -> np.ndarray:
    """A vector for a word outside the vocabulary, from its own stream: it never shifts a weight draw."""
    stream_seed = cfg.input_seed if cfg.embedding_stream == "inputs" else cfg.seed
    raw = _word_draw(word, stream_seed, cfg.d_model)  # (C,)
    return raw if cfg.embedding_stream == "inputs" else raw / np.sqrt(cfg.d_model)


def embed(cfg: Config, params: Params, tokens: Sequence[Token]) -> np.ndarray:
    """Input vectors (T, C) for tokens: table rows for known words and ids, own streams otherwise."""
    if isinstance(tokens, str):
        raise ValueError("pass a list of tokens (use engine.tokenize for a sentence)")
    if not isinstance(tokens, Iterable):
        raise ValueError(f"tokens must be a list of words or ids, got {type(tokens).__name__}")
    tokens = list(tokens)
    if not tokens:
        raise ValueError("there are no tokens: type at least one word")
    if len(tokens) > MAX_TOKENS:
        raise ValueError(f"{len(tokens)} tokens is too many; the engine takes at most {MAX_TOKENS}")
    rows = []
    for token in tokens:
        index = token_id(cfg, token)
        rows.append(params.embeddings[index] if index is not None else unknown_word_vector(cfg, token))
    x = np.stack(rows)  # (T, C)
    x.setflags(write=False)
    return x
