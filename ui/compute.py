"""Streamlit's caches around the engine and the weights service: every call keyed on small things (a
config, a token tuple, a trained model's digest), never on arrays.

Which weights a page shows is decided once per run, by the frame: a Handle (services.handle) on the View,
its trained model looked up (memory, the shipped runs, the disk store) after the trainer part trained it if
need be. A function here that derives a number from the page's model takes that Handle, and one that derives
it from a trained run (a measure, a replay) takes the Model; either is cached under its digest: a knock-out,
a role score and an accuracy on one page come from one set of weights, whichever page or session asks.
No function here trains but train(), the one training entry point (the trainer part, ui/trainer.py, and the
Learn page's explicit calls use it). The Experiments page's computations are ui/compute_experiments.py.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st
from threadpoolctl import threadpool_limits

import engine
import engine.evidence
import engine.histories
import engine.knockouts
import engine.loss_curve
import engine.measure
import engine.params
from engine import analysis, language
from engine.evidence import PositionMetrics
from engine.loss_curve import Fall
from engine.params import Block
from engine.sample import Sample
from services import evidence as measured
from services import handle as handles
from services import weights as service
from services.handle import Handle
from services.weights import Model, Training
from ui import compute_roles

# The matrices here are small and a lecture hall runs many sessions at once on few cores: one BLAS
# thread per call avoids threads fighting over the cores (set once, for the whole server process).
threadpool_limits(limits=1, user_api="blas")
# the same sequences for every measure; an accuracy's or knock-out's fresh sequences:
SHARE_SEED, SHARE_SEQUENCES = engine.histories.HISTORY_SEED, engine.histories.HISTORY_N
METRICS_N, METRICS_SEED = engine.knockouts.MEASURED_N, engine.knockouts.MEASURED_SEED
TEXT_N = language.EVIDENCE_N  # held-out windows a text model is measured on (a forward of 1,000 costs 3 s)
AWAY_N = 200  # sequences an accuracy at another length than the training one is measured on

# A cache key is hashed on every call. Streamlit hashes a dataclass field by field through its
# reduce protocol (~1 ms a call for a Config); its repr names every field's value exactly and costs
# ~10 µs, so the keys are hashed by repr; a trained model and a Handle by the digest of their weights.
KEYS = {engine.Config: repr, Training: repr, Model: lambda m: m.digest, Handle: lambda h: h.digest}


# --------------------------------------------------------------------------- which weights
def handle(cfg: engine.Config, training: Training | None) -> Handle:
    """The model of these settings as a page shows it (services.handle): looked up only, never trained."""
    return handles.handle(cfg, training)


def model_of(view) -> Handle:
    """The model a View shows: the frame's (view.model), or for a View the frame did not make (a lesson step's,
    a poll question's before the trainer part ran) its settings' handle, looked up only."""
    return view.model if view.model is not None else handle(view.config, view.training)


def trained_handle(cfg: engine.Config, training: Training, trained: Model) -> Handle:
    """The handle of a model train() gave (the trainer part's, after its progress bar)."""
    return handles.of(cfg, training, trained)


def model(cfg: engine.Config, training: Training | None) -> Model | None:
    """The trained model of these settings if it is ready (in memory, shipped or stored), else None."""
    return None if training is None else service.find(cfg, training)


def train(cfg: engine.Config, training: Training, on_progress=None) -> Model:
    """The one training entry point (the trainer part and the Learn page call it): the trained model of these
    settings, trained now if nobody has (once per server; a second caller waits for the first one's run)."""
    return service.get(cfg, training, on_progress)


def _weights(model: Handle) -> engine.Params | None:
    """The trained weights, or None for the config's own initial draw (the engine draws it)."""
    return None if model.trained is None else model.trained.params


@st.cache_resource(max_entries=256, show_spinner=False, hash_funcs=KEYS)
def stack(model: Handle, words: tuple[str, ...]) -> engine.Stack:
    """Every block's trace for one sentence, per distinct model and sentence.

    A resource, not data: the Stack is frozen all the way down (read-only arrays), so every session
    can share the one object; cache_data would unpickle a private copy on every call (2 ms at the
    largest sizes, more than the forward pass itself at the defaults).
    """
    return engine.run(model.config, words, _weights(model))


def trace(model: Handle, words: tuple[str, ...], layer: int = 0) -> engine.Trace:
    """Block `layer`'s trace (a one-block model is a stack of one)."""
    return stack(model, words).layers[layer]


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=KEYS)
def worked_cells(model: Handle, words: tuple[str, ...], layer: int, head: int) -> dict:
    """Every cell's worked calculation for one head of block `layer` (its q, k, model weights and mask, as
    ui.charts.attention_map.worked writes them): what a pick on the scores and softmax maps shows."""
    from ui.charts.attention_map import worked

    t = trace(model, words, layer)
    return worked(t.q[head], t.k[head], t.weights[head], t.mask, divide=t.config.scale_scores)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=KEYS)
