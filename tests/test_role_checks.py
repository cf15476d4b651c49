"""engine.role_checks: every head of a model with its strongest role, that role's controls and the label the one
rule (engine.roles.role_label) gives them, for a task preset (its shipped weights and an untrained copy) and,
on a small sample, the English text model."""

from __future__ import annotations

import math

import numpy as np
import pytest

import engine
from engine.params import init_params
from engine.role_checks import HeadRole, best_role, task_roles, text_roles
from engine.roles import CHECKS, role_label
from factory import store


def shipped(name: str):
    task = engine.TASKS[name]
    return task.config, store.load_shipped(name, task.config, task.steps, 0).params


def assert_sound(found: tuple[HeadRole, ...], cfg) -> None:
    """One HeadRole per head, layer-major; every label the rule's; every control finite and every interval
    around its value; the sample, the transfer sample and the loss said in words."""
    assert [(h.layer, h.head) for h in found] == [
        (layer, head) for layer in range(cfg.n_layers) for head in range(cfg.num_heads)
    ]
    for one in found:
        c = one.controls
        assert one.label == role_label(c)
        assert (one.label.name is None) == (one.label.failed is not None)
        assert one.label.failed in (None, *CHECKS) and one.label.reason
        numbers = [c.score, c.lo, c.hi, c.untrained, c.transfer, *c.layer_others]
        for knocked in (c.zero, c.mean, c.resample, *([c.together] if c.together else [])):
            numbers += [knocked.mean, knocked.lo, knocked.hi]
            assert knocked.lo <= knocked.mean + 1e-12 and knocked.mean <= knocked.hi + 1e-12
        assert all(math.isfinite(x) for x in numbers)
        assert c.lo <= c.score + 1e-12 and c.score <= c.hi + 1e-12 and 0 <= c.lo and c.hi <= 1
        assert len(c.layer_others) == cfg.num_heads - 1 and c.weakest is not None and c.weakest >= 0
        assert one.sample and one.transfer_sample and one.loss and one.sample != one.transfer_sample


@pytest.fixture(scope="module")
def induction_roles():
    cfg, params = shipped("induction")
    return cfg, task_roles("induction", cfg, params, n=120, n_boot=200)


def test_task_roles_label_every_head_by_the_rule(induction_roles):
    cfg, found = induction_roles
    assert_sound(found, cfg)
    roles = {(h.layer, h.head): h.controls.role for h in found}
    assert roles[1, 0].startswith("induction") and roles[1, 1].startswith("induction")  # the second layer copies
    assert roles[0, 1] == "previous token"  # the first looks back
    assert found[2].controls.partner == (1, 1) and found[2].controls.together is not None  # an induction pair


def test_untrained_weights_earn_no_label():
    cfg, _ = shipped("previous")
    found = task_roles("previous", cfg, init_params(cfg), n=60, n_boot=100)
    assert_sound(found, cfg)
    assert all(one.label.name is None for one in found)


def test_best_role_is_the_highest_score_whatever_the_threshold():
    roles = {"a": np.array([[0.1, 0.3]]), "b": np.array([[0.2, 0.05]])}
    assert (best_role(roles, 0, 0), best_role(roles, 0, 1)) == ("b", "a")


def test_text_roles_on_a_small_sample():
    task = engine.TASKS["text"]
    params = store.load_shipped("text", task.config, task.steps, 0).params
    found = text_roles(task.config, params, n=24, T=32, n_boot=100)
    assert_sound(found, task.config)
    assert all(one.controls.shuffled is not None and math.isfinite(one.controls.shuffled) for one in found)
    assert found[0].controls.role == "previous token"  # layer 0 head 0 looks back, as the pages say
