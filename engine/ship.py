"""Make the weights that ship with the app: every task's default run, trained and written to
assets/weights/<task>.npz (the final weights and the curves, not the checkpoints: the Learn page's
replay trains on demand). Run it again whenever training's numbers change (engine.train.VERSION).

    python -m engine.ship
"""
from __future__ import annotations

import sys

from threadpoolctl import threadpool_limits

from . import store
from .tasks import TASKS
from .train import train

SEED = 0   # the batches' seed of a trained preset (ui.shell.presets.BATCH_SEED)


def ship(tasks=tuple(TASKS), folder=store.SHIPPED) -> list:
    """Train each task at its defaults and write its file; returns the paths."""
    paths = []
    with threadpool_limits(1):                                        # as the app trains: one BLAS thread
        for name in tasks:
            run = train(name, seed=SEED)
            paths.append(store.save(run, folder, full=False, name=f"{name}.npz"))
            print(f"{paths[-1]}: {paths[-1].stat().st_size / 1000:.0f} kB, {run.steps} steps in {run.seconds:.1f} s",
                  flush=True)
    return paths


if __name__ == "__main__":
    ship(sys.argv[1:] or tuple(TASKS))
