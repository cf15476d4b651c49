"""What ships beside each task's default run (factory.ship) for issue 50: every head's strongest role with its
controls (engine.role_checks: the score's interval, the untrained and layer baselines, the transfer score, the
three knock-outs with intervals, the counter-example), measured once in the pinned arithmetic and kept as
roles-<digest>.npz beside the run's measures, named by the digest of its final weights. The pages read them
(services.evidence.head_roles) where measuring cost the text model ~290 s; the label is not kept but given by
the one rule (engine.roles.role_label) from the kept controls, so a change of the rule needs no new file.

    python -m factory.ship --roles [TASK]           # measure every head's controls again and write them
    python -m factory.ship --roles --check [TASK]   # measure again and compare with the files (exit 1 if not
                                                    # within ROLES_GAP)
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from engine.params import digest
from engine.role_checks import HeadRole, task_roles, text_roles
from engine.roles import Controls, Effect, role_label
from engine.tasks import TASKS

from . import evidence_files, store
from .shipped_runs import SEED, runs

ROLES = "roles"  # roles-<digest>.npz
CONTROLS_VERSION = 1  # of what the controls measure (engine.probes, engine.controls): a file kept under another
# is measured again
ROLES_GAP = 1e-6  # --check's largest allowed difference of any kept number (scores, effects: a float64 sum's order)
# the numbers kept per head, in this order (a missing one, NaN: no shuffled control, no partner)
NUMBERS = (
    "score",
    "lo",
    "hi",
    "untrained",
    "transfer",
    "shuffled",
    *(f"{mode} {part}" for mode in ("zero", "mean", "resample", "together") for part in ("mean", "lo", "hi")),
    "partner layer",
    "partner head",
    "weakest",
)
WORDS = ("role", "sample", "transfer sample", "loss", "transfer words")  # the words kept per head


def roles_path(folder: Path, named: str) -> Path:
    return evidence_files.evidence_path(folder, named, ROLES)


def measure(name: str, cfg, params) -> tuple[HeadRole, ...]:
    """Every head's role and controls, as the pages show them: a task's on its fresh sequences, the text model's
    on its held-out windows."""
    return text_roles(cfg, params) if TASKS[name].held_out is not None else task_roles(name, cfg, params)


def roles_arrays(found: tuple[HeadRole, ...], cfg) -> dict[str, np.ndarray]:
    """The heads' controls as arrays (for a file): (L·H, len(NUMBERS)) numbers, (L·H, H-1) the layer's other
    heads' scores, (L·H, len(WORDS)) words, layer-major."""

    def effect(e: Effect | None) -> list[float]:
        return [math.nan] * 3 if e is None else [e.mean, e.lo, e.hi]

    rows, others, words = [], [], []
    for one in found:
        c = one.controls
        partner = c.partner if c.partner is not None else (math.nan, math.nan)
        rows.append(
            [c.score, c.lo, c.hi, c.untrained, c.transfer, math.nan if c.shuffled is None else c.shuffled]
            + effect(c.zero)
            + effect(c.mean)
            + effect(c.resample)
            + effect(c.together)
            + [*partner, math.nan if c.weakest is None else c.weakest]
        )
        others.append(c.layer_others)
        words.append([c.role, one.sample, one.transfer_sample, one.loss, c.transfer_words])
    return {
        "heads": np.array([cfg.n_layers, cfg.num_heads]),
        "controls": np.array(rows, dtype=np.float64),
        "layer others": np.array(others, dtype=np.float64).reshape(len(found), cfg.num_heads - 1),
        "words": np.array(words, dtype=str),
        "controls version": np.array(CONTROLS_VERSION),
    }


def _effect(numbers: dict[str, float], mode: str) -> Effect | None:
    parts = [numbers[f"{mode} {part}"] for part in ("mean", "lo", "hi")]
    return None if math.isnan(parts[0]) else Effect(*parts)


