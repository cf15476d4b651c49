"""Every head of a model, its strongest role and that role's controls (engine.controls) and label (engine.roles):
for a task preset on its fresh sequences (transfer: sequences a quarter longer, engine.probes.transfer_length),
for the English text model on its held-out windows (transfer: random tokens with a repeated span; control: the
windows shuffled)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import Config
from .controls import BOOT_SEED, N_BOOT, head_controls
from .evidence import head_scores
from .language import EVIDENCE_N, EVIDENCE_T, SEED, head_roles
from .params import Params
from .probes import task_probe, text_probe, transfer_length
from .roles import ROLE_THRESHOLD, Controls, Label, role_label
from .tasks import Task, get_task

TASK_N, TASK_SEED, TRANSFER_SEED = 200, 1, 2  # a task preset's fresh sequences (and the transfer sample's seed)


@dataclass(frozen=True)
class HeadRole:
    """One head's strongest role, its controls, and the label they earn."""

    layer: int
    head: int
    controls: Controls
    label: Label
    sample: str  # in words: the held-out sample
    transfer_sample: str  # in words: the transfer sample
    loss: str  # in words: the loss the knock-outs are judged on


def best_role(roles: dict[str, np.ndarray], layer: int, head: int) -> str:
    """The role (name) of roles' (L, H) scores the head scores highest on, whether or not it reaches a threshold."""
    return max(roles.items(), key=lambda item: item[1][layer, head])[0]


def task_role_names(
    task: str | Task, cfg: Config, params: Params, n: int = TASK_N, seed: int = TASK_SEED
) -> tuple[tuple[str, ...], ...]:
    """Each head's strongest role [layer][head] of engine.evidence.head_scores on n fresh sequences of the task
    from RandomState(seed)."""
    task = get_task(task)
    tokens, targets = task.fresh(np.random.RandomState(seed), n)  # (n, T) each
    roles = head_scores(cfg, params, tokens, task, targets).roles()
    return tuple(tuple(best_role(roles, layer, head) for head in range(cfg.num_heads)) for layer in range(cfg.n_layers))


def task_head_role(
    task: str | Task,
    cfg: Config,
    params: Params,
    layer: int,
    head: int,
    role: str,
    n: int = TASK_N,
    seed: int = TASK_SEED,
    untrained: Params | None = None,
    n_boot: int = N_BOOT,
    threshold: float = ROLE_THRESHOLD,
) -> HeadRole:
    """One head of a task preset's model and its role: checked on n fresh sequences from RandomState(seed) and
    on n sequences a quarter longer (engine.probes.transfer_length), judged on the task's loss. untrained: the
    weights training started from (None: init_params(cfg))."""
    task = get_task(task)
    probe = task_probe(task, role, n, seed)
    moved = task_probe(task, role, n, seed + TRANSFER_SEED, transfer_length(task))
    words = f"sequences of {task.seq_len} tokens, its training length"
    checked = head_controls(cfg, params, layer, head, probe, moved, None, untrained, n_boot, BOOT_SEED, words)
    return HeadRole(layer, head, checked, role_label(checked, threshold), probe.sample, moved.sample, probe.loss)


def task_roles(
    task: str | Task,
    cfg: Config,
    params: Params,
    n: int = TASK_N,
    seed: int = TASK_SEED,
    untrained: Params | None = None,
    n_boot: int = N_BOOT,
    threshold: float = ROLE_THRESHOLD,
) -> tuple[HeadRole, ...]:
    """Every head of a task preset's model (layer-major), each with its strongest role (task_role_names) checked
    by task_head_role."""
    names = task_role_names(task, cfg, params, n, seed)
    return tuple(
        task_head_role(task, cfg, params, layer, head, names[layer][head], n, seed, untrained, n_boot, threshold)
        for layer in range(cfg.n_layers)
        for head in range(cfg.num_heads)
    )


def text_role_names(
    cfg: Config, params: Params, n: int = EVIDENCE_N, seed: int = SEED, T: int = EVIDENCE_T
) -> tuple[tuple[str, ...], ...]:
    """Each head's strongest role [layer][head] of engine.language.head_roles on n held-out windows."""
    roles = head_roles(cfg, params, n, seed, T).named()
    return tuple(tuple(best_role(roles, layer, head) for head in range(cfg.num_heads)) for layer in range(cfg.n_layers))


def text_head_role(
    cfg: Config,
    params: Params,
    layer: int,
    head: int,
    role: str,
    n: int = EVIDENCE_N,
    seed: int = SEED,
    T: int = EVIDENCE_T,
    untrained: Params | None = None,
    n_boot: int = N_BOOT,
    threshold: float = ROLE_THRESHOLD,
) -> HeadRole:
    """One head of the English text model and its role: checked on n held-out windows, on random tokens with a
    repeated span (transfer) and on the windows shuffled (the control), judged on the held-out next-token loss
    (the second copy's, for induction)."""
    probe = text_probe(cfg, role, "held_out", n, seed, T)
    moved, mixed = text_probe(cfg, role, "random", n, seed, T), text_probe(cfg, role, "shuffled", n, seed, T)
    checked = head_controls(
        cfg, params, layer, head, probe, moved, mixed, untrained, n_boot, BOOT_SEED, "training-like text"
    )
    return HeadRole(layer, head, checked, role_label(checked, threshold), probe.sample, moved.sample, probe.loss)


def text_roles(
    cfg: Config,
    params: Params,
    n: int = EVIDENCE_N,
    seed: int = SEED,
    T: int = EVIDENCE_T,
    untrained: Params | None = None,
    n_boot: int = N_BOOT,
    threshold: float = ROLE_THRESHOLD,
) -> tuple[HeadRole, ...]:
    """Every head of the English text model (layer-major), each with its strongest role (text_role_names)
    checked by text_head_role."""
    names = text_role_names(cfg, params, n, seed, T)
    return tuple(
        text_head_role(cfg, params, layer, head, names[layer][head], n, seed, T, untrained, n_boot, threshold)
        for layer in range(cfg.n_layers)
        for head in range(cfg.num_heads)
    )
