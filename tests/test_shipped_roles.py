"""The heads' roles with controls that ship beside each task's default run (factory.shipped_roles, issue 50): one
per head, read back as measured, labelled by the one rule, and what measuring them again gives (the check of
python -m factory.ship --roles --check, here for every task preset and one head of the text model)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import engine
from engine.params import digest
from engine.role_checks import text_head_role
from engine.roles import role_label
from factory import evidence_files, shipped_roles, store

TASKS = [name for name in engine.TASKS if engine.TASKS[name].held_out is None]


def kept(name: str):
    one, run = shipped_roles.default_run(name)
    assert run is not None, f"{name}: its shipped run is missing"
    found = shipped_roles.read_roles(store.SHIPPED, one.config, digest(run.params))
    assert found is not None, f"{name}: its roles are not shipped: python -m factory.ship --roles {name}"
    return one, run, found


@pytest.mark.parametrize("name", list(engine.TASKS))
def test_every_shipped_head_has_its_controls_and_the_rules_label(name):
    one, _, found = kept(name)
    cfg = one.config
    assert [(h.layer, h.head) for h in found] == [(a, b) for a in range(cfg.n_layers) for b in range(cfg.num_heads)]
    for h in found:
        assert h.label == role_label(h.controls)
        assert all(math.isfinite(x) for x in (h.controls.score, h.controls.lo, h.controls.untrained))
        assert (h.controls.shuffled is not None) == (engine.TASKS[name].held_out is not None)


@pytest.mark.parametrize("name", TASKS)
def test_the_shipped_controls_are_what_measuring_gives(name):
    one, run, found = kept(name)
    now = shipped_roles.measure(name, one.config, run.params)
    assert shipped_roles.gap(found, now, one.config) <= shipped_roles.ROLES_GAP


def test_the_text_models_first_head_measured_again():
    """The text model's every head takes ~290 s (the full check: python -m factory.ship --roles --check text);
    its first head's controls, ~40 s, here."""
    one, run, found = kept("text")
    first = found[0]
    now = text_head_role(one.config, run.params, 0, 0, first.controls.role)
    assert dataclasses.astuple(now.controls)[1:5] == pytest.approx(
        dataclasses.astuple(first.controls)[1:5], abs=shipped_roles.ROLES_GAP
    )
    assert now.label == first.label and (now.sample, now.loss) == (first.sample, first.loss)


def test_a_file_of_another_version_or_shape_is_not_read(tmp_path):
    one, run, found = kept("induction")
    arrays = shipped_roles.roles_arrays(found, one.config)
    assert shipped_roles.roles_from(arrays, one.config) == found  # the round trip
    stale = arrays | {"controls version": np.array(shipped_roles.CONTROLS_VERSION - 1)}
    assert shipped_roles.roles_from(stale, one.config) is None
    assert shipped_roles.roles_from(arrays, dataclasses.replace(one.config, num_heads=1)) is None
    named = digest(run.params)
    path = evidence_files.save_evidence(arrays, named, shipped_roles.roles_path(tmp_path, named))
    assert shipped_roles.read_roles(tmp_path, one.config, named) == found
    assert shipped_roles.read_roles(tmp_path, one.config, "0" * 16) is None  # another model's weights
    assert path.name == f"roles-{named}.npz"
