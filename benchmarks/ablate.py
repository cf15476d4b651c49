"""Accuracy of every trained task with heads knocked out: none, each head alone, each layer's heads.

Each task is trained at its defaults (engine.train, the presets' runs), then scored on 1,000 fresh
sequences (engine.evaluate) with its head outputs replaced by zeros (zero-ablation) and by their
mean over the task's sequences (mean-ablation).

    python -m benchmarks.ablate                 # every task
    python -m benchmarks.ablate induction       # some of them
"""

from __future__ import annotations

import argparse
import sys

from threadpoolctl import threadpool_limits

import engine
import engine.evidence

FRESH = 12345  # seed of the evaluation sequences (training batches use RandomState(0))


def knockouts(cfg: engine.Config) -> list[tuple[str, frozenset]]:
    """(what is removed, the pairs) for: nothing, each head, each layer's heads when a layer has more than one."""
    L, H = cfg.n_layers, cfg.num_heads
    rows = [("nothing removed", frozenset())]
    rows += [(f"layer {layer} head {head}", frozenset({(layer, head)})) for layer in range(L) for head in range(H)]
    if H > 1:
        rows += [(f"layer {layer}, all {H} heads", frozenset((layer, h) for h in range(H))) for layer in range(L)]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="*", default=list(engine.TASKS), help="task names (default: all)")
    parser.add_argument("-n", type=int, default=1000, help="fresh sequences per accuracy")
    args = parser.parse_args(argv)
    print("| task | removed | accuracy (zero) | accuracy (mean) |\n| --- | --- | --- | --- |")
    with threadpool_limits(1):
        for name in args.tasks:
            run = engine.train(name)
            for what, pairs in knockouts(run.config):
                zero, mean = (
                    engine.evaluate(name, run.config, run.params, n=args.n, seed=FRESH, ablate=pairs, ablate_mode=mode)
                    for mode in engine.evidence.ABLATE_MODES
                )
                print(f"| {name} | {what} | {zero:.3f} | {mean:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
