"""What ships beside each shipped run (factory.ship): its measures, measured once in the pinned arithmetic
on the run as the app reads it and named by the digest of its final weights (measures-<digest>.npz):

- with every set of its heads knocked out: a letter task's accuracy and loss per position on the sequences
  the pages measure (at most engine.knockouts.MAX_SETS sets), the text model's two held-out losses for every
  set of its heads and its figures at the training length (factory.evidence_files.knockout_table);
- every head's weight on the task's keys and on the previous token at every saved step of the run (the
  Learn page's replay; engine.histories.history_arrays).

The pages read them (services.evidence) where measuring cost a fresh server and every replica ~0.1 s a
knock-out (induction), ~1 s (a text set of several heads) and 1-2 s for a run's replay.

    python -m factory.ship --measures [TASK]   # measure the shipped runs again and write them (no training)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine import language
from engine.evidence import position_metrics, previous_share
from engine.histories import HISTORY_N, HISTORY_SEED, history_arrays, history_of, history_sample
from engine.knockouts import MAX_SETS, MEASURED_N, MEASURED_SEED, head_sets, knockout_arrays, knockout_from
from engine.measure import expected_share
from engine.params import digest
from engine.tasks import TASKS

from . import evidence_files, store
from .shipped_runs import GAP, SEED, Shipped, runs


def ships_measures(name: str, one: Shipped) -> bool:
    """A shipped model whose measures ship beside it: a letter task's (at most engine.knockouts.MAX_SETS sets of
    heads) and the text model the pages show."""
    if TASKS[name].held_out is not None:
        return one.keep != 0
    return len(head_sets(one.config)) <= MAX_SETS


def write_measures(name: str, one: Shipped, run, folder) -> Path:
    """A shipped run's measures (measures-<digest>.npz, named by its final weights): with every set of its heads
    knocked out, a letter task's accuracy and loss on the sequences the pages measure (ui.compute.metrics:
    1,000 fresh sequences from seed 1), the text model's held-out losses on the evidence's windows
    (ui.compute.text_knockout) and its figures at the training length; and every head's weight on the task's
    keys and on the previous token at every saved step (the Learn page's replay)."""
    cfg, params = one.config, run.params
    named = digest(params)
    if TASKS[name].held_out is None:
        arrays = knockout_arrays(name, cfg, params, MEASURED_N, MEASURED_SEED)
    else:  # and its loss and accuracy per position, nothing knocked out
        arrays = evidence_files.knockout_table(cfg, params) | knockout_arrays(
            name, cfg, params, language.EVIDENCE_N, MEASURED_SEED, upto=1
        )
    arrays |= history_arrays(run)
    path = evidence_files.save_evidence(
        arrays, named, evidence_files.evidence_path(folder, named, evidence_files.MEASURES)
    )
    print(
        f"{path}: {path.stat().st_size / 1000:.0f} kB, {len(arrays['losses' if 'losses' in arrays else 'loss'])} "
        f"sets of heads knocked out, {len(arrays['history steps'])} steps followed",
        flush=True,
    )
    return path


def again(tasks, folder=None) -> list:
    """Measure the shipped runs again and write their measures, and the text model's evidence (its roles and
    knock-outs: engine.language.evidence), from the weights as they are: no training."""
    paths = []
    for name in tasks:
        for one in runs(name):
            if not ships_measures(name, one):
                continue
            shipped = store.read(
                store.SHIPPED / one.file, one.config, store.run_key(name, one.config, TASKS[name].steps, SEED)
            )
            if shipped is None:
                print(f"{one.file}: missing or stale: python -m factory.ship {name}", flush=True)
                return None
            paths.append(write_measures(name, one, shipped, store.SHIPPED if folder is None else folder))
            if TASKS[name].held_out is not None:  # a text model's roles and knock-outs too
                paths.append(write_evidence(shipped, store.SHIPPED if folder is None else folder))
    return paths


def hold(name: str, one: Shipped, run) -> bool:
    """A shipped run's measures are there and are what measuring gives: the empty set and each single head
    knocked out (a letter task; a text model: the empty set and two sets of several heads, ~1 s each) measured
    again, the counts exact and the losses within GAP; its heads at the last saved step within GAP. Prints
    what is wrong."""
    if not ships_measures(name, one):
        return True
    params = run.params
    named = digest(params)
    arrays = evidence_files.read_evidence(
        evidence_files.evidence_path(store.SHIPPED, named, evidence_files.MEASURES), named
    )
    if arrays is None:
        print(
            f"{one.file}: its measures (measures-<digest>.npz) are missing: python -m factory.ship --measures",
            flush=True,
        )
        return False
    task = TASKS[name]
    text = task.held_out is not None
    sets = head_sets(one.config)
    n = language.EVIDENCE_N if text else MEASURED_N
    for heads in [(), sets[0b10010], sets[-2]] if text else [s for s in sets if len(s) <= 1]:
        if text and heads:
            kept = evidence_files.knockout_in(arrays, one.config, heads, n)
            now = language.knockouts(one.config, params, [heads], n=n)[0]
            same = (
                kept is not None
                and max(abs(kept.overall - now.overall), abs(kept.second_copy - now.second_copy)) <= GAP
            )
        else:
            kept = knockout_from(arrays, one.config, heads, n, MEASURED_SEED)
            now = position_metrics(name, one.config, params, n, MEASURED_SEED, ablate=heads)
            same = (
                kept is not None and np.array_equal(kept.right, now.right) and np.abs(kept.loss - now.loss).max() <= GAP
            )
        if not same:
            print(
                f"{one.file}: its knock-out of {heads or 'no head'} is not what measuring gives: "
                "python -m factory.ship --measures",
                flush=True,
            )
            return False
    sample = history_sample(task, HISTORY_N, HISTORY_SEED)
    tokens, targets = sample.draw()
    last = [expected_share(task, one.config, params, tokens, targets), previous_share(one.config, params, tokens)]
    followed = (
        history_of(arrays, sample)
        and list(arrays["history steps"]) == [s for s, _ in run.checkpoints]
        and max(
            float(np.abs(arrays["history task share"][-1] - last[0]).max()),
            float(np.abs(arrays["history previous share"][-1] - last[1]).max()),
        )
        <= GAP
    )
    if not followed:
        print(
            f"{one.file}: its heads step by step are not what measuring gives: python -m factory.ship --measures",
            flush=True,
        )
    if followed and text:  # the evidence's roles, as measured now
        kept = evidence_files.read_evidence(evidence_files.evidence_path(store.SHIPPED, named), named)
        now = language.head_roles(one.config, params, n=language.EVIDENCE_N).named()
        followed = (
            kept is not None
            and evidence_files.current(kept)
            and all(float(np.abs(kept[f"role {name}"] - scores).max()) <= GAP for name, scores in now.items())
        )
        if not followed:
            print(
                f"{one.file}: its roles (evidence-<digest>.npz) are not what measuring gives: "
                "python -m factory.ship --measures",
                flush=True,
            )
    return followed


def write_evidence(run, folder) -> Path:
    """The text model's roles and knock-outs (engine.language.evidence), measured once here, named by the
    digest of its final weights: the pages read them instead of 20 s of forwards."""
    named = digest(run.params)
    found = language.evidence(run.config, run.params, named)
    path = evidence_files.save_evidence(
        evidence_files.evidence_arrays(found), named, evidence_files.evidence_path(folder, named)
    )
    print(f"{path}: {path.stat().st_size / 1000:.0f} kB of measures on {found.n} held-out windows", flush=True)
    return path