def params(model: Handle) -> engine.Params:
    """The weights of the model (read-only arrays, shared safely between sessions)."""
    return model.params


def block(model: Handle, layer: int = 0) -> Block:
    """The weights of one block of the stack (w_q, w_k, w_v, w_o, w1, b1, w2, b2)."""
    return params(model).blocks[layer]


def first_block(model: Handle) -> tuple[engine.Config, engine.Params | None]:
    """The first block alone: the pages that compare two runs (the exercise, the experiments) work on
    layer 0, which reads the tokens themselves. Block 0 is drawn first, so a one-block config draws the
    very same block 0 (and the same embedding table); trained weights are cut to their block 0."""
    one = replace(model.config, n_layers=1)
    if model.trained is None:
        return one, None
    p = model.trained.params
    return one, engine.params.stack_params(p.blocks[:1], p.embeddings, p.w_u)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=KEYS)
def extension(model: Handle, words: tuple[str, ...], new_token: int | str, cfg: engine.Config) -> analysis.Extension:
    """The 5 → 6 comparison at cfg (the model's own config, or a variant that switches something on that the
    training did not have): words, then words plus one token, with the model's first block."""
    return analysis.extend(replace(cfg, n_layers=1), words, new_token, first_block(model)[1])


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=KEYS)
def knocked_stack(model: Handle, words: tuple[str, ...], ablate: tuple[tuple[int, int], ...]) -> engine.Stack:
    """stack() with `ablate`'s heads' outputs zeroed: the maps of later layers change, the output too."""
    return engine.run(model.config, words, _weights(model), ablate)


# --------------------------------------------------------------------------- a trained model's evidence
def metrics(trained: Model, T: int | None = None, ablate: tuple[tuple[int, int], ...] = ()) -> PositionMetrics:
    """The model's loss and accuracy, whole and at each position, on sequences() of T tokens (None: the training
    length), fresh or held-out (.sample says which), `ablate`'s heads zeroed: every accuracy, knock-out and
    per-position figure of every page (services.evidence: a shipped model's at the training length are read).
    One cache entry per quantity: Streamlit keys a call by the arguments as written, so they are spelled out first."""
    task = trained.task
    return _metrics(trained, task.seq_len if T is None else max(T, task.min_len), tuple(sorted(set(ablate))))


@st.cache_data(max_entries=128, show_spinner=False, hash_funcs=KEYS)
def _metrics(trained: Model, T: int, ablate: tuple[tuple[int, int], ...]) -> PositionMetrics:
    return measured.metrics(trained, T, ablate, sequences(trained.task, T), METRICS_SEED)


def sequences(task: engine.Task, T: int) -> int:
    """How many sequences of T tokens metrics() measures: METRICS_N at the training length (engine.evaluate's),
    AWAY_N at any other (each new length a student picks costs the server one measure: ~20 ms, not ~150; every
    figure says how many it read); TEXT_N windows of held-out text."""
    return TEXT_N if task.held_out is not None else METRICS_N if T == task.seq_len else AWAY_N


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=KEYS)
def circuit_knockouts(trained: Model) -> tuple[tuple[float, float], dict, dict]:
    """(accuracy, loss) with nothing, each head, and each layer's heads knocked out (the circuit sentence), on
    the same sequences at the training length."""
    L, H = trained.config.n_layers, trained.config.num_heads
    both = {
        ablate: (found.overall_accuracy, found.overall_loss)
        for ablate in [()]
        + [((layer, head),) for layer in range(L) for head in range(H)]
        + [tuple((layer, h) for h in range(H)) for layer in range(L)]
        for found in [metrics(trained, None, ablate)]
    }
    return (
        both[()],
        {(layer, head): both[((layer, head),)] for layer in range(L) for head in range(H)},
        {layer: both[tuple((layer, h) for h in range(H))] for layer in range(L)},
    )


