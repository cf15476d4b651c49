"""The sidebar's presets: the two articles' blocks, and one block trained on each task.

A trained preset is a task's model (engine.TASKS) with the sidebar's sizes, trained with the task's
defaults; every page then shows it on a sequence from that task. Pure Python (no Streamlit).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

import engine
import engine.tokens
from factory import shown
from services.weights import Training
from ui.prose.numbers import count

TRAINED_PREFIX = "trained-"
TRAINED_TASKS = tuple(engine.TASKS)  # one trained preset per task of engine/tasks.py, in its order
SAMPLE_SEED = 0  # the sequence a trained preset starts on: RandomState(0), the same for everyone
CANDIDATES = 50  # sequences drawn from it to choose one with the most scored positions
BATCH_SEED = 0  # the training batches' stream (the sidebar's seed draws the initial weights)
TEXT_SHOWN = 32  # tokens of text a text preset shows (it trained on longer windows: their prefixes
# are windows of text too, and a page of 32 × 32 maps still reads)


def names() -> list[str]:
    """Every preset, in the sidebar's order."""
    return [*engine.PRESETS, *(TRAINED_PREFIX + t for t in TRAINED_TASKS)]


def task_of(name: str) -> engine.Task | None:
    """The task a trained preset learns, or None for an article's preset."""
    return engine.TASKS[name[len(TRAINED_PREFIX) :]] if name.startswith(TRAINED_PREFIX) else None


def check(name: str) -> str:
    if name not in names():
        raise ValueError(f"unknown preset {name!r}; choose one of: {', '.join(names())}")
    return name


def title(name: str) -> str:
    task = task_of(check(name))
    return engine.get_preset(name).title if task is None else f"Trained: {task.title}"


def summary(name: str, cfg: engine.Config | None = None, T: int | None = None, run: Training | None = None) -> str:
    """What the preset's model is; for a trained preset, the model actually in use (cfg, shown on T tokens,
    trained as `run` says: None or the default run, or the Learn page's run of other settings)."""
    task = task_of(check(name))
    if task is None:
        return engine.get_preset(name).summary
    c = cfg or task.config
    shown = f", shown on {T}" if T is not None and T != task.seq_len else ""
    how = f"{task.steps:,} Adam steps"
    if run is not None and not run.defaults():
        lr = task.lr if run.lr is None else run.lr
        how = f"the Learn page's run: {run.steps:,} Adam steps, batch seed {run.seed}, learning rate {lr:g}"
    return (
        f"trained in NumPy on '{task.title}' ({how}, vocabulary "
        + (f"{c.vocab[0]}–{c.vocab[-1]}" if len(c.vocab) <= 20 else f"of {len(c.vocab):,} tokens")
        + f", {task.seq_len}-token sequences{shown}); "
        + f"{count(c.n_layers, 'block')}, "
        + f"d_model {c.d_model}, {count(c.num_heads, 'head')}, d_ff {c.d_ff}, "
        + ("causal mask, " if c.causal else "no mask, ")
        + ("sinusoidal positions, " if c.positional != "none" else "no positions, ")
        + ("pre-layer-norm, " if c.layer_norm else "no layer norm, ")
        + ("" if c.scale_scores else "scores not divided by √d_head, ")
        + "residuals, W_O"
    )


SWITCHES = (
    ("causal", "the causal mask"),
    ("positional", "sinusoidal positions"),
    ("layer_norm", "pre-layer-norm"),
    ("scale_scores", "÷ √d_head"),
)
SIZES = (("d_model", "d_model"), ("num_heads", "heads"), ("d_ff", "d_ff"), ("n_layers", "layers"), ("seed", "seed"))


def departures(name: str, cfg: engine.Config, T: int) -> tuple[list[str], bool]:
    """How the model in use differs from the preset's training: the changed settings (as phrases), and
    whether the sequence is longer or shorter than the training sequences. Empty for an article's preset."""
    task = task_of(check(name))
    if task is None:
        return [], False
    base = task.config
    changed = []
    for field, what in SWITCHES:
        now, was = getattr(cfg, field), getattr(base, field)
        now, was = (now != "none", was != "none") if field == "positional" else (now, was)
        if now != was:
            changed.append(f"{what} {'on' if now else 'off'} (the preset: {'on' if was else 'off'})")
    for field, what in SIZES:
        if getattr(cfg, field) != getattr(base, field):
            changed.append(f"{what} {getattr(cfg, field)} (the preset: {getattr(base, field)})")
    return changed, T > task.seq_len or (T < task.seq_len and not task.prefixes)


