"""Text helpers every sentence uses: user text shown literally inside Markdown, a token quoted. Pure Python."""

from __future__ import annotations

import string
from collections.abc import Callable

_PUNCT = set(string.punctuation)
Quote = Callable[[str], str]  # how a sentence quotes a token label (quote below, unless a caller wants plain)


def md_escape(text: str) -> str:
    """Show user text literally inside Markdown: every ASCII punctuation mark is backslash-escaped."""
    return "".join("\\" + ch if ch in _PUNCT else ch for ch in str(text))


def quote(label: str) -> str:
    """A token label quoted for a Markdown sentence (escaped: a token is user text)."""
    return "‘" + md_escape(label) + "’"


def plain(label: str) -> str:
    """A token label quoted, not escaped (for text that is not Markdown)."""
    return "‘" + str(label) + "’"
