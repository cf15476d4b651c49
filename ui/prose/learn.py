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
    if name == "induction":
        return (f"{target} A head that solves it must {pattern}. One layer cannot: a key does not know which "
                "token came before it. With two, a first-layer head can copy the previous token into each "
                "position, and a second-layer head (an induction head) can then find it: the circuit behind "
                "much of what large language models copy from their context.")
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


UNTRAINED_DEEP = ("these are random weights, before any training: every map of every layer spreads its weight "
                  "almost evenly. Press Train: the loss first sits on a plateau, then drops suddenly, as two heads "
                  "in two different layers lock on together (about 10 s on one core; the first student to press "
                  "it trains for the whole room).")
HALF = 0.5            # a head "looks at" its keys once more than half of its weight lands on them


def _past(steps: np.ndarray, values: np.ndarray, level: float = HALF) -> int | None:
    """The first checkpoint step at which values (K,) reach level, or None."""
    hit = np.flatnonzero(values >= level)
    return int(steps[hit[0]]) if hit.size else None


def circuit(steps: np.ndarray, shares: np.ndarray, previous: np.ndarray) -> dict:
    """The two heads of the induction circuit, found from the run's numbers: the layer-0 head with the
    most weight on the previous token after the last step, and the head of a later layer with the most
    weight on the induction keys; with when each passed HALF."""
    final_prev, final_ind = previous[-1][0], shares[-1][1:]            # (H,), (L-1, H)
    prev_head = int(np.argmax(final_prev))
    layer, head = np.unravel_index(int(np.argmax(final_ind)), final_ind.shape)
    ind = (int(layer) + 1, int(head))
    return {"previous": (0, prev_head), "induction": ind,
            "previous_share": float(final_prev[prev_head]), "induction_share": float(final_ind[layer, head]),
            "previous_past": _past(steps, previous[:, 0, prev_head]),
            "induction_past": _past(steps, shares[:, ind[0], ind[1]])}


def depth_notice(losses: np.ndarray, drop: int, steps: np.ndarray, shares: np.ndarray, previous: np.ndarray,
                 at: int, accuracy: float, found: dict) -> str:
    """A stack's run: the plateau and the drop of the loss, the two heads of the circuit, the replayed step."""
    losses = np.asarray(losses)
    window = max(10, len(losses) // 20)
    said = ""
    start, stop = drop // 3, drop - window
    if start < stop:
        said += (f"from step {start + 1} to step {stop} the loss stays on a plateau near "
                 f"{fmt(float(losses[start:stop].mean()), '.2f')}; then it falls, fastest at step {drop} "
                 f"(the dashed line), to {fmt(float(losses[-window:].mean()), '.2f')} over the last {window} steps. ")
    else:
        said += f"the loss falls fastest at step {drop} (the dashed line). "
    (p_layer, p_head), (i_layer, i_head) = found["previous"], found["induction"]
    prev_who, ind_who = f"layer {p_layer} head {p_head}", f"layer {i_layer} head {i_head}"
    if found["previous_share"] >= HALF and found["induction_share"] >= HALF:
        said += (f"Two heads form the circuit. {prev_who[0].upper() + prev_who[1:]} looks at the previous token "
                 f"({fmt(found['previous_share'], '.0%')} of its weight after the last step, more than half "
                 f"from step {found['previous_past']}), so each position also carries the token before it; "
                 f"{ind_who}, the induction head, looks at the token right after an earlier copy of the current "
                 f"one ({fmt(found['induction_share'], '.0%')}, more than half from step {found['induction_past']}) "
                 f"and copies it. ")
    else:
        said += (f"No circuit has formed in this run: the best layer-0 head ({prev_who}) puts "
                 f"{fmt(found['previous_share'], '.0%')} of its weight on the previous token, the best later "
                 f"head ({ind_who}) {fmt(found['induction_share'], '.0%')} on the induction keys. ")
    said += (f"At step {int(steps[at])} of the replay they put {fmt(float(previous[at][p_layer, p_head]), '.0%')} "
             f"and {fmt(float(shares[at][i_layer, i_head]), '.0%')} there (mean over 50 fresh sequences).")
    right = "every one of" if accuracy == 1.0 else fmt(accuracy, ".1%") + " of"
    return said + f" After the last step the model predicts {right} 1,000 fresh sequences' scored targets right."
