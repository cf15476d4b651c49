"""The facts of a trained model: the model view's roles and knock-outs, and the Learn page's run (its loss's
plateau and drop, the step the replay shows, one layer against two). Each is read from the model the page
shows, through the same cached calls and the same words. Pure Python."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import engine
from engine import analysis
from services.weights import Training
from ui.lessons import lesson_words
from ui.lessons.registry import NoFact, fact
from ui.prose import learn as learn_words
from ui.prose.knockout import ROLE_MIN, role
from ui.prose.numbers import count, fmt, names


# --------------------------------------------------------------------------- the model view
def _model(view, numbers):
    trained = numbers.model_of(view).trained
    if trained is None:
        raise NoFact('these settings show no trained model: use a trained preset (preset = "trained-…")')
    return trained


def _who(view, layer: int, head: int) -> str:
    return f"layer {layer} head {head}" if view.config.n_layers > 1 else f"head {head}"


@fact("model.layers", "the layers, counted ('2 layers')")
def _layers(view, numbers) -> str:
    return count(view.config.n_layers, "layer")


@fact("model.maps", "the maps of the model view, counted")
def _maps(view, numbers) -> str:
    return count(view.config.n_layers * view.config.num_heads, "map")


@fact("model.sharpest", "the map with the lowest mean row spread, as the page names it")
def _sharpest(view, numbers) -> str:
    spread, _, _ = analysis.map_summary(_shown(view, numbers))
    flat = np.where(np.isnan(spread), np.inf, spread)
    layer, head = np.unravel_index(int(np.argmin(flat)), flat.shape)
    return f"{_who(view, int(layer), int(head))} (mean spread {fmt(spread[layer, head], '.2f')})"


def _shown(view, numbers):
    """The stack the model view draws: with the knock-out, if any."""
    knocked = view.controls.ablate
    if not knocked:
        return numbers.stack(numbers.model_of(view), view.words)
    return numbers.knocked_stack(numbers.model_of(view), view.words, knocked)


def _best(view, numbers, scores: np.ndarray, name: str) -> str:
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return f"{_who(view, int(layer), int(head))} ({role(name, float(scores[layer, head]))})"


@fact("model.previous_head", "the head most on the previous token, with its measured score")
def _previous_head(view, numbers) -> str:
    return _best(view, numbers, numbers.head_scores(_model(view, numbers)).previous, "previous token")


@fact("model.induction_head", "the head most on the token after an earlier copy, with its measured score")
def _induction_head(view, numbers) -> str:
    return _best(view, numbers, numbers.head_scores(_model(view, numbers)).induction, "induction")


def _knocked(view) -> tuple[tuple[int, int], ...]:
    if not view.controls.ablate:
        raise NoFact('no head is knocked out at this step (add ablate = "0.1", layer.head)')
    return view.controls.ablate


@fact("model.knocked", "the heads knocked out")
def _knocked_names(view, numbers) -> str:
    return names([_who(view, layer, head) for layer, head in _knocked(view)])


@fact("model.knocked_roles", "their measured roles, as the model view labels them")
def _knocked_roles(view, numbers) -> str:
    scores = numbers.head_scores(_model(view, numbers))
    return names([role(*scores.role(layer, head, ROLE_MIN)) for layer, head in _knocked(view)])


def _accuracies(view, numbers) -> tuple[float, float]:
    """Without and with the knock-out, on the page's sequences (its metrics, at the length shown)."""
    trained, T = _model(view, numbers), len(view.words)
    return (
        numbers.metrics(trained, T).overall_accuracy,
        numbers.metrics(trained, T, view.controls.ablate).overall_accuracy,
    )


@fact("model.accuracy", "the task's accuracy as the page's metric shows it (with the knock-out, if any)")
def _accuracy(view, numbers) -> str:
    return f"{_accuracies(view, numbers)[1]:.1%}"


@fact("model.accuracy_base", "the accuracy with nothing knocked out")
def _accuracy_base(view, numbers) -> str:
    return f"{_accuracies(view, numbers)[0]:.1%}"


def _losses(view, numbers) -> tuple[float, float]:
    """Without and with the knock-out: the loss on the same sequences as _accuracies'."""
    trained, T = _model(view, numbers), len(view.words)
    return (numbers.metrics(trained, T).overall_loss, numbers.metrics(trained, T, view.controls.ablate).overall_loss)


@fact(
    "model.knockout_effect",
    "what the knock-out does to the accuracy and the loss, the larger change first, worded from the numbers",
)
def _effect(view, numbers) -> str:
    _knocked(view)
    return lesson_words.knockout_effect(*_accuracies(view, numbers), *_losses(view, numbers))