def roles_from(arrays: dict[str, np.ndarray], cfg) -> tuple[HeadRole, ...] | None:
    """roles_arrays read back, each head labelled by the rule as it is now; None when the file measured another
    model shape or under another CONTROLS_VERSION."""
    L, H = cfg.n_layers, cfg.num_heads
    if int(arrays.get("controls version", -1)) != CONTROLS_VERSION or tuple(arrays["heads"]) != (L, H):
        return None
    found = []
    for row, others, words in zip(arrays["controls"], arrays["layer others"], arrays["words"]):
        n = dict(zip(NUMBERS, (float(x) for x in row)))
        w = dict(zip(WORDS, (str(x) for x in words)))

        known = not math.isnan(n["partner layer"])
        controls = Controls(
            role=w["role"],
            score=n["score"],
            lo=n["lo"],
            hi=n["hi"],
            untrained=n["untrained"],
            transfer=n["transfer"],
            zero=_effect(n, "zero"),
            mean=_effect(n, "mean"),
            resample=_effect(n, "resample"),
            layer_others=tuple(float(x) for x in others),
            shuffled=None if math.isnan(n["shuffled"]) else n["shuffled"],
            partner=(int(n["partner layer"]), int(n["partner head"])) if known else None,
            together=_effect(n, "together"),
            weakest=None if math.isnan(n["weakest"]) else int(n["weakest"]),
            transfer_words=w["transfer words"],
        )
        layer, head = divmod(len(found), H)
        found.append(
            HeadRole(layer, head, controls, role_label(controls), w["sample"], w["transfer sample"], w["loss"])
        )
    return tuple(found)


def read_roles(folder: Path, cfg, named: str) -> tuple[HeadRole, ...] | None:
    """The heads' roles kept for the weights named by digest `named` in folder, or None (none kept, unsound, or
    measured otherwise)."""
    arrays = evidence_files.read_evidence(roles_path(folder, named), named)
    return None if arrays is None else roles_from(arrays, cfg)


def default_run(name: str):
    """A task's default shipped run as the app reads it, or None (missing or stale)."""
    one = runs(name)[0]
    run = store.read(store.SHIPPED / one.file, one.config, store.run_key(name, one.config, TASKS[name].steps, SEED))
    if run is None:
        print(f"{one.file}: missing or stale: python -m factory.ship {name}", flush=True)
    return one, run


def write_one(name: str, cfg, params, folder) -> Path:
    """Measure every head's role and controls of one task's model and write them beside its weights."""
    named = digest(params)
    found = measure(name, cfg, params)
    path = evidence_files.save_evidence(roles_arrays(found, cfg), named, roles_path(folder, named))
    labelled = sum(h.label.name is not None for h in found)
    print(f"{path}: the controls of {len(found)} head(s), {labelled} labelled", flush=True)
    return path


def write_roles(tasks, folder=None) -> list | None:
    """Measure every head's role and controls of each task's default shipped run (no training) and write them."""
    paths = []
    for name in tasks:
        one, run = default_run(name)
        if run is None:
            return None
        paths.append(write_one(name, one.config, run.params, store.SHIPPED if folder is None else folder))
    return paths


def gap(kept: tuple[HeadRole, ...], now: tuple[HeadRole, ...], cfg) -> float:
    """The largest difference between two measures of the same heads' controls (NaN where they are not the same
    roles, samples or words; a missing number on both sides counts as equal)."""
    a, b = roles_arrays(kept, cfg), roles_arrays(now, cfg)
    if not np.array_equal(a["words"], b["words"]) or not np.array_equal(
        np.isnan(a["controls"]), np.isnan(b["controls"])
    ):
        return math.nan
    known = ~np.isnan(a["controls"])
    return float(
        max(
            np.abs(a["controls"][known] - b["controls"][known]).max(),
            np.abs(a["layer others"] - b["layer others"]).max(initial=0),
        )
    )


def check_roles(tasks) -> bool:
    """Measure every head's controls again and compare with the kept ones: the same roles and words, every number
    within ROLES_GAP. Prints a line per task."""
    good = True
    for name in tasks:
        one, run = default_run(name)
        kept = None if run is None else read_roles(store.SHIPPED, one.config, digest(run.params))
        if kept is None:
            print(f"{one.file}: its roles (roles-<digest>.npz) are missing: python -m factory.ship --roles", flush=True)
            good = False
            continue
        largest = gap(kept, measure(name, one.config, run.params), one.config)
        ok = largest <= ROLES_GAP  # False for NaN
        good &= ok
        print(
            f"{one.file}: the controls of its {len(kept)} head(s) measured again: largest gap {largest:.1e} (at most "
            f"{ROLES_GAP:.0e}): {'ok' if ok else 'DIFFERENT'}",
            flush=True,
        )
    return good
