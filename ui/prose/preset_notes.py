"""Facts about each preset a student needs next to its numbers: what the article divides by, where its
inputs come from, whose words the labels are. Pure Python; the sidebar shows them under the preset."""

from __future__ import annotations

from ui.prose.numbers import MIN_CASES


def facts(preset: str, heads: int) -> str:
    """One caption of facts for this preset at this head count."""
    if preset == "day33":
        divide = "Day 33 divides the scores by √d_model, which equals √d_head with its one head" + (
            "."
            if heads == 1
            else f"; with {heads} heads this app divides by √d_head, as "
            "multi-head attention does, and the article's script has no such case."
        )
        return (
            f"{divide} One random stream: the weights' seed draws the embedding table first, so a new seed "
            "redraws X too. The article gives token ids only: the words for ids 0–9 are this app's labels."
        )
    if preset == "part4":
        return (
            "Part 4 writes √d_k: its d_k is d_head here. Its inputs X come from their own seed, 101, so the "
            "weights' seed does not move them."
        )
    return ""


def sequence_rule(task_title: str, candidates: int, seed: int) -> str:
    """How a trained preset's own sequence is chosen (ui.shell.presets.sample), for the sidebar (a text task's
    passage: ui.prose.passage.rule)."""
    return (
        f"Its sequence: of the first {candidates} sequences of '{task_title}' drawn from seed {seed}, the first "
        "with the most scored positions"
        + (" (the longest repeated segment)" if task_title == "induction" else "")
        + ", the same on every page and on the Learn page."
    )


DOES_TASK = 0.9  # a position where at least this share of targets is right is one where the task is done


def reach(accuracy, count) -> tuple[int | None, int | None]:
    """Over the positions that at least MIN_CASES sequences score: the last one up to which each is right at least
    DOES_TASK of the time (None: not even the first), and the first one that is not (None: none)."""
    last = None
    for i, (share, cases) in enumerate(zip(accuracy, count)):
        if cases < MIN_CASES:
            continue
        if share < DOES_TASK:
            return last, i
        last = i
    return last, None


def _too_few(count, T: int) -> str:
    """Where the task scores too few sequences to tell, as a clause ('' where every scored position has enough)."""
    from ui.prose.numbers import count as counted

    thin = [i for i, cases in enumerate(count) if 0 < cases < MIN_CASES]
    if not thin:
        return ""
    return (
        f"; {counted(len(thin), 'position')} of the {T} ({_span(thin)}) {'is' if len(thin) == 1 else 'are'} "
        f"scored in fewer than {MIN_CASES} of "
        "the sequences, too few to tell"
    )


def _span(positions: list[int]) -> str:
    return (
        f"position {positions[0]}"
        if len(positions) == 1
        else f"positions {positions[0]}–{positions[-1]}"
        if positions[-1] - positions[0] == len(positions) - 1
        else "positions " + ", ".join(map(str, positions))
    )


def outside_training(
    task_title: str,
    seq_len: int,
    T: int,
    changed: list[str],
    accuracy_here: float,
    accuracy_trained_length: float,
    accuracy_preset: float | None,
    per_position=(),
    count=(),
    sample=None,
    trained_sample=None,
) -> str:
    """What changed from a trained preset's training, and the task's accuracy at this setting: measured on
    `sample` (an engine.sample.Sample of T tokens; per_position and count: each position's share right and how many
    of its sequences score it) and on `trained_sample` at the training length, each named from its Sample."""
    from ui.prose.numbers import fmt, names
    from ui.prose.sample import said as sample_said

    said = []
    if changed:
        said.append(
            f"This is not the preset's model: {names(changed)}. The block in use was trained on "
            f"'{task_title}' with these settings, on {seq_len}-token sequences"
        )
        if accuracy_preset is not None:
            said[-1] += (
                f"; it predicts {fmt(accuracy_trained_length, '.1%')} of the task's targets right on "
                f"{sample_said(trained_sample)}, the preset's own model "
                f"{fmt(accuracy_preset, '.1%')}"
            )
        said[-1] += "."
    if T != seq_len:
        said.append(
            f"The block was trained on {seq_len}-token sequences and is shown on {T} tokens: on "
            f"{sample_said(sample)} of the task it predicts {fmt(accuracy_here, '.1%')} of the targets "
            f"right (at {seq_len} tokens: {fmt(accuracy_trained_length, '.1%')})"
        )
        last, stop = reach(per_position, count)
        if last is None and stop is not None:
            said[-1] += (
                f", and at the first position scored in at least {MIN_CASES} sequences, {stop}, it is right "
                f"{fmt(per_position[stop], '.0%')} of the time, under {fmt(DOES_TASK, '.0%')}"
            )
        elif stop is not None:
            said[-1] += (
                f": it does the task up to position {last} (each position scored in at least {MIN_CASES} "
                f"sequences right at least {fmt(DOES_TASK, '.0%')} of the time) and not at position {stop} "
                f"({fmt(per_position[stop], '.0%')} of {int(count[stop])}), so its rows past that need not do "
                "the task"
            )
        said[-1] += _too_few(count, T) + "."
    return " ".join(said)
