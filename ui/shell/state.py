"""The sidebar's values: defaults per preset, validation, and the round trip through the URL.

Pure Python (no Streamlit) so every rule here is tested directly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import engine
import engine.config
import engine.tokens
from ui.prose.numbers import count
from ui.shell import presets

# Slider ranges the design asks for.
D_MODEL = (4, 128)
HEADS_MAX = 16
D_FF = (4, 512)
SEED = (0, 10_000)
SEQ_LEN = (2, 64)
LAYERS = (1, 4)  # blocks stacked (the engine accepts more; four already show depth)
MAX_TEXT = 400  # characters kept from the token box or a URL
TRAIN_SEED = (0, 10_000)  # the Learn page's batch seed
STEPS = (10, max(1200, *(t.steps for t in engine.TASKS.values())))  # Adam steps a lecturer may ask for: every
# task's own steps are in range (English text's 2,500, the run the page replays)
LR = (0.0005, 0.2)  # Adam's learning rate: below, nothing moves in 1,500 steps; above, runs blow up
MAX_SEQUENCE = 64  # tokens of a sequence typed on the Learn page
BETAS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)  # the softmax page's β; 1 is the model

KEYS = (
    "preset",
    "d_model",
    "heads",
    "d_ff",
    "seed",
    "seq_len",
    "text",
    "causal",
    "positional",
    "scale",
    "head",
    "cell",
    "present",
    "beta",
    "layers",
    "layer_norm",
    "layer",
    "sidebar",
    "stretch",
    "ablate",
    "task",
    "train_seed",
    "steps",
    "lr",
    "sequence",
    "replay_step",
    "passage",
)


@dataclass(frozen=True)
class Controls:
    """Everything the sidebar decides, plus the view state that travels in the URL."""

    preset: str = "part4"
    d_model: int = 16
    heads: int = 2
    d_ff: int = 32
    seed: int = 42
    seq_len: int = 4
    text: str = "AI builds neural models"
    causal: bool = False
    positional: bool = False
    scale: bool = True
    head: int = 0  # which head single-head charts show
    cell: tuple[int, int] | None = None  # (query, key) picked by a click
    present: bool = False  # presenter view
    beta: float = 1.0  # softmax page: inverse temperature on the scaled scores (1 = the model)
    layers: int = 1  # L: blocks stacked, each with its own weights
    layer_norm: bool = False  # pre-LayerNorm before attention and before the FFN
    layer: int = 0  # which block the one-block pages show (0 .. L-1)
    sidebar: bool = False  # open the sidebar on load even on a narrow screen (a lecturer's link)
    stretch: bool = False  # weight maps stretch their colours to 0–largest weight (default: fixed 0–1)
    ablate: tuple[tuple[int, int], ...] = ()  # (layer, head) pairs knocked out on the model view
    # The Learn page: its task, how it trains, and a sequence typed for it ("": the task's own sample).
    task: str = "previous"
    train_seed: int = 0  # seeds the training batches (the sidebar's seed draws the initial weights)
    steps: int = engine.TASKS["previous"].steps  # Adam steps (the first task's own; learn_defaults)
    lr: float = engine.TASKS["previous"].lr  # Adam's learning rate
    sequence: str = ""
    replay_step: int | None = None  # the saved step the replay shows (URL key `replay`); None: the last, after Train
    passage: int = 0  # a text preset's held-out passage (0: the one that ships; presets.PASSAGES)


def learn_defaults(task: str) -> dict:
    """The Learn page's controls for a task: its own steps and learning rate, batch seed 0, its sample."""
    t = engine.TASKS[task]
    return dict(task=task, train_seed=0, steps=t.steps, lr=t.lr, sequence="", replay_step=None)


def preset_controls(name: str, **view) -> Controls:
    """The controls that reproduce a preset exactly: an article's example, or a task's trained block."""
    cfg = presets.base_config(name)
    words = presets.default_words(name, view.get("passage", 0))
    task = presets.task_of(name)
    learn = learn_defaults(task.name if task is not None else presets.TRAINED_TASKS[0])
    return Controls(
        preset=name,
        d_model=cfg.d_model,
        heads=cfg.num_heads,
        d_ff=cfg.d_ff,
        seed=cfg.seed,
        seq_len=len(words),
        text=" ".join(words),
        causal=cfg.causal,
        positional=cfg.positional == "sinusoidal",
        scale=cfg.scale_scores,
        layers=cfg.n_layers,
        layer_norm=cfg.layer_norm,
        **{**learn, **view},
    )


def to_training(c: Controls) -> presets.Training | None:
    """The trained weights a trained preset's pages show: the run the Learn page's controls name when
    they name the preset's task (its link to the model view carries them), else the task's default
    run (the one that ships); None for an article's preset."""
    default = presets.training(c.preset)
    if default is None or c.task != default.task:
        return default
    return presets.Training(task=c.task, steps=c.steps, seed=c.train_seed, lr=c.lr)


def switched(c: Controls) -> bool:
    """A switch is away from its usual position (mask or positions or layer norm on, scaling off)."""
    return c.causal or c.positional or not c.scale or c.layer_norm


def head_choices(d_model: int) -> list[int]:
    return engine.config.valid_head_counts(d_model, max_heads=HEADS_MAX)


def nearest_heads(d_model: int, wanted: int) -> int:
    """The valid head count closest to `wanted` (the smaller one on a tie)."""
    return min(head_choices(d_model), key=lambda h: (abs(h - wanted), h))


def to_config(c: Controls) -> engine.Config:
    """The engine config for these controls: the preset's architecture with the sidebar's sizes."""
    return presets.with_sizes(
        c.preset,
        d_model=c.d_model,
        num_heads=c.heads,
        d_ff=c.d_ff,
        seed=c.seed,
        causal=c.causal,
        positional="sinusoidal" if c.positional else "none",
        scale_scores=c.scale,
        n_layers=c.layers,
        layer_norm=c.layer_norm,
    )