def _preset_model(view, numbers):
    task = _model(view, numbers).task
    found = numbers.model(task.config, view.training)  # looked up: a fact never starts a training
    if found is None:
        raise NoFact("the preset's own model is not trained on this server yet")
    return found


@fact("model.preset_layers", "the layers of the preset's own model, counted")
def _preset_layers(view, numbers) -> str:
    return count(_preset_model(view, numbers).config.n_layers, "layer")


@fact("model.preset_accuracy", "the accuracy of the preset's own model, at its training settings")
def _preset_accuracy(view, numbers) -> str:
    return f"{numbers.metrics(_preset_model(view, numbers), len(view.words)).overall_accuracy:.1%}"


# --------------------------------------------------------------------------- the Learn page
def learn_run(view, numbers):
    """The run the Learn page shows (its task's model, trained as the sidebar's training controls say)."""
    c = view.controls
    trained = numbers.model(
        engine.TASKS[c.task].config, Training(task=c.task, steps=c.steps, seed=c.train_seed, lr=c.lr)
    )
    if trained is None:
        raise NoFact("this run is not trained on this server: use the task's own settings (their run ships)")
    return trained


def _step(view, trained) -> int:
    """The saved step the replay shows (ui.sections.learn.replay: the nearest to replay=, else the last)."""
    steps, wanted = list(trained.steps), view.controls.replay_step
    return steps[-1] if wanted is None else min(steps, key=lambda s: (abs(s - wanted), s))


@fact("learn.task", "what the task asks, in the Learn page's words")
def _task(view, numbers) -> str:
    return engine.TASKS[view.controls.task].target


@fact("learn.step", "the saved step the replay shows")
def _learn_step(view, numbers) -> str:
    return str(_step(view, learn_run(view, numbers)))


@fact(
    "learn.drop",
    "where the loss falls most, as the page's window sees it: 'averaged over 30 steps, the loss falls "
    "most from steps 304–333 (…) to steps 334–363 (…), across the dashed line'",
)
def _drop(view, numbers) -> str:
    return learn_words.fall(numbers.circuit(learn_run(view, numbers))[1])


@fact("learn.plateau", "the page's sentence on the loss: its plateau, where it falls most and to what")
def _plateau(view, numbers) -> str:
    trained = learn_run(view, numbers)
    said = learn_words.plateau(trained.run.losses, numbers.circuit(trained)[1]).strip()
    return said[:1].upper() + said[1:]


@fact("learn.where", "whether the step shown comes before, during or after the loss's steepest fall")
def _where(view, numbers) -> str:
    trained = learn_run(view, numbers)
    return lesson_words.before_after(_step(view, trained), numbers.circuit(trained)[1])


@fact("learn.focus", "the head most on the task's keys at the step shown, and its share")
def _focus(view, numbers) -> str:
    trained = learn_run(view, numbers)
    steps, shares = numbers.share_history(trained)
    at = shares[list(steps).index(_step(view, trained))]  # (L, H)
    layer, head = np.unravel_index(int(np.argmax(at)), at.shape)
    return (
        f"layer {layer} head {head}" if at.shape[0] > 1 else f"head {head}"
    ) + f" puts {fmt(float(at[layer, head]), '.0%')} of its weight on the task's keys"


@fact("learn.lock", "which head locks on to the task's keys first, and at which step (the page's own words)")
def _lock(view, numbers) -> str:
    trained = learn_run(view, numbers)
    steps, shares = numbers.share_history(trained)
    found = learn_words.lock(steps, shares)
    if found is None:
        return f"no head reaches {learn_words.LOCKED:.0%} of its weight on the task's keys in this run"
    layer, head, step = found
    who = f"layer {layer} head {head}" if shares.shape[1] > 1 else f"head {head}"
    return f"{who} {'locks on' if _step(view, trained) < step else 'locked on'} (reaches {learn_words.LOCKED:.0%}) at step {step}"


@fact(
    "learn.accuracy",
    "the run's accuracy after its last step, on the sequences the page measures it on (its figures name them)",
)
def _learn_accuracy(view, numbers) -> str:
    return f"{numbers.metrics(learn_run(view, numbers)).overall_accuracy:.1%}"


@fact("learn.one_layer", "the accuracy of one layer trained with the same steps and batches")
def _one_layer(view, numbers) -> str:
    trained = learn_run(view, numbers)
    run = trained.run
    one = numbers.model(
        replace(trained.config, n_layers=1), Training(task=run.task, steps=run.steps, seed=run.seed, lr=run.lr)
    )
    if one is None:
        raise NoFact("the one-layer model of this run is not trained on this server: use the task's own settings")
    return f"{numbers.metrics(one).overall_accuracy:.1%}"
