"""The Learn page's words: what each task asks, and what the run shows (from its numbers)."""

from __future__ import annotations

import numpy as np

import engine
from engine.analysis import NEAR_UNIFORM, spread
from engine.histories import LOCKED, lock
from engine.loss_curve import Fall
from engine.sample import Sample
from ui.prose.numbers import fmt, names
from ui.prose.sample import said as sample_said
from ui.sections.learn.words_loss import fall, plateau  # noqa: F401 (fall: the lesson facts read it here)

HALF = 0.5  # a head "looks at" its keys once more than half of its weight lands on them


def task(name: str) -> str:
    """What the task asks, and the attention pattern that solves it (all from engine.TASKS)."""
    t = engine.TASKS[name]
    who = "A head that solves it" if t.held_out is None else "A head that copies earlier text"  # text: no one pattern
    said = f"{t.target} {who} must {t.pattern}"
    said += "." if t.config.n_layers > 1 else "; those cells are dashed on the maps."
    return said + (f" {t.note}" if t.note else "")


def formula(cfg: engine.Config) -> str:
    """The loss the run minimises, for this task's model: positions from 0, what p is, what θ holds."""
    seen = r"t_0, \dots, t_i" if cfg.causal else r"t_0, \dots, t_{T-1}"
    return (
        r"\text{loss} = -\frac{1}{N}\sum_{\text{scored } i} \log p_i(\text{target}_i \mid " + seen + r"),"
        r"\qquad p_i = \text{softmax}\big(h^{(" + str(cfg.n_layers - 1) + r")}_i\, W_U\big),"
        r"\qquad \theta = (E,\ \text{every block's weights},\ W_U) \leftarrow \text{Adam}(\theta, "
        r"\nabla_\theta\,\text{loss})"
    )


def formula_words(cfg: engine.Config) -> str:
    """The formula's symbols, in a sentence."""
    where = (
        "query i sees tokens 0 … i only (the causal mask)"
        if cfg.causal
        else "every query sees the whole sequence (no mask)"
    )
    last = "the block's" if cfg.n_layers == 1 else f"the last block's (layer {cfg.n_layers - 1})"
    return (
        f"Positions count from 0; {where}. h_i is {last} output at position i, W_U turns it into one score "
        "per token of the vocabulary, and the softmax makes those scores the probabilities p_i. "
        "θ is every trained number: the embedding table E, every block's weights and W_U."
    )


ORIGIN = {
    "shipped": "the run that ships with the app: python -m factory.ship trains it in one pinned arithmetic, so these "
    "are the same weights on every machine",
    "stored": "a run trained earlier with these settings on this server (or on another server sharing its disk) "
    "and kept there",
    "trained here": "trained with these settings on this server, and kept",
}


def origin(where: str, digest: str, short: bool = False) -> str:
    """Which weights a run's are (services.weights.Model.origin), with the first digits of their digest."""
    if short:
        return ORIGIN[where].split(":")[0] + f" (weights {digest[:8]})"
    return (
        f"These weights are {ORIGIN[where]}; every page of this app shows them at these settings (weights "
        f"{digest[:8]})."
    )


def saved_steps(steps, drop: tuple[int, int] | None) -> str:
    """The replay slider's help: which steps' weights were saved, from the saved steps themselves and the
    loss's sudden drop (first, last step; None: the loss fell all along)."""
    steps = np.asarray(steps)
    if drop is not None:
        inside = steps[(steps >= drop[0]) & (steps <= drop[1])]
        if len(inside) > 1:
            return (
                f"{len(steps)} saved steps: at most {int(np.diff(inside).max())} apart across the loss's drop "
                f"(steps {drop[0]} to {drop[1]}), more sparsely elsewhere."
            )
    gaps = np.diff(steps) if len(steps) > 1 else np.zeros(1, dtype=int)
    return (
        f"{len(steps)} saved steps: {int(gaps[0])} apart at first, up to {int(gaps.max())} apart later"
        + ("" if drop is not None else " (the loss has no sudden drop: it falls all along)")
        + "."
    )


