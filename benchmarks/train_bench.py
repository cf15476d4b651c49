"""How fast does each task train on one core, and what does the induction curve look like?

For each one-block task, its default run (engine.train at the task's defaults) is repeated, on
one BLAS thread, and these medians are printed: the steps of the run and its wall time; the first
step at which the training batches' accuracy (mean of the last 20 steps) reaches 99 %, and the
time to get there (that step x seconds per step); steps per second; and the ratio of one
training step (forward, backward, Adam, the batch draw) to a forward-only floor (the same batch
through the same batched forward, nothing else). Then the trained model's accuracy on 1,000 fresh
sequences and its best head's share of weight on the expected keys.

For induction: steps to the loss drop (engine.loss_curve.loss_drop_step), steps to 90 %, accuracy on 1,000
fresh sequences, the time, and the heads of the circuit: the layer-1 head that looks most at the
previous token, and the layer-2 head that looks most at the keys after earlier copies of the
current token.

    python -m benchmarks.train_bench            # 5 runs per one-block task, 3 of induction
    python -m benchmarks.train_bench --quick    # 3 and 1
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

import engine
import engine.loss_curve
import engine.measure
import engine.params
from engine.training import DTYPE

SINGLE = ("previous", "first", "reverse", "max")
FRESH = 12345  # seed of the evaluation sequences (training batches use RandomState(0))
BUDGET = {"single": 3.0, "induction": 30.0}  # seconds, one core


def first_step_at(accuracies: np.ndarray, level: float, window: int = 20) -> int | None:
    """The first step whose last `window` batch accuracies average at least `level`."""
    means = np.convolve(accuracies, np.ones(window) / window, mode="valid")  # means[i]: steps i .. i+window-1
    hits = np.flatnonzero(means >= level)
    return None if hits.size == 0 else int(hits[0]) + window


def forward_floor(task: engine.Task, repeats: int = 200) -> float:
    """Median seconds of engine.forward on one default batch (the table lookup included), in training's
    arithmetic (DTYPE)."""
    initial = engine.init_params(task.config)
    params = engine.params.unflatten(initial, engine.params.flatten(initial).astype(DTYPE))
    tokens, _ = task.sample(np.random.RandomState(0), task.batch)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        engine.forward(task.config, params, params.embeddings[tokens])
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def best_head(task: engine.Task, run: engine.TrainRun, keys_of=None) -> tuple[int, int, float, float]:
    """(layer, head, mean share, share of queries >= 0.9) of the head most on the expected keys."""
    tokens, targets = task.sample(np.random.RandomState(FRESH), 300)
    keys = (keys_of or task.expected_keys)(tokens)
    scored = targets >= 0 if keys_of is None else np.ones(tokens.shape, dtype=bool)
    shares = engine.measure.share_per_query(run.config, run.params, tokens, keys, scored)  # (L, H, Q)
    layer, head = np.unravel_index(shares.mean(axis=-1).argmax(), shares.shape[:2])
    best = shares[layer, head]
    return int(layer), int(head), float(best.mean()), float(np.mean(best >= 0.9))


def bench_single(name: str, runs: int) -> bool:
    task = engine.TASKS[name]
    walls, reach, rates, ratios = [], [], [], []
    for _ in range(runs):
        floor = forward_floor(task)
        run = engine.train(name)
        step99 = first_step_at(run.accuracies, 0.99)
        per_step = run.seconds / run.steps
        walls.append(run.seconds)
        reach.append(np.nan if step99 is None else step99 * per_step)
        rates.append(1 / per_step)
        ratios.append(per_step / floor)
    accuracy = engine.evaluate(name, run.config, run.params, n=1000, seed=FRESH)
    _, head, mean, clear = best_head(task, run)
    median99 = statistics.median(reach)
    print(
        f"{name:>9} {run.steps:>6} {statistics.median(walls):>7.2f} {step99 or '-':>8} {median99:>7.2f} "
        f"{statistics.median(rates):>7.0f} {statistics.median(ratios):>6.1f} {accuracy:>7.3f} "
        f"  head {head}: mean {mean:.3f}, {clear:.1%} of queries >= 0.9",
        flush=True,
    )
    return median99 <= BUDGET["single"] and accuracy >= 0.99


def bench_induction(runs: int) -> bool:
    task = engine.TASKS["induction"]
    walls, results = [], []
    for _ in range(runs):
        run = engine.train("induction")
        walls.append(run.seconds)
        results.append(run)
    run = results[-1]
    per_step = statistics.median(walls) / run.steps
    drop, step90 = engine.loss_curve.loss_drop_step(run.losses), first_step_at(run.accuracies, 0.90)
    accuracy = engine.evaluate("induction", run.config, run.params, n=1000, seed=FRESH)
    l1 = best_head(engine.TASKS["previous"], run, keys_of=engine.TASKS["previous"].expected_keys)
    shares = engine.measure.expected_share(
        task, run.config, run.params, *task.sample(np.random.RandomState(FRESH), 300)
    )
    l2_head = int(shares[1].argmax())
    cfg = run.config
    print(
        f"induction: {cfg.n_layers} layers, d_model {cfg.d_model}, {cfg.num_heads} heads, T {task.seq_len}, "
        f"vocab {cfg.vocab_size}, batch {task.batch}, Adam {task.lr}, {run.steps} steps; median of {runs} runs"
    )
    print(f"  loss plateau ends (sharpest drop) at step {drop}; 90 % (20-step mean) at step {step90}")
    print(
        f"  time: {statistics.median(walls):.1f} s for {run.steps} steps ({1 / per_step:.0f} steps/s), "
        f"{'-' if step90 is None else f'{step90 * per_step:.1f} s'} to 90 %"
    )
    print(f"  accuracy on 1,000 fresh sequences (scored positions): {accuracy:.3f}")
    print(
        f"  circuit: layer-1 head {l1[1]} on the previous token (mean {l1[2]:.2f}); "
        f"layer-2 head {l2_head} on the keys after earlier copies (mean {shares[1, l2_head]:.2f}); "
        f"all layer-2 heads {np.round(shares[1], 2).tolist()}"
    )
    return statistics.median(walls) <= BUDGET["induction"] and accuracy >= 0.90 and shares[1].max() >= 0.7


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 runs per task and 1 of induction")
    args = parser.parse_args(argv)
    runs, induction_runs = (3, 1) if args.quick else (5, 3)
    ok = True
    with threadpool_limits(1):
        print(f"one BLAS thread; medians of {runs} runs; numpy {np.__version__}")
        print(
            f"{'task':>9} {'steps':>6} {'run s':>7} {'99% at':>8} {'to 99%':>7} {'step/s':>7} {'/fwd':>6} {'fresh':>7}"
        )
        for name in SINGLE:
            ok &= bench_single(name, runs)
        ok &= bench_induction(induction_runs)
    print(
        f"targets: 99 % within {BUDGET['single']:.0f} s per one-block task; induction >= 90 % with a "
        f"layer-2 head >= 0.7 within {BUDGET['induction']:.0f} s -> {'OK' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