@dataclass(frozen=True)
class Tokens:
    words: tuple[str, ...]  # exactly seq_len words, what the engine embeds
    typed: int  # how many words the box held
    note: str | None  # what was cut or padded, for a visible notice
    own: int = 0  # a text preset: the student's typed tokens in front (0: all the passage's)
    filled_from: int | None = None  # a text preset: the position from which the passage fills a typed sentence up
    pasted: range = range(0)  # a text preset: positions of the task's pasted copy of a span among these
    copied_from: int = -1  # where that span's first copy starts (-1: no copy shown)


def to_tokens(c: Controls) -> Tokens:
    """The token box's words cut or padded (from a fixed word list) to the sequence length."""
    typed = engine.tokenize(c.text[:MAX_TEXT])
    task = presets.task_of(c.preset)
    if task is not None:
        return _task_tokens(c, task, typed)
    words, change = engine.tokens.fit_length(typed, c.seq_len)
    note = None
    if not typed:
        note = f"The token box is empty, so the {c.seq_len} tokens come from a fixed filler list."
    elif change < 0:
        note = f"Cut to the first {c.seq_len} of {len(typed)} words (sequence length {c.seq_len})."
    elif change > 0:
        note = f"Padded with {count(change, 'filler word')} to reach sequence length {c.seq_len}."
    return Tokens(words=tuple(words), typed=len(typed), note=note)


def _task_tokens(c: Controls, task: engine.Task, typed: list[str]) -> Tokens:
    """A trained preset reads only its task's vocabulary; the rest of the sequence is the task's own (a text
    preset's: its passage's own tokens at those positions, marked as filling)."""
    fitted = presets.fit_words(c.preset, typed, c.seq_len, c.text[:MAX_TEXT], c.passage)
    unknown = fitted.unknown
    notes = []
    shown = ", ".join(repr(w) for w in unknown[:5]) + (", …" if len(unknown) > 5 else "")
    if unknown and task.read is not None:
        notes.append(
            f"Not among the {len(task.vocab):,} tokens this model knows, so it reads {task.vocab[0]} there: {shown}."
        )
    elif unknown:
        notes.append(f"This block was trained on the tokens {' '.join(task.vocab)} only; left out: {shown}.")
    if task.shown is None:
        if not typed:
            notes.append(f"The token box is empty: the page shows the task's own sequence of {c.seq_len} tokens.")
        elif fitted.own == 0 and c.seq_len > len(typed):
            notes.append(
                f"The preset's own sentence has {count(len(typed), 'token')}; at {c.seq_len} tokens the "
                f"page shows the task's own sequence of that length (drawn by the same rule), whole."
            )
        elif fitted.own < c.seq_len:
            notes.append(
                f"{c.seq_len - fitted.own} of the {c.seq_len} tokens come from a sequence of the task "
                "(filling your sentence up to the sequence length)."
            )
        return Tokens(words=tuple(fitted.words), typed=len(typed), note=" ".join(notes) or None)
    from ui.prose import passage as passage_words

    found = presets.passage(task.name, c.passage)
    filled_from = fitted.own if 0 < fitted.own < c.seq_len else None
    pasted = (
        range(max(found.second, fitted.own), min(found.second + found.span, c.seq_len)) if found.span > 0 else range(0)
    )
    if filled_from is not None:
        notes.append(passage_words.filling(filled_from, c.seq_len, c.passage, found.title))
    return Tokens(
        words=tuple(fitted.words),
        typed=len(typed),
        note=" ".join(notes) or None,
        own=fitted.own,
        filled_from=filled_from,
        pasted=pasted if len(pasted) else range(0),
        copied_from=found.first + (pasted.start - found.second) if len(pasted) else -1,
    )


def next_word(c: Controls) -> str:
    """The word the sequence-length slider appends when moved from seq_len to seq_len + 1 (the next typed
    word, or the filler list's next word): the exercise's default new token."""
    return to_tokens(replace(c, seq_len=c.seq_len + 1)).words[c.seq_len]


def ablate_text(pairs: tuple[tuple[int, int], ...]) -> str:
    return ",".join(f"{layer}.{head}" for layer, head in pairs)


def settle(c: Controls) -> tuple[Controls, list[str]]:
    """Make a combination consistent: heads divide d_model, the head and cell exist. Says what moved."""
    notes = []
    if c.d_model % c.heads:
        heads = nearest_heads(c.d_model, c.heads)
        notes.append(f"{c.heads} heads do not divide d_model={c.d_model}; using {heads} heads instead.")
        c = replace(c, heads=heads)
    if c.head >= c.heads:
        notes.append(f"There is no head {c.head} with {count(c.heads, 'head')}; showing head 0.")
        c = replace(c, head=0)
    if c.layer >= c.layers:
        notes.append(f"There is no layer {c.layer} with {count(c.layers, 'layer')}; showing layer 0.")
        c = replace(c, layer=0)
    wrong = [pair for pair in c.ablate if pair[0] >= c.layers or pair[1] >= c.heads]
    if wrong:
        notes.append(
            f"There is no head {ablate_text(tuple(wrong))} to knock out with {c.layers} "
            f"layer{'s' * (c.layers > 1)} of {c.heads} head{'s' * (c.heads > 1)} (layer.head, from 0)."
        )
        c = replace(c, ablate=tuple(pair for pair in c.ablate if pair not in wrong))
    if c.cell is not None and max(c.cell) >= c.seq_len:
        notes.append(f"The picked cell {c.cell} is gone: the sequence now has {c.seq_len} tokens.")
        c = replace(c, cell=None)
    return c, notes
