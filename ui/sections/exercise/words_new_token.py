"""The exercise's new token, as a student gives it: a vocabulary id or one typed word (and why it cannot be
used), and where the default comes from. Pure Python."""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.config import Config
from engine.tokens import MAX_WORD_CHARS, Token, clean_word, token_id
from ui.prose.text import quote

Reader = Callable[[str], tuple[list[str], list[str]]]  # typed text -> (its tokens, the unknown words)

KINDS = ("id", "word")  # how the new token is given: a vocabulary id or a typed word
MAX_TYPED = 64  # characters a page lets a student type for the new word
_MARKUP = re.compile(r"<\s*/?\s*[A-Za-z!?][^<>]*>")  # an HTML-like tag such as <b>, </p> or <!-- x -->


def _short(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_next_token(cfg: Config, kind: str, value, read: Reader | None = None) -> Token:
    """The new token from a page's input: a vocabulary id, or one typed word. ValueError says what to fix.

    `read` is how a model that learned text reads what is typed (a task's reader, engine.text.read_text: its
    tokens, <unk> for a word outside its vocabulary, and the unknown words): the typed word is read as the
    sidebar's sentence is, and must be one token. Without it a word outside the vocabulary is kept as typed."""
    if kind == "id":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if value is None or isinstance(value, str):
            raise ValueError(f"choose a vocabulary id between 0 and {cfg.vocab_size - 1}")
        return token_id(cfg, value)  # ValueError: outside the vocabulary, or not a whole number
    if kind != "word":
        raise ValueError(f"the new token is given as one of {KINDS}, got {kind!r}")
    if not isinstance(value, str):
        raise ValueError(f"the typed word must be text, got {type(value).__name__}")
    parts = value.split()
    if not parts:
        raise ValueError("the word box is empty: type one word for the new token")
    if len(parts) > 1:
        raise ValueError(f"type a single word without spaces; ‘{_short(value.strip())}’ is {len(parts)} words")
    word = parts[0]
    if word in cfg.vocab:  # a token of the vocabulary (the text model's <unk> too)
        return word
    if _MARKUP.search(word):
        raise ValueError(
            f"‘{_short(word)}’ looks like HTML markup (a <…> tag); "
            "type a plain word: this page shows tokens as text and never runs markup"
        )
    if len(word) > MAX_WORD_CHARS:
        raise ValueError(f"‘{_short(word)}’ is {len(word)} characters long; a token may have at most {MAX_WORD_CHARS}")
    cleaned = clean_word(word)
    if not cleaned:
        raise ValueError("the typed word has only invisible characters: type a visible word")
    if read is None:
        return cleaned
    tokens, _ = read(cleaned)
    if len(tokens) != 1:
        shown = " ".join(f"‘{_short(t, 12)}’" for t in tokens[:6]) + (" …" if len(tokens) > 6 else "")
        raise ValueError(
            f"‘{_short(cleaned)}’ is read as {len(tokens)} tokens ({shown}): type one of them"
            if tokens
            else f"‘{_short(cleaned)}’ has no token this model reads: type a word"
        )
    return tokens[0]


def unknown_note(cfg: Config, typed, token: Token, read: Reader | None) -> str:
    """A sentence when a model that reads text read the typed word as its unknown token (else empty)."""
    if read is None or not isinstance(typed, str) or token != cfg.vocab[0] or typed.strip() == cfg.vocab[0]:
        return ""
    return (
        f" {quote(_short(typed.strip()))} is not among the {cfg.vocab_size:,} tokens this model knows, so it "
        f"reads {quote(cfg.vocab[0])} there, as the sidebar does."
    )


def default_token_note(word: str, vocab_id: int | None, T: int) -> str:
    """Where the default new token comes from (word already quoted): this app's rule, not an article's."""
    said = f"Default: {word}" + (f" (id {vocab_id})" if vocab_id is not None else "")
    return (
        said + f", the token the sidebar's sequence-length slider appends when moved from {T} to {T + 1}, so "
        f"both give the same {T + 1}-token run. This is this app's choice: the articles name no "
        f"{ordinal(T + 1)} token."
    )


def past_training(T: int, trained_length: int | None) -> str:
    """A sentence when the (T + 1)-token run puts a trained model at a position its training never reached
    (trained_length: the length of its training sequences; None for untrained weights), else empty."""
    if trained_length is None or T + 1 <= trained_length:
        return ""
    return (
        f" The model trained on {trained_length}-token sequences (positions 0–{trained_length - 1}): the "
        f"{ordinal(T + 1)} token sits at position {T}, where it never saw a token in training, and its new row "
        "shows the model outside its training."
    )


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st, …"""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
