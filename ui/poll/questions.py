"""The poll's questions, each with its right answer computed from the engine's numbers for the
presenter's settings. Pure: each takes the traces the page shows and returns an Asked."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import engine
from engine import analysis
from ui.prose import exercise as words

QIDS = {"exercise": "the 5 → 6 prediction", "softmax": "the top key", "scores": "the spread after ÷√d"}


@dataclass(frozen=True)
class Asked:
    qid: str                                  # the page it belongs to
    prompt: str
    options: list[tuple[str, str]]            # (value stored, label shown)
    answer: str


def softmax_top_key(t: engine.Trace, head: int, row: int) -> Asked:
    """Which key takes the most weight in one row (ties go to the first such key)."""
    visible = np.flatnonzero(t.visible[row]) if t.visible is not None else np.arange(t.T)
    weights = t.weights[head][row]
    top = int(visible[np.argmax(weights[visible])])
    options = [(str(j), f"{j}: {t.labels[j]}") for j in visible]
    return Asked("softmax", f"Head {head}, query row {row} ({t.labels[row]}): which key will take the most weight "
                            "after the softmax?", options, str(top))


def scores_spread(t: engine.Trace, cfg: engine.Config, head: int) -> Asked:
    """What dividing by √d_head does to the spread (standard deviation) of one head's scores."""
    d = cfg.d_head
    seen = t.visible if t.visible is not None else np.ones(t.scores[head].shape, bool)
    raw = t.scores[head][seen]
    divided = t.scaled[head][seen] if cfg.scale_scores else raw / math.sqrt(d)
    ratio = float(np.std(divided) / np.std(raw))             # measured on the numbers shown
    candidates = {"same": (1.0, "it stays the same"),
                  "root": (1 / math.sqrt(d), f"it shrinks to 1/√{d} ≈ {1 / math.sqrt(d):.3f} of what it was"),
                  "full": (1 / d, f"it shrinks to 1/{d} ≈ {1 / d:.3f} of what it was"),
                  "grows": (math.sqrt(d), f"it grows √{d} ≈ {math.sqrt(d):.3f} times"),
                  "half": (0.5, "it halves"), "double": (2.0, "it doubles")}   # the last two for d_head = 1
    options, factors = [], []
    for value, (factor, label) in candidates.items():
        if all(abs(factor - f) > 1e-9 for f in factors) and len(options) < 4:   # d_head = 1: 1/√d = 1/d = 1
            options.append((value, label))
            factors.append(factor)
    answer = min(zip(options, factors), key=lambda of: abs(of[1] - ratio))[0][0]
    return Asked("scores", f"Head {head}, d_head = {d}: what happens to the spread (standard deviation) of the "
                           f"{t.T} × {t.T} scores when every score is divided by √d_head?", options, answer)


def exercise_prediction(ext: analysis.Extension, head: int) -> Asked:
    """The exercise's prediction: what appending a token does to the old rows (the first right choice)."""
    T = ext.before.T
    answer = next(c for c in words.PREDICTIONS if words.verdict(ext, head, c)[0] == "right")
    return Asked("exercise", f"Head {head}: what happens to the {T} rows of attention weights when the token "
                             f"{ext.after.labels[T]!r} is appended as token {T}?",
                 list(words.PREDICTIONS.items()), answer)
