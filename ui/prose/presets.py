"""Facts about each preset a student needs next to its numbers: what the article divides by, where its
inputs come from, whose words the labels are. Pure Python; the sidebar shows them under the preset."""
from __future__ import annotations


def facts(preset: str, heads: int) -> str:
    """One caption of facts for this preset at this head count."""
    if preset == "day33":
        divide = ("Day 33 divides the scores by √d_model, which equals √d_head with its one head"
                  + ("." if heads == 1 else f"; with {heads} heads this app divides by √d_head, as "
                     "multi-head attention does, and the article's script has no such case."))
        return (f"{divide} One random stream: the weights' seed draws the embedding table first, so a new seed "
                "redraws X too. The article gives token ids only: the words for ids 0–9 are this app's labels.")
    if preset == "part4":
        return ("Part 4 writes √d_k: its d_k is d_head here. Its inputs X come from their own seed, 101, so the "
                "weights' seed does not move them.")
    return ""


def sequence_rule(task_title: str, candidates: int, seed: int) -> str:
    """How a trained preset's own sequence is chosen (ui.shell.presets.sample), for the sidebar."""
    return (f"Its sequence: of the first {candidates} sequences of '{task_title}' drawn from seed {seed}, the first "
            "with the most scored positions" + (" (the longest repeated segment)" if task_title == "induction" else "")
            + ", the same on every page and on the Learn page.")


DOES_TASK = 0.9          # a position where at least this share of targets is right is one where the task is done


def reach(per_position) -> int | None:
    """The last position up to which every scored position is right at least DOES_TASK of the time (None: not even
    the first)."""
    import math

    last = None
    for i, a in enumerate(per_position):
        if math.isnan(a):
            continue
        if a < DOES_TASK:
            return last
        last = i
    return last


def outside_training(task_title: str, seq_len: int, T: int, changed: list[str], accuracy_here: float,
                     accuracy_trained_length: float, accuracy_preset: float | None, per_position=()) -> str:
    """What changed from a trained preset's training, and the task's accuracy at this setting (measured)."""
    from ui.prose.numbers import fmt, names

    said = []
    if changed:
        said.append(f"This is not the preset's model: {names(changed)}. The block in use was trained on "
                    f"'{task_title}' with these settings, on {seq_len}-token sequences")
        if accuracy_preset is not None:
            said[-1] += (f"; it predicts {fmt(accuracy_trained_length, '.0%')} of the task's targets right on fresh "
                         f"{seq_len}-token sequences, the preset's own model {fmt(accuracy_preset, '.0%')}")
        said[-1] += "."
    if T != seq_len:
        said.append(f"The block was trained on {seq_len}-token sequences and is shown on {T} tokens: on fresh "
                    f"{T}-token sequences of the task it predicts {fmt(accuracy_here, '.0%')} of the targets right "
                    f"(at {seq_len} tokens: {fmt(accuracy_trained_length, '.0%')})")
        last = reach(per_position)
        if last is None:
            said[-1] += f", and no position is right {fmt(DOES_TASK, '.0%')} of the time."
        elif last < T - 1:
            said[-1] += (f": it does the task up to position {last} (each position right at least "
                         f"{fmt(DOES_TASK, '.0%')} of the time) and stops there, so its rows past that need not do "
                         "the task.")
        else:
            said[-1] += "."
    return " ".join(said)
