"""What a figure was measured on, in words, from its engine.sample.Sample (issue 47: a figure carries its sample): the
one function every caption and notice prints its sample with, never a typed count."""

from __future__ import annotations

from engine.sample import Sample
from ui.prose.numbers import fmt


def said(sample: Sample) -> str:
    """'1,000 fresh 8-token sequences', '256 64-token windows of held-out text', '50 64-token windows of
    held-out text, 50% of them repeating a span of their text', '50 64-token windows of the training chapters'."""
    many = sample.n != 1
    if not sample.text:
        return f"{sample.n:,} fresh {sample.T}-token sequence{'s' * many}"
    where = "held-out text" if sample.held_out else "the training chapters"
    words = f"{sample.n:,} {sample.T}-token window{'s' * many} of {where}"
    if sample.held_out and sample.repeats == 1:
        return words + (", each repeating a span of its text" if many else ", repeating a span of its text")
    if sample.held_out and sample.repeats > 0:
        return words + f", {fmt(sample.repeats, '.0%')} of them repeating a span of their text"
    return words
