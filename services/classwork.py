"""A class experiment's run k, as a worker trains it (issue 52): the model of the plan's task with the run's
settings, k as its weight seed (Config.seed, the initial weights) and as its batch seed (the training sequences),
so the hall's spread shows both sources; then its numbers, into the room's database (services/poll/experiment.py).

Its numbers are the Learn page's: the loss and the batch accuracy at every step, every head's share of weight on
the task's keys at every saved step on the Learn page's sample (engine.histories), the step its head formed
(histories.lock: a head with LOCKED of its weight on the task's keys), the accuracy after the last step on the
Learn page's fresh sequences (engine.evidence.position_metrics' defaults), and the heads that locked on to the task's
keys or to the previous token at the end, each with its share. Pure Python and NumPy with the store: the worker
imports this, never the app.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import engine
from engine.evidence import position_metrics
from engine.histories import LOCKED, history_arrays, lock
from services.poll import experiment
from services.poll.store import Store


def config_of(settings: dict, k: int) -> engine.Config:
    """Run k's model: the task's, with the plan's layers and width, its weights drawn from seed k."""
    task = engine.TASKS[settings["task"]]
    return dataclasses.replace(task.config, seed=k, n_layers=settings["layers"], d_model=settings["width"])


def trained(settings: dict, k: int, on_progress=None) -> engine.TrainRun:
    """Run k trained: k seeds the weights and the batches; on_progress((step, steps, loss, batch accuracy)) as it
    goes (the numbers the Learn page's progress bar says)."""
    task = engine.TASKS[settings["task"]]
    told = None
    if on_progress is not None:

        def told(step, steps, losses, accuracies, params) -> None:
            on_progress((int(step), int(steps), float(losses[-1]), float(accuracies[-1])))

    return engine.train(task, config_of(settings, k), settings["steps"], seed=k, lr=settings["lr"], on_progress=told)


def _heads(shares: np.ndarray, role: str) -> list[dict]:
    """The heads whose share (L, H) at the end reached LOCKED, with it."""
    return [
        {"layer": int(layer) + 1, "head": int(head) + 1, "role": role, "share": round(float(shares[layer, head]), 4)}
        for layer, head in zip(*np.nonzero(shares >= LOCKED), strict=True)
    ]


def result_of(run: engine.TrainRun) -> dict:
    """What the store keeps of a run: its numbers and curves (JSON-ready)."""
    arrays = history_arrays(run)
    steps, shares = arrays["history steps"], arrays["history task share"]  # (S,), (S, L, H)
    formed = lock(steps, shares)
    task = engine.get_task(run.task)
    roles = _heads(shares[-1], task.title)
    if task.name != "previous":
        roles += _heads(arrays["history previous share"][-1], "previous token")
    return {
        "final_loss": float(run.losses[-1]),
        "accuracy": position_metrics(task, run.config, run.checkpoints[-1][1]).overall_accuracy,
        "formed": None if formed is None else formed[2],
        "roles": roles,
        "curves": {
            "loss": [float(v) for v in run.losses],
            "batch_accuracy": [float(v) for v in run.accuracies],
            "steps": [int(s) for s in steps],
            "shares": shares.tolist(),  # whole: histories.lock on them gives `formed` again
        },
    }


def work(store: Store, code: str, eid: int, k: int, on_progress=None) -> str:
    """Run k of the room's experiment eid, end to end: taken (a try counted), trained (its progress to on_progress,
    as trained() says it), recorded. What happened, in a word: 'done', 'skipped' (done already, cancelled, failed or
    its room gone: nothing trained), 'failed'."""
    plan = experiment.take(store, code, eid, k)
    if plan is None:
        return "skipped"
    try:
        run = trained(plan.settings(k), k, on_progress)
    except ValueError as err:  # settings the engine refuses: another try would not change that
        experiment.fail(store, code, eid, k, str(err))
        return "failed"
    except Exception as err:  # a crash: said, counted as failed, never left "running" (the hall's other runs go on)
        experiment.fail(store, code, eid, k, f"{type(err).__name__}: {err}")
        return "failed"
    experiment.record(store, code, eid, k, result_of(run))
    return "done"