def replay_rounded(asked: int, shown: int, steps) -> str:
    """A link's replay step that the run did not save: which saved step is shown instead, and that the address
    now names it."""
    which = "first" if shown == steps[0] else "last" if shown == steps[-1] else "nearest"
    return (
        f"The link's replay={asked} is not a saved step of this run ({len(steps)} saved steps, from {steps[0]} "
        f"to {steps[-1]}): the page shows the weights after step {shown}, the {which} saved step"
        + ("" if which == "nearest" else f" and the nearest to {asked}")
        + f", and the address now says "
        f"replay={shown}."
    )


def duration(seconds: float) -> str:
    """A time as a student reads it: '0.8 s', '45 s', '2 min 19 s'."""
    if seconds < 10:
        return f"{fmt(seconds, '.1f')} s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"


def press(replayed_seconds: float | None, deep: bool, estimate: float | None = None) -> str:
    """What pressing Train does: replay the shipped run at its training speed, or train here (about
    `estimate` seconds, from the shipped run's time per step, where there is one)."""
    if replayed_seconds is not None:
        return f"it replays the run that ships with the app at the speed it was trained, {duration(replayed_seconds)}"
    how_long = (
        ("a few seconds" if deep else "under a second")
        if estimate is None or estimate < 5
        else f"about {duration(estimate)}, at the time per step the shipped run took"
    )
    return how_long + " on one core; the first student to press it trains for the whole room"


def too_long(steps: int, seconds: float) -> str:
    """Why a long shipped run is shown at once instead of replayed live."""
    return (
        f"Too long to train live in a lecture ({steps:,} Adam steps took {duration(seconds)} on one core): this "
        "is the run that ships with the app (what python -m factory.ship trains), shown at once. Another batch "
        "seed, number of steps or learning rate trains now, for real, on a worker, with its progress."
    )


def replay_line(seconds: float) -> str:
    """The one line under the Train button when the run ships with the app."""
    return (
        f"Train replays the run that ships with the app (what python -m factory.ship trains) at the speed it was "
        f"trained, {duration(seconds)}, so every machine shows the same model; another batch seed, number of "
        "steps or learning rate trains now, for real, on a worker."
    )


def untrained(weights: np.ndarray, visible: np.ndarray, expected: np.ndarray | None, seconds: str) -> str:
    """Before training: how evenly the initial weights' rows spread, counted on (L, H, T, T) weights;
    with the task's keys (T, T) drawn dashed (one layer), the mean weight they get against an even share."""
    rows = np.count_nonzero(visible, axis=-1) > 1  # (T,) rows with a choice
    s = spread(weights, visible)[..., rows]  # (L, H, R)
    even = int(np.count_nonzero(s >= NEAR_UNIFORM))
    top = np.where(visible, weights, -np.inf).max(axis=-1)[..., rows]  # (L, H, R)
    uniform = (1.0 / np.count_nonzero(visible, axis=-1))[rows]  # (R,)
    where = np.unravel_index(int(np.argmax(top - uniform)), top.shape)
    said = (
        f"these are the initial random weights, before any training. {even} of the {s.size} rows that can "
        f"choose between keys spread their weight almost evenly (spread ≥ {NEAR_UNIFORM}); the most "
        f"lopsided row gives one key {fmt(top[where], '.2f')} where an even spread gives "
        f"{fmt(uniform[where[-1]], '.2f')}. "
    )
    if expected is None:
        return said + f"Press Train and watch the maps change ({seconds})."
    keyed = expected.any(axis=-1) & rows  # (T,) rows with a dashed key and a choice
    on_keys = (weights * expected).sum(axis=-1)[..., keyed]  # (L, H, R')
    fair = (np.count_nonzero(expected & visible, axis=-1) / np.count_nonzero(visible, axis=-1))[keyed]
    said += (
        f"The dashed keys get {fmt(on_keys.mean(), '.0%')} of their rows' weight on average, where an even "
        f"spread gives {fmt(fair.mean(), '.0%')}. "
    )
    return said + f"Press Train and watch the dashed cells take the weight ({seconds})."


