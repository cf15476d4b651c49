"""The model view's knock-out words: which heads are out, what changed, and how it was done."""

from __future__ import annotations

import math

import numpy as np

from engine.sample import Sample
from ui.prose.numbers import fmt, names
from ui.prose.sample import said

MODE = (
    "zero-ablation: a knocked-out head's output is replaced by zeros before the heads are concatenated; "
    "its map is still computed and drawn, and every later layer reads what is left"
)
BARELY = 0.02  # a knock-out that moves the accuracy by at most this (2 points) "barely moves" it
BARELY_LOSS = 0.05  # ... and the loss by at most this share of its value (5%)
ROLE_MIN = 0.5  # a map's label names its strongest role when that score reaches this, else "no clear role"


def _heads(knocked) -> str:
    return names([f"layer {layer} head {head}" for layer, head in knocked])


def _sequences(sample: Sample, seq_len: int) -> str:
    """The sample a figure was measured on (saying so when its length is not the training length)."""
    return said(sample) + ("" if sample.T == seq_len else f" (the model was trained on {seq_len} tokens)")


def metrics_caption(task_title: str, knocked, sample: Sample, seq_len: int) -> str:
    """What the accuracy and loss metrics measured: on `sample`, of the length shown."""
    if not knocked:
        return (
            f"The task '{task_title}' on {_sequences(sample, seq_len)}, no head knocked out. Pick heads above to "
            f"remove them ({MODE})."
        )
    return (
        f"The task '{task_title}' on {_sequences(sample, seq_len)} with {_heads(knocked)} knocked out; the deltas "
        f"compare with no knock-out on the same sequences. Method: {MODE}."
    )


def no_task(knocked, before: np.ndarray, after: np.ndarray) -> str:
    """An article's preset: no task to score, so what the knock-out does to the last block's output rows."""
    said = "This preset is an article's block with no task, so there is no accuracy to score. "
    if not knocked:
        return said + f"Pick heads above to knock them out ({MODE}) and see each output row's norm change."
    change = np.abs(after - before)
    biggest = int(np.argmax(change))
    return said + (
        f"With {_heads(knocked)} knocked out ({MODE}), the last block's output rows change norm by "
        f"{fmt(change.mean(), '.3f')} on average, the most at row {biggest} "
        f"({fmt(before[biggest], '.3f')} → {fmt(after[biggest], '.3f')})."
    )


def redrawn(knocked, first: int, L: int) -> str:
    """Which maps a knock-out changes: only those of the layers after the first knocked-out head's."""
    later = list(range(first + 1, L))
    said = f"Knocked out: {_heads(knocked)}. "
    if later:
        said += (
            "The maps of " + names([f"layer {layer}" for layer in later]) + " are redrawn: they read what "
            "the knock-out left. "
        )
    return said + f"The maps of layer{'s' * (first > 0)} {names([str(n) for n in range(first + 1)])} are unchanged."


def role(name: str, score: float) -> str:
    """A map's label from engine.evidence.HeadScores.role: 'previous token 0.77' or 'no clear role (best 0.31)'."""
    if name == "no clear role":
        return f"no clear role (best {fmt(score, '.2f')} < {ROLE_MIN})"
    return f"{name} {fmt(score, '.2f')}"


def roles_caption(sample: Sample, T: int) -> str:
    """How the roles were measured (on `sample`, at the training length, whatever length T the page shows)."""
    at = "the training length" + ("" if T == sample.T else f", not the {T} shown")
    return (
        f"Each head is scored on {said(sample)} of the task ({at}): its mean weight on the previous token, on the "
        "first token, on the token right after an earlier copy of the current one (induction, measured on "
        "the first half of each of these sequences followed by itself, so every token of the second half has an "
        "earlier copy; those halves are the task's own tokens and may repeat a token within a half) and on the "
        "task's own keys (at the positions the task scores). The strongest measured role is the strongest score, "
        f"or 'no clear role' when none reaches {ROLE_MIN}; the label beside it is what its controls support "
        "(the table of roles with controls below). Measured without knock-outs."
    )


