"""The Learn page's words: what each task asks, and what the run shows (from its numbers)."""
from __future__ import annotations

import numpy as np

from ui.prose.numbers import fmt

TASKS = {
    "previous": ("The target at position i is the token at position i − 1 (position 0 is not scored).",
                 "look one step back: the diagonal just below the main one"),
    "first": ("The target at every position after the first is the token at position 0.",
              "look at the first token: column 0"),
    "reverse": ("The target at position i is the token at position T − 1 − i: the sequence read backwards.",
                "look at the mirrored position: the anti-diagonal"),
    "max": ("The target at every position is the largest token of the whole sequence.",
            "look at the positions holding the largest token: a pattern of content, not of position"),
    "induction": ("Inside a repeated segment, the target is the token that followed the current one the "
                  "first time it appeared.",
                  "look at the token right after the earlier occurrence of the current one"),
}
UNTRAINED = ("these are random weights, before any training: every row spreads its weight almost evenly, "
             "whatever the task. Press Train and watch the dashed cells take the weight (about a second on "
             "one core; the first student to press it trains for the whole room).")
LOCKED = 0.9          # a head has locked on once this share of its weight lands on the expected keys


def task(name: str) -> str:
    """What the task asks, and the attention pattern that solves it."""
    target, pattern = TASKS[name]
    return f"{target} A head that solves it must {pattern}; those cells are dashed on the maps."


def lock(steps: np.ndarray, shares: np.ndarray) -> tuple[int, int, int] | None:
    """(layer, head, step): the first checkpoint where some head's share reaches LOCKED, or None."""
    for k, step in enumerate(steps):
        if shares[k].max() >= LOCKED:
            layer, head = np.unravel_index(int(np.argmax(shares[k])), shares[k].shape)
            return int(layer), int(head), int(step)
    return None


def notice(steps: np.ndarray, shares: np.ndarray, at: int, accuracy: float) -> str:
    """The run at checkpoint index `at`: where the best head looks, when it locked on, how well it works."""
    final = shares[-1]                                                # (L, H)
    layer, head = np.unravel_index(int(np.argmax(final)), final.shape)
    who = f"head {head}" if final.shape[0] == 1 else f"layer {layer} head {head}"
    now, start = float(shares[at][layer, head]), float(shares[0][layer, head])
    locked = lock(steps, shares)
    if at == 0:
        said = (f"at step 0 the weights are random: {who} puts {fmt(now, '.0%')} of each scored query's weight on "
                f"the expected keys (mean over 50 fresh sequences), about what an even spread gives")
    else:
        said = (f"at step {int(steps[at])}, {who} puts {fmt(now, '.0%')} of each scored query's weight on the "
                f"expected keys (mean over 50 fresh sequences); at step 0, with random weights, it put "
                f"{fmt(start, '.0%')} there")
    if locked is None:
        said += f". No head reached {LOCKED:.0%} in this run"
    else:
        first = f"head {locked[1]}" if final.shape[0] == 1 else f"layer {locked[0]} head {locked[1]}"
        when = "locks on" if steps[at] < locked[2] else "locked on"
        said += f". {first[0].upper() + first[1:]} {when} (reaches {LOCKED:.0%}) at step {locked[2]}"
    right = "every one of" if accuracy == 1.0 else fmt(accuracy, ".1%") + " of"
    return said + f". After the last step the model predicts {right} 1,000 fresh sequences' targets right."
