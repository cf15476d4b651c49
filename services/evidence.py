"""What the pages prove about a trained model, measured once per set of weights and kept, named by the
weights' digest like everything derived from them. A text model's heads' roles and what knocking each out
costs: the shipped model's measures ship beside it (python -m factory.ship), any other model's are measured
on first need (about 20 s on one core) and kept in the disk store. A small shipped model's accuracy and
loss with every set of its heads knocked out ship beside it too (engine.knockouts.knockout_arrays), and
the shipped text model's held-out losses with every set of its heads knocked out, and every shipped run's
heads step by step (the Learn page's replay): a look-up, on every replica and from a fresh server's first
page. So do every shipped head's role and its controls (issue 50: factory.shipped_roles); any other model's
are measured head by head on first need (a task's in about a second; a text model's on APP_TEXT_N windows)
and kept in the disk store. Pure Python and NumPy."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import engine
import engine.evidence
import engine.histories
import engine.knockouts
from engine import language, role_checks
from engine.evidence import PositionMetrics
from engine.probes import Probe, task_probe, text_probe
from engine.role_checks import HeadRole
from engine.sample import measured as measured_sample
from factory import evidence_files, shipped_roles, store
from services.weights import Model

APP_TEXT_N = 64  # held-out windows an app-trained text model's roles are checked on (the shipped one: 256)


def text_evidence(model: Model) -> language.Evidence:
    """The model's evidence: shipped, else stored, else measured now (and kept)."""
    for folder in (store.SHIPPED, store.cache_folder()):
        if folder is None:
            continue
        arrays = evidence_files.read_evidence(evidence_files.evidence_path(folder, model.digest), model.digest)
        if arrays is not None and evidence_files.current(arrays):  # roles measured as they are now
            return evidence_files.evidence_from(arrays, model.config, model.digest)
    found = language.evidence(model.config, model.params, model.digest)
    folder = store.cache_folder()
    if folder is not None:
        try:
            evidence_files.save_evidence(
                evidence_files.evidence_arrays(found), model.digest, evidence_files.evidence_path(folder, model.digest)
            )
        except OSError as error:
            print(f"attention-lab: could not keep the measures in {folder}: {error}", flush=True)
    return found


def measures(model: Model) -> dict | None:
    """The shipped model's measures (factory.ship: with every set of its heads knocked out, and its run's heads
    step by step), or None: not a shipped model."""
    arrays = evidence_files.read_evidence(
        evidence_files.evidence_path(store.SHIPPED, model.digest, evidence_files.MEASURES), model.digest
    )
    for array in (arrays or {}).values():
        array.setflags(write=False)  # kept by caches every session shares
    return arrays


def histories(model: Model, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(K,) the run's saved steps and (K, L, H) every head's weight on the task's keys and on the previous token
    at each, on n sequences of its task from seed (engine.histories.history_arrays): shipped, else measured."""
    found = measures(model)
    steps = [step for step, _ in model.run.checkpoints]
    if (
        found is None
        or not engine.histories.history_of(found, engine.histories.history_sample(model.task, n, seed))
        or list(found["history steps"]) != steps
    ):
        found = engine.histories.history_arrays(model.run, n, seed)
    return found["history steps"], found["history task share"], found["history previous share"]


def metrics(model: Model, T: int, ablate, n: int, seed: int) -> PositionMetrics:
    """The model's loss and accuracy per position on n sequences of T tokens from seed (Task.fresh: held-out text
    where the task has some), with the heads in ablate knocked out, and their sample: read from its shipped
    knock-outs where they measured exactly this (the training length, the same sequences), else measured now
    (engine.evidence.position_metrics)."""
    task = model.task
    table = measures(model) if T == task.seq_len else None
    kept = None if table is None else engine.knockouts.knockout_from(table, model.config, ablate, n, seed)
    if kept is not None:
        return replace(kept, sample=measured_sample(task, n, seed, T))
    return engine.evidence.position_metrics(task, model.config, model.params, n, seed, ablate=ablate, T=T)


def text_knockout(model: Model, ablate, n: int) -> language.Knockout:
    """A text model's held-out losses with the heads in ablate knocked out, on n windows of each kind: read from
    its shipped knock-outs of every set of heads, else measured now (~1 s)."""
    table = measures(model)
    kept = None if table is None else evidence_files.knockout_in(table, model.config, ablate, n)
    return kept if kept is not None else language.knockouts(model.config, model.params, [ablate], n=n)[0]


def kept_roles(model: Model) -> tuple[HeadRole, ...] | None:
    """Every head's role with its controls kept for these weights: shipped (python -m factory.ship --roles),
    else in the disk store; None: not measured yet."""
    for folder in (store.SHIPPED, store.cache_folder()):
        found = None if folder is None else shipped_roles.read_roles(folder, model.config, model.digest)
        if found is not None:
            return found
    return None


def role_names(model: Model) -> tuple[tuple[str, ...], ...]:
    """Each head's strongest role [layer][head], on the sample its controls are measured on."""
    if model.task.held_out is not None:
        return role_checks.text_role_names(model.config, model.params, APP_TEXT_N)
    return role_checks.task_role_names(model.task, model.config, model.params)


def head_role(model: Model, layer: int, head: int, role: str) -> HeadRole:
    """One head's role (role_names') with its controls and label, measured now."""
    if model.task.held_out is not None:
        return role_checks.text_head_role(model.config, model.params, layer, head, role, APP_TEXT_N)
    return role_checks.task_head_role(model.task, model.config, model.params, layer, head, role)


def keep_roles(model: Model, found: tuple[HeadRole, ...]) -> None:
    """Every head's measured role and controls, kept in the disk store (if there is one) under the digest."""
    folder = store.cache_folder()
    if folder is None:
        return
    try:
        evidence_files.save_evidence(
            shipped_roles.roles_arrays(found, model.config),
            model.digest,
            shipped_roles.roles_path(folder, model.digest),
        )
    except OSError as error:
        print(f"attention-lab: could not keep the roles in {folder}: {error}", flush=True)


def role_probe(model: Model, one: HeadRole) -> Probe:
    """The held-out sample a head's role was measured on (its units, keys and queries), drawn again: where its
    counter-example (one.controls.weakest) comes from."""
    n = int(one.sample.split()[0])  # the sample's words start with its size
    if model.task.held_out is not None:
        return text_probe(model.config, one.controls.role, "held_out", n)
    return task_probe(model.task, one.controls.role, n, role_checks.TASK_SEED)
