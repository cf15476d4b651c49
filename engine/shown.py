"""The text task's own sequences, shipped beside its corpus (assets/text/shown.json): a fresh server draws a
text preset's first page without reading and tokenizing the novels (about 1.3 s of one core); any other
length reads the corpus once per process, as before. The file names the corpus and vocabulary it was drawn
from (their SHA-256); a file that does not match them, or cannot be read, is not used. Pure Python.

    python -m ui.shell.presets --ship-shown       # write it again (after the corpus or the sample rule changes)
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from engine.text import CORPUS_NAME, FOLDER, VOCAB_NAME

PATH = FOLDER / "shown.json"


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


def lookup(task: str, T: int, path: Path = PATH) -> tuple[np.ndarray, np.ndarray] | None:
    """(ids, targets) of the task's own sequence of T tokens as shipped, read-only; None if not shipped."""
    entry = _shipped(path).get(task, {}).get(str(T))
    try:
        ids, targets = (np.array(entry[k], dtype=np.int64) for k in ("ids", "targets"))   # (T,) each
    except (TypeError, KeyError, ValueError):
        return None
    if ids.shape != (T,) or targets.shape != (T,):
        return None
    ids.setflags(write=False)
    targets.setflags(write=False)
    return ids, targets


def write(samples: dict[str, dict[int, tuple[np.ndarray, np.ndarray]]], path: Path = PATH) -> Path:
    """Ship {task: {T: (ids, targets)}} for the corpus as it is now."""
    body = {"corpus": corpus_digest()} | {
        task: {str(T): {"ids": [int(i) for i in ids], "targets": [int(t) for t in targets]}
               for T, (ids, targets) in by_length.items()}
        for task, by_length in samples.items()}
    path.write_text(json.dumps(body, separators=(",", ":")) + "\n", encoding="utf-8")
    _shipped.cache_clear()
    return path
