"""The only place the app calls the engine: cached on small keys (config, token tuple, which trained
weights), never arrays.

Trained weights are trained once for each (config, task, steps), and kept: a finished run is stored
on disk (engine.store; $ATTENTION_LAB_CACHE, else .cache/weights/), so a restart or another replica
on the same machine reads it instead of training again. The trained presets' default weights ship in
the repository (assets/weights/, `python -m engine.ship`), so every page shows them on a fresh server.
Otherwise the first session that needs a model trains it (its page can draw the run live), every
other session waiting for the same model waits for that run instead of starting its own, and later
sessions find it done.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, replace

import numpy as np
import streamlit as st
from threadpoolctl import threadpool_limits

import engine
from engine import analysis, experiments, store
from ui import training_process
from ui.shell.presets import Training

# The matrices here are small and a lecture hall runs many sessions at once on few cores: one BLAS
# thread per call avoids threads fighting over the cores (set once, for the whole server process).
threadpool_limits(limits=1, user_api="blas")
SHARE_SEED, SHARE_SEQUENCES = 2, 50    # engine.share_history's defaults: the same sequences for every measure

# A cache key is hashed on every call. Streamlit hashes a dataclass field by field through its
# reduce protocol (~1 ms a call for a Config); its repr names every field's value exactly and costs
# ~10 µs, so the keys are hashed by repr.
_KEYS = {engine.Config: repr, Training: repr}


class _Slot:
    """One trained model's place in the server: a lock while it trains, then the run."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.run: engine.TrainRun | None = None


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=_KEYS)
def _slot(cfg: engine.Config, training: Training) -> _Slot:
    return _Slot()


def _tasks_own_rate(training: Training) -> bool:
    """Stored and shipped runs are keyed by the task's own learning rate only."""
    return training.lr in (None, engine.TASKS[training.task].lr)


def _stored(cfg: engine.Config, training: Training) -> engine.TrainRun | None:
    """A run on disk with these numbers."""
    if not _tasks_own_rate(training):
        return None
    return store.load_run(store.cache_folder(), training.task, cfg, training.steps, training.seed)


def trained(cfg: engine.Config, training: Training) -> engine.TrainRun | None:
    """The finished run (from memory, or from the disk cache), or None while nobody has trained it
    yet (or somebody is training it)."""
    slot = _slot(cfg, training)
    if slot.run is None and slot.lock.acquire(blocking=False):        # nobody is training it right now
        try:
            if slot.run is None:
                slot.run = _stored(cfg, training)
        finally:
            slot.lock.release()
    return slot.run


def train(cfg: engine.Config, training: Training, on_progress=None) -> engine.TrainRun:
    """Train (once per server, unless a stored run is found) and return the run; a second caller waits
    for the first one's run."""
    slot = _slot(cfg, training)
    if slot.run is None:
        with slot.lock:
            if slot.run is None:
                run = _stored(cfg, training)
                if run is None:
                    run = training_process.train(training.task, cfg, training.steps, seed=training.seed,
                                                 on_progress=on_progress, lr=training.lr)   # in a child process
                    store.keep(run, store.cache_folder())
                slot.run = run
    return slot.run


@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=_KEYS)
def shipped(cfg: engine.Config, training: Training) -> engine.Params | None:
    """The weights shipped in assets/weights/ when cfg and training are a trained preset's defaults."""
    if not _tasks_own_rate(training):
        return None
    return store.load_shipped(training.task, cfg, training.steps, training.seed)


def ready(cfg: engine.Config, training: Training) -> bool:
    """Whether the trained weights can be shown without a training run."""
    return shipped(cfg, training) is not None or trained(cfg, training) is not None


def weights(cfg: engine.Config, training: Training | None) -> engine.Params | None:
    """The trained weights (a finished run's, else the shipped ones, else trained now), or None for
    cfg's own initial draw."""
    if training is None:
        return None
    run = trained(cfg, training)
    if run is not None:
        return run.params
    params = shipped(cfg, training)
    return params if params is not None else train(cfg, training).params


@st.cache_resource(max_entries=256, show_spinner=False, hash_funcs=_KEYS)
def stack(cfg: engine.Config, words: tuple[str, ...], training: Training | None = None) -> engine.Stack:
    """Every block's trace for one sentence, per distinct configuration and sentence.

    A resource, not data: the Stack is frozen all the way down (read-only arrays), so every session
    can share the one object; cache_data would unpickle a private copy on every call (2 ms at the
    largest sizes, more than the forward pass itself at the defaults).
    """
    return engine.run(cfg, words, weights(cfg, training))


