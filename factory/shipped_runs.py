"""What ships for each task (factory.ship trains and checks it, factory.shipped_measures measures it): the files,
the model each holds, the saved steps it keeps, and the constants both read. Its own module so that both
import it one way (factory.ship uses factory.shipped_measures, which uses this, never factory.ship).
"""

from __future__ import annotations

from dataclasses import dataclass

SEED = 0  # the batches' seed of a trained preset (ui.shell.presets.BATCH_SEED)
GAP = 1e-6  # --check's largest allowed difference of any weight
LONG_STEPS = 1500  # a default run longer than this is not retrained by --check (CI) but checked on its first stretch
KEEP_LONG = 8  # the saved steps a long run ships between its first and its last (in float16: within 5 MB)


@dataclass(frozen=True)
class Shipped:
    """One file that ships for a task."""

    file: str  # its name in assets/weights/
    config: object  # the model trained (an engine.Config)
    keep: int | None = None  # the saved steps kept between the first and the last (None: every one)
    lossy: bool = False  # those steps in float16 (a run too large to ship whole); the last one exact


def runs(name: str) -> list[Shipped]:
    """What ships for a task: its default run (every saved step; a run too long to retrain in CI, the text
    task's, keeps KEEP_LONG of them in float16 and is checked on its first stretch) and, for a task of more
    than one layer, the one-layer model the Learn page sets beside it (trained with the same steps,
    batches and rate; its final weights only: it is compared, not replayed)."""
    from dataclasses import replace

    from engine.tasks import TASKS

    task = TASKS[name]
    long = task.steps > LONG_STEPS
    shipped = [Shipped(f"{name}.npz", task.config, KEEP_LONG if long else None, long)]
    if task.config.n_layers > 1 and not long:
        shipped.append(Shipped(f"{name}-one-layer.npz", replace(task.config, n_layers=1), 0))
    return shipped
