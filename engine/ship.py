"""Make the weights that ship with the app: every task's default run, trained and written to
assets/weights/<task>.npz (the final weights and the curves, not the checkpoints: the Learn page's
replay trains on demand). Run it again whenever training's numbers change (engine.train.VERSION).

    python -m engine.ship                 # train and write every task's file
    python -m engine.ship --check [TASK]  # train again and compare with the files (exit 1 if they differ)

Training is chaotic: a last-bit difference in one matrix product (another BLAS kernel sums in
another order) grows, over a few hundred Adam steps, to weights that differ in the first digit
(induction: 0.2 in float64, 1.1 in float32, between OpenBLAS's Haswell and Sandybridge kernels).
Both commands therefore run in one pinned arithmetic: OpenBLAS's Haswell kernels on one thread and
NumPy without its AVX-512 loops, which any x86-64 CPU with AVX2 and FMA runs the same way. The app
itself trains with whatever the machine has: its runs are as good, but not these numbers.
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


def ship(tasks, folder=None) -> list:
    """Train each task at its defaults and write its file; returns the paths."""
    from . import store
    from .train import train
    paths = []
    for name in tasks:
        run = train(name, seed=SEED)
        paths.append(store.save(run, store.SHIPPED if folder is None else folder, full=False, name=f"{name}.npz"))
        print(f"{paths[-1]}: {paths[-1].stat().st_size / 1000:.0f} kB, {run.steps} steps in {run.seconds:.1f} s",
              flush=True)
    return paths


def check(tasks) -> bool:
    """Train each task again and compare with its shipped file: every weight within GAP, and the
    same predictions on 1,000 fresh sequences. Prints a line per task."""
    import numpy as np

    from . import store
    from .evidence import predict
    from .params import flatten
    from .tasks import TASKS
    from .train import train
    good = True
    for name in tasks:
        task = TASKS[name]
        shipped = store.load_shipped(name, task.config, task.steps, SEED)
        if shipped is None:
            print(f"{name}: missing or stale (another VERSION or settings): python -m engine.ship", flush=True)
            good = False
            continue
        run = train(name, seed=SEED)
        gap = float(np.abs(flatten(shipped) - flatten(run.params)).max())
        tokens, _ = task.sample(np.random.RandomState(FRESH), 1000)
        same = int(np.sum(predict(task.config, shipped, tokens) == predict(task.config, run.params, tokens)))
        ok = gap <= GAP and same == tokens.size
        good &= ok
        print(f"{name}: largest gap {gap:.1e} (at most {GAP:.0e}); {same} of {tokens.size} predictions the same: "
              f"{'ok' if ok else 'DIFFERENT'}", flush=True)
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