def base_config(name: str) -> engine.Config:
    """The architecture the sidebar's sizes are applied to."""
    task = task_of(check(name))
    return engine.get_preset(name).config if task is None else task.config


PASSAGES = 100  # held-out passages a text preset offers (passage= 0 .. 99 in a link): 0 ships


@lru_cache(maxsize=16)
def passage(name: str, number: int) -> shown.Passage:
    """A text task's passage `number`: ONE window of its training length that every length shows a prefix of,
    on every page and the Learn page. Passage 0 ships (assets/text/shown.json: no corpus read); another is
    drawn now (draw_passage)."""
    task = engine.TASKS[name]
    if number == 0 and (found := shown.lookup(name)) is not None and len(found.ids) == task.seq_len:
        return found
    return draw_passage(name, number)


def draw_passage(name: str, number: int) -> shown.Passage:
    """Passage `number` as drawn now (reads the corpus): of the first CANDIDATES windows of held-out text of the
    task's training length, each with a span of its text repeated (engine.windows), drawn one at a time from
    RandomState(SAMPLE_SEED + number), the first whose span's both copies lie within the first TEXT_SHOWN
    tokens (so the default length shows the repeat), else the first."""
    from engine.text import corpus
    from engine.windows import windows

    task = engine.TASKS[name]
    if not 0 <= number < PASSAGES:
        raise ValueError(f"passage must be a whole number in 0..{PASSAGES - 1}, got {number!r}")
    rng = np.random.RandomState(SAMPLE_SEED + number)
    chosen = None
    for _ in range(CANDIDATES):
        drawn = windows("held_out", rng, 1, task.seq_len, repeat_share=1.0)
        chosen = chosen or drawn
        if drawn.second[0] + drawn.span[0] <= shown_length(task):
            chosen = drawn
            break
    text = corpus()
    chapter = int(np.searchsorted(text.bounds, chosen.begin[0], side="right")) - 1
    ids, targets = chosen.tokens[0].copy(), chosen.targets[0].copy()
    ids.setflags(write=False)
    targets.setflags(write=False)
    return shown.Passage(
        ids=ids,
        targets=targets,
        begin=int(chosen.begin[0]),
        first=int(chosen.first[0]),
        second=int(chosen.second[0]),
        span=int(chosen.span[0]),
        title=text.titles[chapter],
    )


@lru_cache(maxsize=64)
def _sample(name: str, T: int, number: int) -> tuple[np.ndarray, np.ndarray]:
    task = engine.TASKS[name]
    if task.shown is not None:  # text: the first T tokens of one passage
        found = passage(name, number)
        L = len(found.ids)
        if T <= L:
            return found.ids[:T], found.targets[:T]
        if T == L + 1:  # one more: the text that follows (its target: unknown)
            ids, targets = np.append(found.ids, found.targets[-1]), np.append(found.targets, -1)
            ids.setflags(write=False)
            targets.setflags(write=False)
            return ids, targets
    return draw(name, T)


def draw(name: str, T: int) -> tuple[np.ndarray, np.ndarray]:
    """The task's own sequence of T tokens as sample() chooses it for a task without a passage, drawn now."""
    task = engine.TASKS[name]
    rng = np.random.RandomState(SAMPLE_SEED)
    best = None
    for _ in range(CANDIDATES):  # one at a time: the first is the old default
        T_ = max(T, task.min_len)
        tokens, targets = task.sample(rng, 1, T_) if task.shown is None else task.shown(rng, 1, T_)  # (1, T') each
        if best is None or np.count_nonzero(targets >= 0) > np.count_nonzero(best[1] >= 0):
            best = tokens, targets
    return best[0][0, :T], best[1][0, :T]  # read-only views


