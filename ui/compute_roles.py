"""Streamlit's caches around every head's role with its controls (issue 50), keyed by the trained model's digest
and small numbers, never arrays: the shipped models' are read from the files shipped beside them
(services.evidence.kept_roles), any other model's are measured head by head on first need (a task preset's in
about a second), under a progress bar, and kept in the disk store. ui.compute.head_roles hands them to pure
callers (a lesson's facts)."""

from __future__ import annotations

import numpy as np
import streamlit as st

import engine.controls
import engine.measure
from engine.role_checks import HeadRole
from services import evidence as measured
from services.weights import Model

KEYS = {Model: lambda m: m.digest}  # a trained model is keyed by its weights' digest (as ui.compute keys it)


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=KEYS)
def kept(trained: Model) -> tuple[HeadRole, ...] | None:
    """Every head's role as shipped (or kept in the disk store), None: not measured yet."""
    return measured.kept_roles(trained)


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=KEYS)
def names(trained: Model) -> tuple[tuple[str, ...], ...]:
    """Each head's strongest role [layer][head], on the sample its controls are measured on."""
    return measured.role_names(trained)


@st.cache_data(max_entries=256, show_spinner=False, hash_funcs=KEYS)
def head_role(trained: Model, layer: int, head: int) -> HeadRole:
    """One head's role with its controls and label: kept, else measured now."""
    found = kept(trained)
    if found is not None:
        return found[layer * trained.config.num_heads + head]
    return measured.head_role(trained, layer, head, names(trained)[layer][head])


def every_head(trained: Model) -> tuple[HeadRole, ...]:
    """Every head's role (layer-major): kept, else measured head by head under a progress bar and then kept."""
    found = kept(trained)
    if found is not None:
        return found
    cfg = trained.config
    pairs = [(layer, head) for layer in range(cfg.n_layers) for head in range(cfg.num_heads)]
    bar = st.progress(0.0, text="Checking every head's role against its controls …")
    done = []
    for number, (layer, head) in enumerate(pairs, start=1):
        done.append(head_role(trained, layer, head))
        bar.progress(number / len(pairs), text=f"Checked {number} of {len(pairs)} heads' roles …")
    bar.empty()
    measured.keep_roles(trained, tuple(done))
    return tuple(done)


def labels(trained: Model) -> list[list[HeadRole]]:
    """Every head's role as [layer][head] (every_head's)."""
    found, H = every_head(trained), trained.config.num_heads
    return [list(found[at : at + H]) for at in range(0, len(found), H)]


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=KEYS)
def counter_example(trained: Model, layer: int, head: int) -> tuple[tuple[int, ...], np.ndarray, float] | None:
    """Where the head follows its role least (its controls' weakest unit of the held-out sample): the unit's token
    ids, (T, T) its role's keys for each of its scored queries, and the head's score on it; None: no such unit.
    The page draws the unit's map from ui.compute.task_stack (the same forward, cached there)."""
    one = head_role(trained, layer, head)
    if one.controls.weakest is None:
        return None
    probe = measured.role_probe(trained, one)
    unit = one.controls.weakest
    ids = tuple(int(i) for i in probe.tokens[unit])
    keys = probe.keys[unit] & probe.queries[unit][:, None]  # (T, T): the role's keys, on the queries it scores
    stack = engine.measure.task_stack(trained.task, trained.config, trained.params, list(ids))
    weights = stack.layers[layer].weights[head]  # (T, T)
    return ids, keys, engine.controls.unit_score(weights, keys, probe.queries[unit])
