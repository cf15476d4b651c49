"""The model view's lesson facts ({model.…}): its roles and knock-outs, read from the model the page shows,
through the same cached calls and the same words (registered with @fact). Pure Python."""

from __future__ import annotations

import numpy as np

from engine import analysis
from ui.lessons import lesson_words
from ui.lessons.registry import NoFact, fact
from ui.prose import controls as controls_words
from ui.prose.numbers import count, fmt, names


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


def _tag(view, numbers, layer: int, head: int) -> str:
    """A head's label as the model view gives it: the role its controls support, or the check that failed."""
    return controls_words.tag(numbers.head_roles(_model(view, numbers))[layer][head])


def _best(view, numbers, scores: np.ndarray) -> str:
    layer, head = (int(x) for x in np.unravel_index(int(np.argmax(scores)), scores.shape))
    return f"{_who(view, layer, head)} ({_tag(view, numbers, layer, head)})"


@fact("model.previous_head", "the head most on the previous token, with its label as its controls support it")
def _previous_head(view, numbers) -> str:
    return _best(view, numbers, numbers.head_scores(_model(view, numbers)).previous)


@fact("model.induction_head", "the head most on the token after an earlier copy, with its controlled label")
def _induction_head(view, numbers) -> str:
    return _best(view, numbers, numbers.head_scores(_model(view, numbers)).induction)


def _knocked(view) -> tuple[tuple[int, int], ...]:
    if not view.controls.ablate:
        raise NoFact('no head is knocked out at this step (add ablate = "0.1", layer.head)')
    return view.controls.ablate


@fact("model.knocked", "the heads knocked out")
def _knocked_names(view, numbers) -> str:
    return names([_who(view, layer, head) for layer, head in _knocked(view)])


@fact("model.knocked_roles", "their labels, as the model view gives them (the controls' label)")
def _knocked_roles(view, numbers) -> str:
    return names([_tag(view, numbers, layer, head) for layer, head in _knocked(view)])


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
