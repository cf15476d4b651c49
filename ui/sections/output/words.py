"""The block output page's live words: what the ReLU zeroed and how far the feed-forward layer moved the
vectors, compared, not asserted (pure Python)."""

from __future__ import annotations

import numpy as np

from engine import Trace
from ui.prose.numbers import count, fmt, next_to


def output_notice(t: Trace) -> str:
    """What the ReLU zeroed and how far the feed-forward layer moved the vectors, compared, not asserted."""
    T, F = t.ffn_hidden.shape
    zeros = float((t.ffn_hidden == 0).mean())
    said = f"the ReLU zeroed {fmt(zeros, '.0%')} of the {count(T * F, 'hidden value')}"
    if not t.config.residual:
        return said + (
            f"; without residuals the output is only what the feed-forward layer makes of the "
            f"attention output (mean |output| {fmt(float(np.abs(t.output).mean()), '.3f')} per entry)."
        )
    moved = float(np.abs(t.output - t.after_attn).mean())  # the FFN's own part: hidden·W₂ + b₂
    carried = float(np.abs(t.after_attn).mean())  # what the residual path brings
    compare = next_to(moved / carried if carried > 0 else float("inf"))  # the one scale of magnitude words
    return said + (
        f"; the feed-forward layer then moved the vectors by {fmt(moved, '.3f')} on average per entry, "
        f"{compare} the {fmt(carried, '.3f')} the residual path carries through (mean "
        f"|{'X + P' if t.positions is not None else 'X'} + attn|)."
    )
