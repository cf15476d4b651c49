"""The English-text model (the "text" task): its held-out loss against unigram and bigram baselines,
every head's roles, what knocking each head out costs, and its top-5 next words for a sentence.

Everything is measured on held-out chapters (engine.language): 512 plain windows of 64 tokens,
and 512 windows that repeat a span of their own text (for induction and the second-copy loss).

    python -m benchmarks.text                    # measure the shipped run (assets/weights/text.npz)
    python -m benchmarks.text --train            # train the task's default run on one thread, then measure
    python -m benchmarks.text --train --save run.npz   # ... and keep the run (factory.store's format)
    python -m benchmarks.text --run run.npz      # measure a kept run of the defaults
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import engine
from engine import language, text
from factory import store

SEED = 0  # the batches' seed of the default run (factory.ship's)
SENTENCE = "I am sure she will be very"


def measure(cfg: engine.Config, params: engine.Params, sentence: str) -> None:
    plain = language.held_out()
    base = language.baseline_losses(plain.tokens, plain.targets)
    loss = float(language.token_losses(cfg, params, plain.tokens, plain.targets).mean())
    print("\n| held-out loss (nats per token) | |\n| --- | --- |")
    print(f"| the model | {loss:.3f} |\n| unigram | {base['unigram']:.3f} |")
    print(f"| interpolated bigram (λ = {base['lambda']:.2f}, the best on these windows) | {base['bigram']:.3f} |")

    roles = language.head_roles(cfg, params).named()
    print("\n| layer | head | " + " | ".join(roles) + " |\n| --- | --- |" + " --- |" * len(roles))
    for layer in range(cfg.n_layers):
        for head in range(cfg.num_heads):
            print(
                f"| {layer} | {head} | " + " | ".join(f"{scores[layer, head]:.2f}" for scores in roles.values()) + " |"
            )

    L, H = cfg.n_layers, cfg.num_heads
    removed = [frozenset()] + [frozenset({(layer, head)}) for layer in range(L) for head in range(H)]
    removed += [frozenset((layer, head) for head in range(H)) for layer in range(L)]
    found = language.knockouts(cfg, params, removed)
    none = found[0]
    print("\n| removed | held-out loss | change | loss on second copies | change |\n| --- | --- | --- | --- | --- |")
    for knock in found:
        what = "nothing" if not knock.ablate else ", ".join(f"L{layer} H{head}" for layer, head in sorted(knock.ablate))
        print(
            f"| {what} | {knock.overall:.3f} | {knock.overall - none.overall:+.3f} | {knock.second_copy:.3f} | "
            f"{knock.second_copy - none.second_copy:+.3f} |"
        )

    encoded = text.encode(sentence)
    unknown = f" (unknown: {', '.join(encoded.unknown_words)})" if encoded.unknown else ""
    print(f'\nAfter "{" ".join(encoded.labels)}"{unknown}:')
    for word, p in language.next_words(cfg, params, sentence):
        print(f"  {word!r}: {p:.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, help="a kept run's file (the default run's) to measure instead of training")
    parser.add_argument("--save", type=Path, help="write the trained run here")
    parser.add_argument(
        "--train", action="store_true", help="train the default run here instead of reading the shipped one"
    )
    parser.add_argument("--sentence", default=SENTENCE, help="the sentence whose next word is predicted")
    args = parser.parse_args(argv)
    task = engine.TASKS["text"]
    with threadpool_limits(1):
        if args.run is not None or not args.train:
            where = args.run if args.run is not None else store.shipped_path("text")
            kept = store.read(where, task.config, store.run_key("text", task.config, task.steps, SEED))
            if kept is None:
                print(f"{where}: not a run of the text task's defaults (or another VERSION)", file=sys.stderr)
                return 2
            params = kept.params
        else:
            start = time.perf_counter()
            text.corpus()
            loaded, cpu = time.perf_counter() - start, time.thread_time()
            run = engine.train("text", seed=SEED)
            cpu, params = time.thread_time() - cpu, run.params
            print(
                f"corpus read in {loaded:.2f} s; {run.steps} steps of {run.batch} × {task.seq_len} tokens in "
                f"{run.seconds:.1f} s ({run.seconds / run.steps * 1000:.1f} ms a step; the training thread's CPU "
                f"time {cpu:.1f} s); last 100 batch losses {np.mean(run.losses[-100:]):.3f}"
            )
            if args.save is not None:
                print(f"kept: {store.save(run, args.save.parent, name=args.save.name)}")
        measure(task.config, params, args.sentence)
    return 0


if __name__ == "__main__":
    sys.exit(main())
