"""How much does the engine's trace bookkeeping cost on top of the bare NumPy arithmetic?

For each sequence length T and width d_model (8 heads, d_ff = 4·d_model) this times
engine.forward with precomputed params and x, and a "floor": the same NumPy operations written
inline with no validation, no mask array, no copies and no freezing. Both are timed interleaved,
many times, and the medians are compared.

    python -m benchmarks.engine_bench            # the full table
    python -m benchmarks.engine_bench --quick    # fewer repeats
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import engine

LENGTHS = (8, 64, 256, 512)
WIDTHS = (16, 128, 512)
HEADS = 8
TARGET = 1.3  # engine median / floor median at the largest case


def floor_forward(params: engine.Params, x: np.ndarray, num_heads: int) -> np.ndarray:
    """The block's arithmetic and nothing else (no mask, no positions, no layer norm)."""
    T, C = x.shape
    dh = C // num_heads
    q = (x @ params.w_q).reshape(T, num_heads, dh).swapaxes(0, 1)  # (H, T, dh)
    k = (x @ params.w_k).reshape(T, num_heads, dh).swapaxes(0, 1)
    v = (x @ params.w_v).reshape(T, num_heads, dh).swapaxes(0, 1)
    s = q @ k.swapaxes(-2, -1) / np.sqrt(dh)  # (H, T, T)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    concat = (w @ v).swapaxes(0, 1).reshape(T, C)  # (T, C)
    after = x + concat @ params.w_o
    hidden = np.maximum(0, after @ params.w1 + params.b1)  # (T, 4C)
    return after + hidden @ params.w2 + params.b2


def timed(fn, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def measure(T: int, C: int, repeats: int, budget: float) -> tuple[float, float]:
    cfg = engine.Config(d_model=C, num_heads=HEADS, d_ff=4 * C, seed=0)
    params = engine.init_params(cfg)
    x = np.random.RandomState(1).randn(T, C)  # (T, C)
    trace = engine.forward(cfg, params, x)
    floor = floor_forward(params, x, HEADS)
    scale = max(1.0, float(np.max(np.abs(floor))))
    if np.max(np.abs(trace.output - floor)) > 1e-9 * scale:
        raise SystemExit(f"floor and engine disagree at T={T}, d_model={C}: the floor is not the same work")

    def run_engine():
        engine.forward(cfg, params, x)

    def run_floor():
        floor_forward(params, x, HEADS)

    once = max(timed(run_engine, 1), timed(run_floor, 1), 1e-6)
    number = max(1, int(budget / once))  # calls per timing sample
    engine_times, floor_times = [], []
    for _ in range(repeats):  # interleaved: drift hits both alike
        engine_times.append(timed(run_engine, number))
        floor_times.append(timed(run_floor, number))
    return statistics.median(engine_times), statistics.median(floor_times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    args = parser.parse_args(argv)
    repeats, budget = (7, 0.02) if args.quick else (21, 0.05)

    print(
        f"engine.forward vs inline NumPy floor; {HEADS} heads, d_ff = 4·d_model, "
        f"median of {repeats} samples; numpy {np.__version__}"
    )
    print(f"{'T':>5} {'d_model':>8} {'engine ms':>11} {'floor ms':>10} {'ratio':>7}")
    ratios = {}
    for T in LENGTHS:
        for C in WIDTHS:
            eng, flo = measure(T, C, repeats, budget)
            ratios[T, C] = eng / flo
            print(f"{T:>5} {C:>8} {eng * 1e3:>11.3f} {flo * 1e3:>10.3f} {eng / flo:>7.2f}", flush=True)
    key = (max(LENGTHS), max(WIDTHS))
    verdict = "OK" if ratios[key] <= TARGET else "ABOVE TARGET"
    print(f"target: ratio <= {TARGET} at T={key[0]}, d_model={key[1]}: {ratios[key]:.2f} -> {verdict}")
    return 0 if ratios[key] <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
