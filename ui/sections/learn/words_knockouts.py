"""The Learn page's words on knock-outs: what knocking out each head, or a whole layer, does to the accuracy and
the loss, and the accuracy by position (kept apart from words.py, which holds what the run shows)."""

from __future__ import annotations

import numpy as np

from engine.sample import Sample
from ui.prose.knockout import BARELY, BARELY_LOSS, knockout_effect
from ui.prose.numbers import MIN_CASES, count, fmt, from_to, names
from ui.prose.sample import said as sample_said
from ui.sections.learn.words_loss import fall, plateau  # noqa: F401 (fall: the lesson facts read it here)
from ui.sections.learn.words_loss import loss as _loss


def _change(base: tuple[float, float], knocked: tuple[float, float]) -> float:
    """How much a knock-out moved the larger of its two measures (accuracy, loss), as knockout_effect weighs
    them: the ratio after / before on a log scale."""
    return max(abs(np.log(max(after, 1e-12) / max(before, 1e-12))) for before, after in zip(base, knocked))


def _barely(base: tuple[float, float], knocked: tuple[float, float]) -> bool:
    """Neither measure moves more than knockout_effect's 'barely' (2 points of accuracy, 5% of the loss)."""
    return abs(knocked[0] - base[0]) <= BARELY and abs(knocked[1] / base[1] - 1) <= BARELY_LOSS


def _effect(base: tuple[float, float], knocked: tuple[float, float]) -> str:
    return knockout_effect(base[0], knocked[0], base[1], knocked[1])


def knockouts(base: tuple[float, float], single: dict, layers: dict, sample: Sample) -> str:
    """The circuit as measured by knock-outs, in both measures the page has: base = (accuracy, loss) with none,
    single[(layer, head)] with that head knocked out, layers[layer] with every head of that layer knocked out
    (all on `sample`); each effect worded by knockout_effect (the larger change first), the heads in order of it."""
    moved = sorted(
        (pair for pair in single if not _barely(base, single[pair])), key=lambda pair: -_change(base, single[pair])
    )
    said = (
        f"Knocking out heads (their output set to zero; {sample_said(sample)}, {fmt(base[0], '.1%')} right and "
        f"loss {fmt(base[1], '.3g')} with none): "
    )
    said += "; ".join(f"layer {layer} head {head}: {_effect(base, single[(layer, head)])}" for layer, head in moved)
    free = [pair for pair in single if pair not in moved]
    if free:
        said += (
            ("; " if moved else "")
            + names([f"layer {layer} head {head}" for layer, head in free])
            + f" {'moves' if len(free) == 1 else 'move'} accuracy by at most {BARELY * 100:g} points and the loss by "
            f"at most {BARELY_LOSS:.0%}"
        )
    said += ". With every head of a layer removed: " + "; ".join(
        f"layer {layer}: {_effect(base, knocked)}" for layer, knocked in sorted(layers.items())
    )
    return said + ". "


def by_position(
    loss: np.ndarray, accuracy: np.ndarray, scored: np.ndarray, counts: np.ndarray, title: str, sample: Sample
) -> str:
    """Where on the sequence the trained model is sure and right, and where not (measured on `sample`)."""
    where = np.flatnonzero(scored)
    said = (
        f"'{title}' scores {count(len(where), 'position')} of {len(scored)} (each in "
        f"{from_to(counts[where].min(), counts[where].max())} of the {sample_said(sample)})."
    )
    enough = where[counts[where] >= MIN_CASES]  # a position's mean on fewer is no finding
    few = (
        ""
        if len(enough) == len(where)
        else (
            f" among the {count(len(enough), 'position')} scored in at least {MIN_CASES} of them ("
            + ("position " if len(where) - len(enough) == 1 else "positions ")
            + f"{names([str(i) for i in where if i not in enough])}: in fewer, too few to tell)"
        )
    )
    if len(enough) < 2:
        return said + (
            f" Fewer than two positions are scored in at least {MIN_CASES} of them: too few to tell where "
            "the loss is highest."
        )
    worst, best = enough[np.argmax(loss[enough])], enough[np.argmin(loss[enough])]
    return said + (
        f" The mean loss{few} is highest at position {worst} ({fmt(loss[worst], '.3g')}, accuracy "
        f"{fmt(accuracy[worst], '.1%')}) and lowest at position {best} ({fmt(loss[best], '.3g')}, "
        f"accuracy {fmt(accuracy[best], '.1%')})."
    )


def text_knockouts(found) -> str:
    """A text model's circuit as its knock-outs measured it (engine.language.Evidence): the loss on held-out
    text and on the second copy of a repeated span, with each head knocked out; the heads that matter most."""
    base, L = found.base, len(found.layers)
    H = len(found.heads) // max(L, 1)
    costs = [
        ((i // H, i % H), k.overall - base.overall, k.second_copy - base.second_copy) for i, k in enumerate(found.heads)
    ]
    copier = max(costs, key=lambda c: c[2])
    reader = max(costs, key=lambda c: c[1])
    said = (
        f"Knocking out heads (their output set to zero; loss {_loss(base.overall)} nats a token with none on "
        f"{sample_said(found.sample)}, {_loss(base.second_copy)} on the second copy of the span in "
        f"{sample_said(found.repeated)}): "
    )
    said += (
        f"layer {copier[0][0]} head {copier[0][1]} raises the second copy's loss the most, by {fmt(copier[2], '+.2f')} "
        f"nats, while the overall loss moves by {fmt(copier[1], '+.2f')}"
    )
    if reader[0] != copier[0]:
        said += (
            f"; layer {reader[0][0]} head {reader[0][1]} raises the overall loss the most, by {fmt(reader[1], '+.2f')}"
        )
    said += (
        ". With every head of a layer removed: "
        + names(
            [
                f"layer {i} {fmt(k.overall - base.overall, '+.2f')} overall, "
                f"{fmt(k.second_copy - base.second_copy, '+.2f')} on second copies"
                for i, k in enumerate(found.layers)
            ]
        )
        + ". "
    )
    return said


def by_position_title(sample: Sample) -> str:
    """The Learn page's chart of loss and accuracy by position: what it was measured on."""
    return f"loss and accuracy by position, {sample_said(sample)}"