def sample(task: engine.Task, T: int, number: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The task's own sequence of T tokens (ids, targets), the same for everyone and on every page (the
    Learn page too): of the first CANDIDATES sequences drawn one at a time from RandomState(SAMPLE_SEED),
    the first with the most scored positions. For induction that is a longest repeated segment (the pattern
    at its clearest); every other task scores the same positions in every sequence, so it is the first. A
    text task shows the first T tokens of its passage `number` (passage): one window at every length."""
    return _sample(task.name, int(T), int(number) if task.shown is not None else 0)


def sample_words(task: engine.Task, T: int, number: int = 0) -> tuple[str, ...]:
    """The task's own sequence (sample) as words."""
    return tuple(task.vocab[i] for i in sample(task, T, number)[0])


def default_words(name: str, number: int = 0) -> tuple[str, ...]:
    """The preset's own sentence: the article's example, or a sequence from the task (a text task: the first
    tokens of passage `number`)."""
    task = task_of(check(name))
    if task is None:
        preset = engine.get_preset(name)
        return tuple(engine.tokens.label(preset.config, t) for t in preset.tokens)
    return sample_words(task, shown_length(task), number)


def shown_length(task: engine.Task) -> int:
    """The tokens a trained preset shows by default: its training length (text: TEXT_SHOWN of them)."""
    return min(task.seq_len, TEXT_SHOWN) if task.prefixes else task.seq_len


def training(name: str) -> Training | None:
    """A trained preset's default run (the one that ships), or None for an article's preset."""
    task = task_of(check(name))
    return None if task is None else Training(task=task.name, steps=task.steps, seed=BATCH_SEED, lr=task.lr)


@dataclass(frozen=True)
class Fitted:
    """A trained preset's T tokens from a typed sentence."""

    words: list[str]  # exactly T tokens
    unknown: list[str]  # typed words the task reads as its stand-in (or leaves out), among those shown
    own: int  # the first `own` tokens are the student's; the rest fill up to T from the task's
    # own sequence (a text task: 0 when the typed tokens are its passage's own start)


def fit_words(name: str, typed: list[str], T: int, text: str = "", number: int = 0) -> Fitted:
    """A trained preset's T tokens from the typed words (a task that reads text its own way, Task.read,
    reads `text` instead): words outside the task's vocabulary are left out, or read as its stand-in
    (<unk>; only those within the first T tokens are returned); a short sentence is filled up with the
    task's own sequence from that position on (a text task: its passage's own tokens at those positions, so a
    sentence that is the passage's start goes on as the passage, one window). A letter task's own sentence at a
    longer length is the task's own sequence at that length (sample: one draw, never its sentence joined to the
    tail of another draw); own is then 0."""
    task = task_of(check(name))
    if task.read is not None:
        known, _ = task.read(text)
        unknown = task.read(text, T)[1]  # the words the first T tokens hold
    else:
        known = [w for w in typed if w in task.vocab]
        unknown = [w for w in typed if w not in task.vocab]
    pad = sample_words(task, max(T, task.min_len), number)
    if task.shown is None and len(known) < T and tuple(known) == default_words(name):
        return Fitted(words=list(pad[:T]), unknown=unknown, own=0)  # the preset's own: ONE draw at this length
    words = (known + list(pad[len(known) :]))[:T] if len(known) < T else known[:T]
    own = min(len(known), T)
    if task.shown is not None and tuple(words[:own]) == pad[:own]:
        own = 0  # the passage itself, cut or continued
    return Fitted(words=words, unknown=unknown, own=own)


def with_sizes(name: str, **sizes) -> engine.Config:
    """base_config with the sidebar's sizes and switches (Config's field names)."""
    return replace(base_config(name), **sizes)


def ship_shown() -> None:
    """Write factory.shown's file: each text task's passage 0 (one window of its training length, and where it
    comes from), drawn now."""
    print(
        shown.write({task.name: draw_passage(task.name, 0) for task in engine.TASKS.values() if task.shown is not None})
    )


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--ship-shown"]:
        sys.exit("usage: python -m ui.shell.presets --ship-shown")
    ship_shown()