def trace(cfg: engine.Config, words: tuple[str, ...], training: Training | None = None,
          layer: int = 0) -> engine.Trace:
    """Block `layer`'s trace (a one-block model is a stack of one)."""
    return stack(cfg, words, training).layers[layer]


def _first_block(cfg: engine.Config, params: engine.Params | None) -> tuple[engine.Config, engine.Params | None]:
    """The first block alone: the pages that compare two runs (the exercise, the experiments) work on
    layer 0, which reads the tokens themselves. Block 0 is drawn first, so a one-block config draws the
    very same block 0 (and the same embedding table); trained weights are cut to their block 0."""
    one = replace(cfg, n_layers=1)
    if params is None:
        return one, None
    return one, engine.stack_params(params.blocks[:1], params.embeddings, params.w_u)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=_KEYS)
def extension(cfg: engine.Config, words: tuple[str, ...], new_token: int | str, training: Training | None = None,
              trained_as: engine.Config | None = None) -> analysis.Extension:
    """The 5 → 6 comparison: words, then words plus one token (with the weights trained for
    `trained_as` when the comparison switches something on that the training did not have)."""
    _, params = _first_block(trained_as or cfg, weights(trained_as or cfg, training))
    return analysis.extend(replace(cfg, n_layers=1), words, new_token, params)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_KEYS)
def params(cfg: engine.Config, training: Training | None = None) -> engine.Params:
    """The weights of a configuration (read-only arrays, shared safely between sessions)."""
    return weights(cfg, training) or engine.init_params(cfg)


def block(cfg: engine.Config, training: Training | None = None, layer: int = 0) -> engine.Block:
    """The weights of one block of the stack (w_q, w_k, w_v, w_o, w1, b1, w2, b2)."""
    return params(cfg, training).blocks[layer]


ACCURACY_SEQUENCES, ACCURACY_SEED = 200, 1     # fresh sequences of the task an accuracy is measured on


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=_KEYS)
def accuracy(cfg: engine.Config, training: Training, T: int) -> tuple[float, np.ndarray]:
    """The share of the task's targets the trained model in use predicts right on fresh T-token sequences,
    overall and (T,) at each position (NaN where the task scores nothing); cached per setting."""
    trained_params = weights(cfg, training)                           # a finished run's, or the shipped ones
    task = engine.TASKS[training.task]
    tokens, targets = task.sample(np.random.RandomState(ACCURACY_SEED), ACCURACY_SEQUENCES, max(T, task.min_len))
    scored = targets >= 0                                               # (n, T) positions the task scores
    right = (engine.predict(cfg, trained_params, tokens) == targets) & scored       # (n, T)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_position = right.sum(axis=0) / scored.sum(axis=0)           # (T,)
    return float(right.sum() / scored.sum()), per_position


# --------------------------------------------------------------------------- the Experiments page


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=_KEYS)
def variance_curve(d_heads: tuple[int, ...], samples: int, seed: int) -> experiments.VarianceCurve:
    return experiments.variance_curve(d_heads, samples, seed)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=_KEYS)
def random_rows(d_head: int, keys: int, rows: int, seed: int) -> experiments.RandomRows:
    return experiments.random_rows(d_head, keys, rows, seed)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=_KEYS)
def scaling_rows(cfg: engine.Config, words: tuple[str, ...], init_scale: float,
                 training: Training | None = None) -> experiments.ScalingRows:
    one, params = _first_block(cfg, weights(cfg, training))
    return experiments.scaling_rows(one, words, init_scale, params)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_KEYS)
def init_sweep(cfg: engine.Config, words: tuple[str, ...], scales: tuple[float, ...],
               training: Training | None = None) -> experiments.InitSweep:
    one, params = _first_block(cfg, weights(cfg, training))
    return experiments.init_sweep(one, words, scales, params)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_KEYS)
def positions_test(cfg: engine.Config, words: tuple[str, ...], seed: int,
                   training: Training | None = None) -> experiments.PositionTest:
    one, params = _first_block(cfg, weights(cfg, training))
    return experiments.positions_test(one, words, seed, params=params)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=_KEYS)
def causal_test(cfg: engine.Config, words: tuple[str, ...],
                training: Training | None = None) -> experiments.CausalTest:
    one, params = _first_block(cfg, weights(cfg, training))
    return experiments.causal_test(one, words, params)


