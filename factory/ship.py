"""Make the runs that ship with the app: every task's default run, trained and written whole to
assets/weights/<task>.npz (its checkpoints, losses and accuracies: the run the Learn page replays and
every page shows at the trained presets' defaults, on every machine). Run it again whenever training's
numbers change (engine.training.VERSION).

    python -m factory.ship                 # train and write every task's file
    python -m factory.ship --check [TASK]  # train again and compare with the files (exit 1 if they differ):
                                          # every checkpoint's weights, the curves and the predictions
    python -m factory.ship --measures [TASK]   # measure the shipped runs again (no training): their measures
                                              # and the text model's evidence (its roles and knock-outs)
    python -m factory.ship --roles [--check] [TASK]  # every head's role with its controls (issue 50), measured
                                                    # again (no training) and written, or compared with the files

Each model the presets show also ships its measures (assets/weights/measures-<digest>.npz): with every
set of its heads knocked out (a letter task's accuracy and loss, the text model's held-out losses), and
its heads' weights at every saved step (the Learn page's replay): the pages read them instead of measuring.

Training is chaotic: a last-bit difference in one matrix product (another BLAS kernel sums in
another order) grows, over a few hundred Adam steps, to weights that differ in the first digit
(induction: 0.2 in float64, 1.1 in float32, between OpenBLAS's Haswell and Sandybridge kernels).
Both commands therefore run in one pinned arithmetic: OpenBLAS's Haswell kernels on one thread and
NumPy without its AVX-512 loops, which any x86-64 CPU with AVX2 and FMA runs the same way. The app
never trains these settings (it reads these files, on every machine); any other setting it trains
with whatever the machine has: as good a run, but not these numbers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.evidence import predict
from engine.params import digest, flatten
from engine.tasks import TASKS
from engine.training import train

from . import evidence_files, shipped_measures, shipped_roles, store

# What ships for a task (factory/shipped_runs.py)
from .shipped_runs import GAP, SEED, runs

FRESH = 777  # --check compares predictions on 1,000 fresh sequences drawn from this seed
PREFIX_MIN = 50  # --check trains a long run up to its first saved step from this one on
PINNED = {
    "OPENBLAS_CORETYPE": "Haswell",
    "OPENBLAS_NUM_THREADS": "1",
    "NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL "
    "AVX512_ICL AVX512_SPR",
}


def can_pin() -> bool:
    """True where the pinned arithmetic runs: an x86-64 CPU with AVX2 and FMA (Linux's /proc/cpuinfo)."""
    try:
        flags = Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False
    return "avx2" in flags and "fma" in flags


def pinned() -> bool:
    return all(os.environ.get(name) == value for name, value in PINNED.items())


def run_pinned(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    """python -m factory.ship ARGS in a child process whose NumPy and OpenBLAS load pinned."""
    if not can_pin():
        raise RuntimeError("the shipped weights are made with OpenBLAS's Haswell kernels: this CPU has no AVX2 and FMA")
    env = {**os.environ, **PINNED, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-m", "factory.ship", *args], env=env, **kwargs)


def _kept(run, keep: int | None):
    """The run with `keep` of its saved steps between the first and the last, spread evenly (None: all)."""
    if keep is None:
        return run
    between = run.checkpoints[1:-1]
    picked = sorted({round(i) for i in np.linspace(0, len(between) - 1, keep)}) if keep and between else []
    return replace(run, checkpoints=(run.checkpoints[0], *(between[i] for i in picked), run.checkpoints[-1]))


def ship(tasks, folder=None) -> list:
    """Train each task's shipped runs (runs()) and write them, with their measures; returns the paths."""
    paths, target = [], store.SHIPPED if folder is None else Path(folder)
    for name in tasks:
        for one in runs(name):
            run = _kept(train(name, one.config, seed=SEED), one.keep)
            paths.append(store.save(run, target, name=one.file, lossy=one.lossy))
            print(
                f"{paths[-1]}: {paths[-1].stat().st_size / 1000:.0f} kB, {run.steps} steps in {run.seconds:.1f} s, "
                f"{len(run.checkpoints)} checkpoints",
                flush=True,
            )
            if TASKS[name].held_out is not None and one.keep != 0:  # a text model: its evidence ships too
                paths.append(shipped_measures.write_evidence(run, target))
            if shipped_measures.ships_measures(name, one):  # measured on the run as the app reads it
                shipped = store.read(
                    target / one.file, one.config, store.run_key(name, one.config, TASKS[name].steps, SEED)
                )
                paths.append(shipped_measures.write_measures(name, one, shipped, target))
            if one.file == runs(name)[0].file:  # the default run: its heads' roles
                paths.append(shipped_roles.write_one(name, one.config, run.params, target))
    return paths


def _gap(a, b, lossy: bool) -> float:
    """The largest difference of two weight vectors, in units of what is allowed: GAP, or float16's rounding."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    allowed = np.abs(b) * 2.0**-10 + 2.0**-24 if lossy else GAP  # float16: one unit in its last place
    return float((np.abs(a - b) / allowed).max())


def check(tasks) -> bool:
    """Train each task's shipped runs again and compare with the files: the same saved steps, every weight of
    every one within GAP (float16's rounding for a lossy run's steps between), the losses within GAP, and the
    same predictions on 1,000 fresh sequences. A long run (the text task's) is trained only up to its first
    saved step from PREFIX_MIN on (the same learning-rate schedule, stopped early) and compared there, with
    its losses so far. Prints a line per file."""
    good = True
    for name in tasks:
        task = TASKS[name]
        for one in runs(name):
            shipped = store.read(
                store.SHIPPED / one.file, one.config, store.run_key(name, one.config, task.steps, SEED)
            )
            if shipped is None:
                print(f"{one.file}: missing or stale (another VERSION or settings): python -m factory.ship", flush=True)
                good = False
                continue
            if one.lossy:  # the first stretch, against a step the file keeps
                step, params = next((s, p) for s, p in shipped.checkpoints if s >= PREFIX_MIN)
                run = train(name, one.config, seed=SEED, stop=step)
                gap = max(
                    _gap(flatten(run.params), flatten(params), step != task.steps),
                    float(np.abs(shipped.losses[:step] - run.losses).max()) / GAP,
                )
                measured = (
                    task.held_out is None
                    or evidence_files.read_evidence(
                        evidence_files.evidence_path(store.SHIPPED, digest(shipped.params)), digest(shipped.params)
                    )
                    is not None
                )
                if not measured:
                    print(
                        f"{one.file}: its evidence (evidence-<digest>.npz) is missing: python -m factory.ship",
                        flush=True,
                    )
                ok = gap <= 1 and measured and shipped_measures.hold(name, one, shipped)
                good &= ok
                print(
                    f"{one.file}: trained to step {step} of {task.steps}: largest gap {gap:.2f} of what is allowed "
                    f"(float16's rounding; losses {GAP:.0e}): {'ok' if ok else 'DIFFERENT'}",
                    flush=True,
                )
                continue
            run = _kept(train(name, one.config, seed=SEED), one.keep)
            steps = [s for s, _ in shipped.checkpoints]
            if steps != [s for s, _ in run.checkpoints]:
                print(
                    f"{one.file}: other checkpoint steps ({len(steps)} shipped, {len(run.checkpoints)} now): DIFFERENT",
                    flush=True,
                )
                good = False
                continue
            gap = max(
                float(np.abs(flatten(a) - flatten(b)).max())
                for (_, a), (_, b) in zip(shipped.checkpoints, run.checkpoints)
            )
            gap = max(gap, float(np.abs(shipped.losses - run.losses).max()))
            tokens, _ = task.sample(np.random.RandomState(FRESH), 1000)
            same = int(np.sum(predict(one.config, shipped.params, tokens) == predict(one.config, run.params, tokens)))
            ok = gap <= GAP and same == tokens.size and shipped_measures.hold(name, one, shipped)
            good &= ok
            print(
                f"{one.file}: largest gap {gap:.1e} over {len(steps)} checkpoints and the losses (at most {GAP:.0e}); "
                f"{same} of {tokens.size} predictions the same: {'ok' if ok else 'DIFFERENT'}",
                flush=True,
            )
    return good


def ship_or_check(argv: list[str]) -> int:
    checking, measuring, roles = "--check" in argv, "--measures" in argv, "--roles" in argv
    tasks = [a for a in argv if a not in ("--check", "--measures", "--roles")] or list(TASKS)
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        print(f"unknown task {unknown[0]!r}; choose from: {', '.join(TASKS)}", file=sys.stderr)
        return 2
    if not pinned():  # NumPy is loaded already: start again, pinned
        if not can_pin():
            print(
                "the shipped weights are made with OpenBLAS's Haswell kernels, which need an x86-64 CPU with "
                "AVX2 and FMA; this one has not: ship or check them on such a machine",
                file=sys.stderr,
            )
            return 2
        return run_pinned(argv).returncode
    if roles:
        return 0 if (shipped_roles.check_roles(tasks) if checking else shipped_roles.write_roles(tasks)) else 1
    if measuring:
        return 0 if shipped_measures.again(tasks) is not None else 1
    return 0 if (check(tasks) if checking else ship(tasks) is not None) else 1


if __name__ == "__main__":
    sys.exit(ship_or_check(sys.argv[1:]))
