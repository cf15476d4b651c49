"""The text preset's own passage, shipped beside its corpus (assets/text/shown.json): a fresh server draws a
text preset's first page without reading and tokenizing the novels (about 1.3 s of one core). It holds ONE
window of the task's training length and where it came from (its corpus start, the task's repeated span, the
novel and chapter); every length shows its first tokens. Another passage reads the corpus once per process.
The file names the corpus and vocabulary it was drawn from (their SHA-256); a file that does not match them,
or cannot be read, is not used. Pure Python.

    python -m ui.shell.presets --ship-shown       # write it again (after the corpus or the sample rule changes)
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from engine.text import CORPUS_NAME, FOLDER, VOCAB_NAME

PATH = FOLDER / "shown.json"


@dataclass(frozen=True)
class Passage:
    """One window of held-out text as engine.windows draws it: its tokens x[0:L] and targets x[1:L+1], where
    its text starts in the corpus, and the task's repeat: positions second .. second+span-1 are a copy of
    first .. first+span-1 (pasted by the task, not the author's words); the rest is the corpus from begin on."""

    ids: np.ndarray  # (L,) read-only
    targets: np.ndarray  # (L,) read-only
    begin: int  # corpus position of ids[0]
    first: int  # where the span's first copy starts (-1: no repeat)
    second: int  # where its pasted second copy starts (-1: no repeat)
    span: int  # the span's length (0: no repeat)
    title: str  # the chapter it comes from, e.g. "Emma, chapter 31"

    def source(self, T: int) -> np.ndarray:
        """(T,) the corpus position each of the first T tokens was read from (a pasted token: its first copy's)."""
        pos = np.arange(T)
        if self.span <= 0:
            return self.begin + pos
        a, s, m = self.second, self.first, self.span
        return self.begin + np.where(pos < a, pos, np.where(pos < a + m, s + pos - a, pos - m))

    def pasted(self, T: int) -> range:
        """The positions of the pasted copy among the first T tokens (empty when it starts at T or later)."""
        return range(max(self.second, 0), min(self.second + self.span, T)) if self.span > 0 else range(0)

    def repeats_within(self, T: int) -> bool:
        """Both copies of the repeated span lie wholly within the first T tokens."""
        return self.span > 0 and self.second + self.span <= T


def corpus_digest() -> str:
    """What the sequences were drawn from: the corpus and the vocabulary files' bytes."""
    sha = hashlib.sha256()
    for name in (CORPUS_NAME, VOCAB_NAME):
        sha.update((FOLDER / name).read_bytes())
    return sha.hexdigest()[:16]


@lru_cache(maxsize=1)
def _shipped(path: Path = PATH) -> dict:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        return found if isinstance(found, dict) and found.get("corpus") == corpus_digest() else {}
    except (OSError, ValueError):
        return {}


def lookup(task: str, path: Path = PATH) -> Passage | None:
    """The task's own passage as shipped (arrays read-only); None if not shipped or malformed."""
    entry = _shipped(path).get(task)
    try:
        ids, targets = (np.array(entry[k], dtype=np.int64) for k in ("ids", "targets"))  # (L,) each
        where = {k: int(entry[k]) for k in ("begin", "first", "second", "span")}
        title = entry["title"]
    except (TypeError, KeyError, ValueError):
        return None
    if ids.ndim != 1 or targets.shape != ids.shape or not isinstance(title, str):
        return None
    ids.setflags(write=False)
    targets.setflags(write=False)
    return Passage(ids=ids, targets=targets, title=title, **where)


def write(passages: dict[str, Passage], path: Path = PATH) -> Path:
    """Ship {task: passage} for the corpus as it is now."""
    body = {"corpus": corpus_digest()} | {
        task: {
            "ids": [int(i) for i in p.ids],
            "targets": [int(t) for t in p.targets],
            "begin": int(p.begin),
            "first": int(p.first),
            "second": int(p.second),
            "span": int(p.span),
            "title": p.title,
        }
        for task, p in passages.items()
    }
    path.write_text(json.dumps(body, separators=(",", ":")) + "\n", encoding="utf-8")
    _shipped.cache_clear()
    return path
