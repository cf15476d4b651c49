"""What a figure was measured on (issue 47, "a figure carries its sample"): the task, held-out text or the
task's own draws, how many sequences or windows, their length and the seed. Every number derived from
sequences comes with its Sample, and the words under it are printed from the Sample (ui.prose.sample), never a
typed count; the Sample also draws its sequences, so the words and the numbers cannot name two samples."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Sample:
    """n sequences of T tokens of a task from RandomState(seed)."""

    task: str  # key in engine.TASKS
    n: int  # how many sequences (windows of text)
    T: int  # their length in tokens
    seed: int  # the RandomState they are drawn from
    held_out: bool  # the task's held-out text (chapters it never trained on); False: draws of the
    # task (Task.sample: fresh sequences, or for a text task its training chapters)
    repeats: float = 0.0  # held-out text: the share of windows in which a span of their text comes again

    def draw(self) -> tuple[np.ndarray, np.ndarray]:
        """The sequences (n, T) and their targets (n, T), -1 where not scored (read-only)."""
        from .tasks import get_task
        from .windows import windows

        task, rng = get_task(self.task), np.random.RandomState(self.seed)
        if not self.held_out:
            return task.sample(rng, self.n, self.T)
        if task.held_out is None:
            raise ValueError(f"the task {self.task!r} has no held-out text")
        if self.repeats == 0:
            return task.fresh(rng, self.n, self.T)
        drawn = windows("held_out", rng, self.n, self.T, self.repeats)
        tokens, targets = drawn.tokens.copy(), drawn.targets.copy()
        tokens.setflags(write=False)
        targets.setflags(write=False)
        return tokens, targets

    @property
    def text(self) -> bool:
        """Windows of a text (a task with held-out text), not sequences of a letter or digit task."""
        from .tasks import get_task

        return get_task(self.task).held_out is not None


def measured(task, n: int, seed: int, T: int | None = None) -> Sample:
    """The sample the pages measure a task's accuracy and loss on (Task.fresh): held-out text where the task
    has some, else fresh draws."""
    from .tasks import get_task

    task = get_task(task)
    return Sample(task.name, int(n), task.seq_len if T is None else int(T), int(seed), task.held_out is not None)


def followed(task, n: int, seed: int) -> Sample:
    """The sample a run's heads are followed on, step by step, at the training length (the Learn page's replay
    and roles): held-out text with the training's share of repeated spans where the task has text it never
    trained on (so its task keys, the copies, occur), else fresh draws of the task."""
    from .tasks import get_task
    from .text import REPEAT_SHARE

    task = get_task(task)
    text = task.held_out is not None
    return Sample(task.name, int(n), task.seq_len, int(seed), text, REPEAT_SHARE if text else 0.0)