def text_caption(knocked, plain: Sample, repeated: Sample) -> str:
    """What a text model's two loss metrics measured: on the plain windows, and on the second copies of the
    repeating ones."""
    what = (
        f"Mean loss per token (nats; lower is better) on {said(plain)} (chapters the model never trained on), "
        f"and on the second copy of the span in {said(repeated)}, where copying the first copy pays"
    )
    if not knocked:
        return what + f". Pick heads above to remove them ({MODE})."
    return what + f", with {_heads(knocked)} knocked out; the deltas compare with no knock-out. Method: {MODE}."


def next_caption(last: str, best: list[tuple[str, float]], unknown: str) -> str:
    """What the next-token table shows, and a word on the stand-in for unknown words."""
    said = (
        f"After ‘{last}’ the model gives {fmt(best[0][1], '.1%')} to ‘{best[0][0]}’"
        + (f" and {fmt(best[1][1], '.1%')} to ‘{best[1][0]}’" if len(best) > 1 else "")
        + "."
    )
    if any(w == unknown for w, _ in best):
        said += f" {unknown} stands for every word outside its 1,000 tokens: predicting it means 'some rarer word'."
    return said


def text_roles_caption(plain: Sample, repeated: Sample) -> str:
    """How a text model's roles and knock-out costs were measured (engine.language.Evidence's samples)."""
    return (
        f"Each head is scored on {said(plain)}, over the queries that see more than one key (the first row's "
        "one key gets weight 1 by force): its mean weight on the previous token, on its own token, on the "
        "window's first token, on the latest punctuation mark or paragraph end before it, and (in "
        f"{said(repeated)}) on the token right after the span's first copy of its own token: induction. "
        "The strongest measured role is the strongest score, or 'no clear role' "
        f"when none reaches {ROLE_MIN}; the label beside it is what its controls support (the table of roles "
        "with controls below). The last two columns: how much the held-out loss and the second copy's "
        "loss (nats a token) rise with that head alone knocked out; an induction head's effect shows on the "
        "second copy, where the overall loss barely moves. Measured without knock-outs, once per set of weights."
    )


def _loss_words(before: float, after: float) -> str:
    """What a knock-out did to the loss: 'the loss grows to 15 times its value (0.0302 → 0.454)'."""
    ratio, shown = after / before, f"({fmt(before, '.3g')} → {fmt(after, '.3g')})"
    if abs(ratio - 1) <= BARELY_LOSS:
        return f"the loss barely moves {shown}"
    if ratio > 1:
        return f"the loss grows to {fmt(ratio, '.2g')} times its value {shown}"
    return f"the loss falls to {fmt(ratio, '.0%')} of its value {shown}"


def knockout_effect(before: float, after: float, loss_before: float, loss_after: float) -> str:
    """What a knock-out did, in both measures the page has (accuracy and loss, on the same sequences), the
    larger change first: each measure's change is its ratio after / before, compared on a log scale (so a
    loss that grows 15-fold outweighs accuracy that falls 2 points, and accuracy falling to a tenth outweighs a
    loss that grows by half)."""
    if abs(after - before) <= BARELY:
        accuracy = f"accuracy barely moves ({before:.1%} → {after:.1%})"
    else:
        accuracy = f"accuracy {'falls' if after < before else 'rises'} from {before:.1%} to {after:.1%}"
    loss = _loss_words(loss_before, loss_after)
    accuracy_change = abs(math.log(max(after, 1e-12) / max(before, 1e-12)))
    loss_change = abs(math.log(loss_after / loss_before))
    if loss_change > accuracy_change:
        return f"{loss}, {'while' if 'barely' in accuracy else 'and'} {accuracy}"
    return f"{accuracy}, {'while' if 'barely' in loss else 'and'} {loss}"