@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=KEYS)
def head_scores(trained: Model):
    """Every head's measured roles (its .roles() and .role()), at the task's training length:
    engine.evidence.head_scores on followed()'s fresh sequences of the task, or for a text model its evidence's
    roles on held-out text."""
    if trained.task.held_out is not None:
        return text_evidence(trained).roles
    tokens, targets = followed(trained).draw()
    return engine.evidence.head_scores(trained.config, trained.params, tokens, trained.task, targets)


def head_roles(trained: Model) -> list[list]:
    """Every head's role with its controls and label, [layer][head] (ui.compute_roles: shipped, else measured
    once per model under a progress bar)."""
    return compute_roles.labels(trained)


@st.cache_resource(max_entries=8, show_spinner="Measuring every head on held-out text (about 20 s) …", hash_funcs=KEYS)
def text_evidence(trained: Model) -> language.Evidence:
    """A text model's roles and knock-outs (services.evidence: shipped, stored, else measured now)."""
    return measured.text_evidence(trained)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=KEYS)
def text_knockout(trained: Model, ablate: tuple[tuple[int, int], ...]) -> language.Knockout:
    """A text model's held-out losses with `ablate` knocked out: the evidence's where it measured this set, else
    its shipped table of every set's, else measured now on the same windows (services.evidence)."""
    found = text_evidence(trained).knockout(ablate)
    return found if found is not None else measured.text_knockout(trained, ablate, TEXT_N)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=KEYS)
def next_words(
    trained: Model, ids: tuple[int, ...], ablate: tuple[tuple[int, int], ...], k: int
) -> list[tuple[str, float]]:
    """The k most likely next tokens after the sequence of token ids (heads in ablate knocked out)."""
    return language.next_after(trained.config, trained.params, list(ids), k, ablate)


# --------------------------------------------------------------------------- the Learn page
@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=KEYS)
def histories(trained: Model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(K,) the saved steps, (K, L, H) each head's weight on the task's keys and on the previous token at each, on
    followed() (services.evidence: a shipped run's are shipped)."""
    return measured.histories(trained, SHARE_SEQUENCES, SHARE_SEED)


def followed(trained: Model) -> Sample:
    """The sequences histories() and head_scores() measure a run's heads on (engine.histories.history_sample)."""
    return engine.histories.history_sample(trained.task, SHARE_SEQUENCES, SHARE_SEED)


def share_history(trained: Model) -> tuple[np.ndarray, np.ndarray]:
    """(K,) the saved steps and (K, L, H) each head's weight on the task's keys at every one of them."""
    return histories(trained)[:2]


def circuit(trained: Model) -> tuple[np.ndarray, Fall]:
    """Beside the task's keys: every head's weight on the previous token at every checkpoint (K, L, H), on followed()
    (head_scores' score: the last step's is the model view's), and the loss's steepest fall
    (engine.loss_curve.steepest_fall)."""
    return histories(trained)[2], engine.loss_curve.steepest_fall(trained.run.losses)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=KEYS)
def task_stack(trained: Model, step: int | None, ids: tuple[int, ...]) -> engine.Stack:
    """Every block of a run (after `step`, or the end) on a sequence of token ids: maps and predictions."""
    return engine.measure.task_stack(trained.task, trained.config, trained.at(step), list(ids))


@st.cache_resource(max_entries=8, show_spinner=False, hash_funcs=KEYS)
def replay_weights(trained: Model, steps: tuple[int, ...], ids: tuple[int, ...]) -> np.ndarray:
    """(K, L, H, T, T) every layer × head's weights on a sequence after each of `steps` (the replay sends them once)."""
    return np.stack(
        [
            np.stack(
                [
                    t.weights
                    for t in engine.measure.task_stack(trained.task, trained.config, trained.at(s), list(ids)).layers
                ]
            )
            for s in steps
        ]
    )


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=KEYS)
def initial_stack(cfg: engine.Config, task: str, ids: tuple[int, ...]) -> engine.Stack:
    """Every block of cfg's initial, random weights on a sequence of the task's token ids."""
    return engine.measure.task_stack(task, cfg, engine.init_params(cfg), list(ids))


def live_stack(task: engine.Task, cfg: engine.Config, params: engine.Params, ids: tuple[int, ...]) -> engine.Stack:
    """A run's weights as they train, on a sequence of token ids (new weights each progress call: nothing to keep)."""
    return engine.measure.task_stack(task, cfg, params, list(ids))


def replay(trained: Model, on_progress) -> None:
    """A run that exists already, replayed at the speed it was trained (services.weights.replay)."""
    service.replay(trained, on_progress)