def _right(accuracy: float) -> str:
    return "every one of" if accuracy == 1.0 else fmt(accuracy, ".1%") + " of"


def notice(steps: np.ndarray, shares: np.ndarray, at: int, accuracy: float, measured: Sample, followed: Sample) -> str:
    """The run at checkpoint index `at`: where the best head looks (shares measured on `followed`), when it locked
    on, how well it works (accuracy measured on `measured`)."""
    final = shares[-1]  # (L, H)
    layer, head = np.unravel_index(int(np.argmax(final)), final.shape)
    who = f"head {head}" if final.shape[0] == 1 else f"layer {layer} head {head}"
    now, start = float(shares[at][layer, head]), float(shares[0][layer, head])
    locked = lock(steps, shares)
    if at == 0:
        said = (
            f"at step 0 the weights are random: {who} puts {fmt(now, '.0%')} of each scored query's weight on "
            f"the expected keys (mean over {sample_said(followed)})"
        )
    else:
        said = (
            f"at step {int(steps[at])}, {who} puts {fmt(now, '.0%')} of each scored query's weight on the "
            f"expected keys (mean over {sample_said(followed)}); at step 0, with random weights, it put "
            f"{fmt(start, '.0%')} there"
        )
    if locked is None:
        said += f". No head reached {LOCKED:.0%} in this run"
    else:
        first = f"head {locked[1]}" if final.shape[0] == 1 else f"layer {locked[0]} head {locked[1]}"
        when = "locks on" if steps[at] < locked[2] else "locked on"
        said += f". {first[0].upper() + first[1:]} {when} (reaches {LOCKED:.0%}) at step {locked[2]}"
    return said + (
        f". After the last step the model predicts {_right(accuracy)} the targets of {sample_said(measured)} right."
    )


def roles(previous: np.ndarray, shares: np.ndarray) -> dict:
    """Each head's measured role after the last step: previous (L, H) its weight on the previous token,
    shares (L, H) on the task's keys. Heads past HALF on either, with their weights."""
    L, H = shares.shape
    heads = [(layer, head) for layer in range(L) for head in range(H)]
    return {
        "previous": [(lh, float(previous[lh])) for lh in heads if previous[lh] >= HALF],
        "task": [(lh, float(shares[lh])) for lh in heads if shares[lh] >= HALF],
    }


def _who(pairs) -> str:
    return names([f"layer {layer} head {head} ({fmt(w, '.0%')})" for (layer, head), w in pairs])


def depth_notice(
    losses,
    found: Fall,
    steps: np.ndarray,
    shares: np.ndarray,
    previous: np.ndarray,
    at: int,
    accuracy: float,
    task_title: str,
    knockouts: str,
    measured: Sample,
    followed: Sample,
) -> str:
    """A stack's run: the loss as measured, every head named by what it measurably looks at (shares and previous
    measured on `followed`), the step; the accuracy measured on `measured`."""
    said = plateau(losses, found)
    named = roles(previous[-1], shares[-1])
    if named["task"] or named["previous"]:
        parts = []
        if named["previous"]:
            whose = "its" if len(named["previous"]) == 1 else "their"  # one head: its weight
            parts.append(f"{_who(named['previous'])} put more than half of {whose} weight on the previous token")
        if named["task"]:
            parts.append(f"{_who(named['task'])} put more than half on the keys of '{task_title}'")
        said += "After the last step " + "; ".join(parts) + f" (mean over {sample_said(followed)}). "
    else:
        said += (
            "After the last step no head puts more than half of its weight on the previous token or on the "
            "task's keys. "
        )
    said += knockouts
    best = np.unravel_index(int(np.argmax(shares[at])), shares[at].shape)  # at the step shown, not the last
    said += (
        f"At step {int(steps[at])} of the replay, the head now most on the task's keys (layer {best[0]} head "
        f"{best[1]}) puts {fmt(float(shares[at][best]), '.0%')} there."
    )
    return said + (
        f" After the last step the model predicts {_right(accuracy)} the scored targets of "
        f"{sample_said(measured)} right."
    )
