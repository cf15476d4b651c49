"""Make the runs that ship with the app: every task's default run, trained and written whole to
assets/weights/<task>.npz (its checkpoints, losses and accuracies: the run the Learn page replays and
every page shows at the trained presets' defaults, on every machine). Run it again whenever training's
numbers change (engine.training.VERSION).

    python -m engine.ship                 # train and write every task's file
    python -m engine.ship --check [TASK]  # train again and compare with the files (exit 1 if they differ):
                                          # every checkpoint's weights, the curves and the predictions

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
from pathlib import Path

SEED = 0        # the batches' seed of a trained preset (ui.shell.presets.BATCH_SEED)
FRESH = 777     # --check compares predictions on 1,000 fresh sequences drawn from this seed
GAP = 1e-6      # --check's largest allowed difference of any weight
PINNED = {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": "1",
          "NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL "
                                      "AVX512_ICL AVX512_SPR"}


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
    """python -m engine.ship ARGS in a child process whose NumPy and OpenBLAS load pinned."""
    if not can_pin():
        raise RuntimeError("the shipped weights are made with OpenBLAS's Haswell kernels: this CPU has no AVX2 and FMA")
    env = {**os.environ, **PINNED, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-m", "engine.ship", *args], env=env, **kwargs)


def runs(name: str) -> list[tuple[str, object, object]]:
    """What ships for a task: (file name, config, how many checkpoints to keep: None for all) for its default
    run and, for a task of more than one layer, the one-layer model the Learn page sets beside it (trained
    with the same steps, batches and rate; its final weights only: it is compared, not replayed)."""
    from dataclasses import replace

    from .tasks import TASKS
    cfg = TASKS[name].config
    shipped = [(f"{name}.npz", cfg, None)]
    if cfg.n_layers > 1:
        shipped.append((f"{name}-one-layer.npz", replace(cfg, n_layers=1), 2))
    return shipped


def _trained(name: str, cfg, keep):
    from dataclasses import replace

    from .training import train
    run = train(name, cfg, seed=SEED)
    return run if keep is None else replace(run, checkpoints=(run.checkpoints[0], run.checkpoints[-1]))


def ship(tasks, folder=None) -> list:
    """Train each task's shipped runs (runs()) and write them; returns the paths."""
    from . import store
    paths = []
    for name in tasks:
        for file, cfg, keep in runs(name):
            run = _trained(name, cfg, keep)
            paths.append(store.save(run, store.SHIPPED if folder is None else folder, name=file))
            print(f"{paths[-1]}: {paths[-1].stat().st_size / 1000:.0f} kB, {run.steps} steps in {run.seconds:.1f} s, "
                  f"{len(run.checkpoints)} checkpoints", flush=True)
    return paths


def check(tasks) -> bool:
    """Train each task's shipped runs again and compare with the files: the same checkpoint steps, every
    weight of every checkpoint within GAP, the losses within GAP, and the same predictions on 1,000 fresh
    sequences. Prints a line per file."""
    import numpy as np

    from . import store
    from .evidence import predict
    from .params import flatten
    from .tasks import TASKS
    good = True
    for name in tasks:
        task = TASKS[name]
        for file, cfg, keep in runs(name):
            shipped = store.read(store.SHIPPED / file, cfg, store.run_key(name, cfg, task.steps, SEED))
            if shipped is None:
                print(f"{file}: missing or stale (another VERSION or settings): python -m engine.ship", flush=True)
                good = False
                continue
            run = _trained(name, cfg, keep)
            steps = [s for s, _ in shipped.checkpoints]
            if steps != [s for s, _ in run.checkpoints]:
                print(f"{file}: other checkpoint steps ({len(steps)} shipped, {len(run.checkpoints)} now): DIFFERENT",
                      flush=True)
                good = False
                continue
            gap = max(float(np.abs(flatten(a) - flatten(b)).max()) for (_, a), (_, b) in zip(shipped.checkpoints,
                                                                                           run.checkpoints))
            gap = max(gap, float(np.abs(shipped.losses - run.losses).max()))
            tokens, _ = task.sample(np.random.RandomState(FRESH), 1000)
            same = int(np.sum(predict(cfg, shipped.params, tokens) == predict(cfg, run.params, tokens)))
            ok = gap <= GAP and same == tokens.size
            good &= ok
            print(f"{file}: largest gap {gap:.1e} over {len(steps)} checkpoints and the losses (at most {GAP:.0e}); "
                  f"{same} of {tokens.size} predictions the same: {'ok' if ok else 'DIFFERENT'}", flush=True)
    return good


def main(argv: list[str]) -> int:
    from .tasks import TASKS
    checking = "--check" in argv
    tasks = [a for a in argv if a != "--check"] or list(TASKS)
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        print(f"unknown task {unknown[0]!r}; choose from: {', '.join(TASKS)}", file=sys.stderr)
        return 2
    if not pinned():                                                  # NumPy is loaded already: start again, pinned
        if not can_pin():
            print("the shipped weights are made with OpenBLAS's Haswell kernels, which need an x86-64 CPU with "
                  "AVX2 and FMA; this one has not: ship or check them on such a machine", file=sys.stderr)
            return 2
        return run_pinned(argv).returncode
    return 0 if (check(tasks) if checking else ship(tasks) is not None) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
