"""The model a page shows, as one small frozen handle: its config, its weights' digest, how it was trained
(None: the config's own initial draw) and the trained model itself when there is one.

The frame works it out once per run (after the trainer part has trained a trained preset's model) and puts
it on the View; pages and sections pass it to ui.compute, whose cached functions are keyed by its digest
and small arguments. handle() only looks the weights up (services.weights.find): it never trains. A trained
preset whose weights are neither in memory, shipped nor stored gives an untrained handle (is_trained False):
only the trainer part and the Learn page's explicit calls train (services.weights.get). Pure Python.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field

import engine
from services import weights
from services.weights import Model, Training


@dataclass(frozen=True)
class Handle:
    """One model: the config it runs at, the digest every derived number is keyed by (the trained weights'
    own, or 'init:' and a hash of the config for its initial draw), the training it was asked for, and the
    trained model (None: the initial draw, or a training not found without training)."""

    config: engine.Config
    digest: str
    training: Training | None = None
    trained: Model | None = field(default=None, compare=False, repr=False)  # the digest stands for it

    @property
    def is_trained(self) -> bool:
        return self.trained is not None

    @functools.cached_property
    def params(self) -> engine.Params:
        """The weights the page runs: the trained ones, or the config's initial draw (worked out once)."""
        return self.trained.params if self.trained is not None else engine.init_params(self.config)

    def said(self) -> str:
        """Which trained weights these are ('' for the initial draw)."""
        return "" if self.trained is None else self.trained.said()


def initial_digest(cfg: engine.Config) -> str:
    """The initial draw's name: it depends on the config alone (engine.init_params draws from cfg.seed)."""
    return "init:" + hashlib.sha256(repr(cfg).encode()).hexdigest()[:16]


def of(cfg: engine.Config, training: Training | None, trained: Model | None) -> Handle:
    """The handle of a model found or trained (None: the initial draw of cfg)."""
    if trained is None:
        return Handle(config=cfg, digest=initial_digest(cfg), training=training)
    return Handle(config=cfg, digest=trained.digest, training=training, trained=trained)


def handle(cfg: engine.Config, training: Training | None) -> Handle:
    """The model of these settings, looked up only (memory, shipped, stored): never a training."""
    return of(cfg, training, None if training is None else weights.find(cfg, training))