# --------------------------------------------------------------------------- the Learn page
@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=_KEYS)
def share_history(cfg: engine.Config, training: Training) -> tuple:
    """Each head's weight on the expected keys at every checkpoint, and fresh-sequence accuracy."""
    run = train(cfg, training)
    steps, shares = engine.share_history(run, n=SHARE_SEQUENCES, seed=SHARE_SEED)
    return steps, shares, engine.evaluate(run.task, cfg, run.params, n=1000)


@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=_KEYS)
def circuit(cfg: engine.Config, training: Training) -> tuple:
    """What a run of a stack shows beside the task's keys: every head's weight on the previous token
    at every checkpoint (K, L, H), on share_history's sequences, and the step where the loss fell fastest."""
    run = train(cfg, training)
    tokens, _ = engine.TASKS[run.task].sample(np.random.RandomState(SHARE_SEED), SHARE_SEQUENCES)
    T = tokens.shape[1]
    before = np.repeat(np.eye(T, k=-1, dtype=bool)[None], len(tokens), axis=0)   # (n, T, T): key i-1 for query i
    every = np.ones(tokens.shape, dtype=bool)
    previous = np.stack([engine.share_per_query(cfg, params, tokens, before, every).mean(axis=-1)
                         for _, params in run.checkpoints])         # (K, L, H)
    short = len(run.losses) < 60                                      # loss_drop_step's default needs 2 × 30 steps
    return previous, engine.loss_drop_step(run.losses, max(1, len(run.losses) // 4) if short else None)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_KEYS)
def task_stack(cfg: engine.Config, training: Training, step: int | None, ids: tuple[int, ...]) -> engine.Stack:
    """Every block of a run (after `step`, or the end) on a sequence of token ids: maps and predictions."""
    run = train(cfg, training)
    params = run.params if step is None else dict(run.checkpoints)[step]
    return engine.task_stack(run.task, cfg, params, list(ids))


# --------------------------------------------------------------------------- knock-outs (the model view, the Learn page)
KNOCKOUT_N, KNOCKOUT_SEED = 1000, 1    # fresh sequences of the task; engine.evaluate's default seed


@dataclass(frozen=True)
class Knockout:
    accuracy: float                    # share of scored positions predicted right
    loss: float                        # mean cross-entropy over the scored positions


@st.cache_data(max_entries=128, show_spinner=False, hash_funcs=_KEYS)
def knockout(cfg: engine.Config, training: Training, ablate: tuple[tuple[int, int], ...]) -> Knockout:
    """The trained model on KNOCKOUT_N fresh sequences of its task (engine.evaluate's) with `ablate`'s
    heads' outputs zeroed."""
    params, task = weights(cfg, training), engine.TASKS[training.task]
    metrics = engine.position_metrics(task, cfg, params, KNOCKOUT_N, KNOCKOUT_SEED, ablate=ablate)
    return Knockout(accuracy=metrics.overall_accuracy, loss=metrics.overall_loss)   # evaluate's sequences, one forward


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_KEYS)
def knocked_stack(cfg: engine.Config, words: tuple[str, ...], training: Training | None,
                  ablate: tuple[tuple[int, int], ...]) -> engine.Stack:
    """stack() with `ablate`'s heads' outputs zeroed: the maps of later layers change, the output too."""
    return engine.run(cfg, words, weights(cfg, training), ablate)


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=_KEYS)
def circuit_knockouts(cfg: engine.Config, training: Training) -> tuple[float, dict, dict]:
    """Accuracy with nothing, each head, and each layer's heads knocked out (the circuit sentence)."""
    L, H = cfg.n_layers, cfg.num_heads
    base = knockout(cfg, training, ()).accuracy
    single = {(layer, head): knockout(cfg, training, ((layer, head),)).accuracy
              for layer in range(L) for head in range(H)}
    layers = {layer: knockout(cfg, training, tuple((layer, head) for head in range(H))).accuracy
              for layer in range(L)}
    return base, single, layers


@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=_KEYS)
def head_scores(cfg: engine.Config, training: Training) -> engine.HeadScores:
    """Every head's measured roles (engine.head_scores) on share_history's fresh sequences of the task."""
    tokens, _ = engine.TASKS[training.task].sample(np.random.RandomState(SHARE_SEED), SHARE_SEQUENCES)
    return engine.head_scores(cfg, weights(cfg, training), tokens, training.task)   # shipped weights will do


@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=_KEYS)
def position_metrics(cfg: engine.Config, training: Training) -> engine.PositionMetrics:
    """The run's loss and accuracy at each position over KNOCKOUT_N fresh sequences (evaluate's)."""
    return engine.position_metrics(training.task, cfg, weights(cfg, training), KNOCKOUT_N, KNOCKOUT_SEED)
