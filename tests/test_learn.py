"""Trained weights in the app: every page under each trained preset, the Learn page's run and replay,
and one training per server however many sessions ask for it at once."""

from __future__ import annotations

import importlib
import re
import threading

import numpy as np
import pyarrow as pa
import pytest

import engine
import engine.evidence
import engine.histories
import engine.loss_curve
import engine.measure
from conftest import PAGES, assert_clean, attention_maps, open_app, replay_shown, replay_steps, replay_to, tables
from ui import compute
from ui.shell import presets, site, state, url

TRAINED = [presets.TRAINED_PREFIX + t for t in presets.TRAINED_TASKS]
ONE_BLOCK = [t for t in presets.TRAINED_TASKS if engine.TASKS[t].config.n_layers == 1]
LEARN = site.by_path("learn").file


@pytest.mark.parametrize("preset", TRAINED)
@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_under_each_trained_preset(page, preset):
    at = open_app(page, {"preset": preset}, timeout=60)
    assert_clean(at)
    assert at.title, "the page drew nothing"


@pytest.mark.parametrize("preset", [presets.TRAINED_PREFIX + t for t in ONE_BLOCK])
def test_trained_preset_shows_the_trained_pattern_on_the_softmax_page(preset):
    """The softmax page's weights are the trained block's on the task's own sequence, and the head
    puts most of each scored query's weight where the task says it should."""
    at = open_app(site.by_path("softmax").file, {"preset": preset}, timeout=60)
    controls, _ = url.from_params({"preset": preset})
    task, training = presets.task_of(preset), presets.training(preset)
    cfg, words = state.to_config(controls), state.to_tokens(controls).words
    run = compute.train(cfg, training)
    trace = engine.run(cfg, words, run.params).layers[0]
    shown = attention_maps(at)[0]["values"]
    visible = trace.visible
    np.testing.assert_allclose(shown[visible], trace.weights[0][visible], rtol=5e-3, atol=1e-12)
    ids = np.array([[task.vocab.index(w) for w in words]])
    keys = task.expected_keys(ids)[0]
    rows = keys.any(axis=-1) & (np.arange(trace.T) > 0 if task.name in ("previous", "first") else True)
    on_keys = (trace.weights[0] * keys).sum(axis=-1)[rows]
    assert on_keys.mean() >= 0.9, on_keys


def test_a_trained_preset_reads_only_its_vocabulary():
    c = state.preset_controls("trained-previous")
    words = state.to_tokens(state.Controls(**{**c.__dict__, "text": "A B zebra <b> C", "seq_len": 5}))
    assert words.words[:3] == ("A", "B", "C") and len(words.words) == 5
    assert "left out: 'zebra', '<b>'" in words.note
    assert url.from_params({"preset": "trained-max"})[0].text == " ".join(presets.default_words("trained-max"))


def test_one_training_however_many_sessions_ask_at_once(monkeypatch):
    from services import learnruns as training_process

    calls = []
    real = training_process.train  # the app trains as a job on the queue

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(training_process, "train", counted)
    task = engine.TASKS["first"]
    cfg = engine.Config(**{**task.config.__dict__, "seed": 12345})  # a model nobody trained yet
    training = presets.Training(task="first", steps=30)
    runs = []
    threads = [threading.Thread(target=lambda: runs.append(compute.train(cfg, training))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(runs) == 8 and all(r is runs[0] for r in runs)


def _map_values(at) -> np.ndarray:
    """The first heatmap on the page: its values (3 significant digits) and its expected-key flags."""
    first = attention_maps(at)[0]
    return np.nan_to_num(first["values"]), first["expected"]


@pytest.mark.parametrize("task", ONE_BLOCK)
def test_learn_page_trains_then_replays_from_even_to_sharp(task):
    at = open_app(LEARN, timeout=60)
    at.segmented_control(key="task").set_value(task).run(timeout=60)
    assert_clean(at)
    if any(b.key == "learn_train" for b in at.button):
        at.button(key="learn_train").click().run(timeout=60)
    assert_clean(at)
    steps = replay_steps(at)
    replay_to(at, steps[0])
    assert replay_shown(at) == steps[0]
    start, expected = _map_values(at)
    replay_to(at, steps[-1])
    assert replay_shown(at) == steps[-1]
    end, _ = _map_values(at)
    rows = expected.any(axis=-1)
    if task in ("previous", "first"):
        rows[0] = False  # position 0 is not scored
    visible = np.tril(np.ones_like(expected)) if engine.TASKS[task].config.causal else np.ones_like(expected)
    even = (expected.sum(axis=-1) / visible.sum(axis=-1))[rows]  # the share an even spread would give
    at_start = (start * expected).sum(axis=-1)[rows]
    assert abs(at_start.mean() - even.mean()) < 0.25, (at_start, even)  # random weights: about even
    assert (end * expected).sum(axis=-1)[rows].min() >= 0.9, "the trained head misses the pattern"
    notice = next(s.value for s in at.success if "What to notice" in s.value)
    assert f"at step {steps[-1]}" in notice.replace(",", "") and "locked on" in notice


def test_learn_page_does_not_report_the_sidebars_padding():
    """The Learn page trains on its task's own sequence: a note about padding the sidebar's sentence
    would be false there; the concept pages keep it."""

    def said(path: str) -> bool:
        notes = open_app(site.by_path(path).file, {"seq_len": "16"}).info
        return any(
            "Padded with 12 filler words to reach sequence length 16." in n.value.replace("\\", "") for n in notes
        )

    assert not said("learn")
    assert said("softmax")


# --------------------------------------------------------------------------- issue 24 §2, issue 23 (4–7), issue 22 §2
from ui.prose.numbers import fmt  # noqa: E402
from ui.sections.learn import task as learn_task  # noqa: E402
from ui.sections.learn import words as learn_words  # noqa: E402
from ui.sections.learn import words_knockouts as learn_knockout_words  # noqa: E402


def _learn(params: dict, timeout: float = 120):
    at = open_app(LEARN, params, timeout=timeout)
    assert_clean(at)
    return at


def _train(at, timeout: float = 300):
    if any(b.key == "learn_train" for b in at.button):
        at.button(key="learn_train").click().run(timeout=timeout)
    assert_clean(at)
    return at


def _predictions(at):
    return next(t for t in tables(at) if "predicted" in t.columns)


def test_predictions_table_shows_every_position_with_the_models_probabilities():
    """Every position: scored or not, the target, the top token and its probability, right or wrong, as
    the model's own forward pass gives them (recomputed here from the trained weights)."""
    at = _train(_learn({"task": "previous", "steps": "60"}))
    task = engine.TASKS["previous"]
    frame = _predictions(at)
    run = compute.train(task.config, presets.Training(task="previous", steps=60, lr=task.lr))
    words_ = presets.sample_words(task, task.seq_len)
    ids = [task.vocab.index(w) for w in words_]
    probs = engine.measure.task_stack(task, task.config, run.params, ids).probs
    assert list(frame["token"]) == list(words_) and len(frame) == task.seq_len
    assert list(frame["scored"]) == ["no"] + ["yes"] * (task.seq_len - 1)  # position 0 has no previous
    assert list(frame["predicted"]) == [task.vocab[i] for i in probs.argmax(-1)]
    assert [float(p.replace("\\", "")) for p in frame["probability"]] == pytest.approx(probs.max(-1), abs=5e-4)
    assert frame["right?"][0] == "—"
    for i in range(1, task.seq_len):
        assert frame["right?"][i] == ("right" if probs[i].argmax() == ids[i - 1] else "wrong")


def test_a_typed_sequence_is_shown_and_scored_by_the_tasks_rule():
    at = _train(_learn({"task": "previous", "steps": "60", "sequence": "ABCDA"}))
    frame = _predictions(at)
    assert list(frame["token"]) == list("ABCDA")
    assert list(frame["target"]) == ["—", "A", "B", "C", "D"]
    assert "sequence=ABCDA" in "&".join(f"{k}={v}" for k, v in at.query_params.items()) or at.query_params[
        "sequence"
    ] in (["ABCDA"], "ABCDA")


def test_tokens_outside_the_vocabulary_get_a_message_naming_it():
    at = _learn({"task": "max", "sequence": "1 2 X 3"})
    said = " ".join(w.value.replace("\\", "") for w in at.warning)
    assert "'X' is not in the vocabulary" in said and "0 1 2 3 4 5 6 7 8 9" in said
    assert learn_task.read_sequence("ABCABC", engine.TASKS["induction"])[0] == tuple("ABCABC")
    assert learn_task.read_sequence("A B", engine.TASKS["induction"])[1].startswith("'induction' needs from 6")


def test_training_controls_round_trip_through_the_url_with_bounds():
    c, problems = url.from_params({"task": "induction", "train_seed": "7", "steps": "300", "lr": "0.03"})
    assert (c.task, c.train_seed, c.steps, c.lr) == ("induction", 7, 300, 0.03) and not problems
    assert url.to_params(c) == {"task": "induction", "train_seed": "7", "steps": "300", "lr": "0.03"}
    c, problems = url.from_params({"task": "induction", "steps": "5000", "lr": "3", "train_seed": "-1"})
    induction = engine.TASKS["induction"]
    assert (c.steps, c.lr, c.train_seed) == (induction.steps, induction.lr, 0)  # the task's own, each reported
    assert f"steps='5000' is not valid (must be between 10 and {state.STEPS[1]})" in problems and state.STEPS[1] == 2500
    assert "lr='3' is not valid (must be between 0.0005 and 0.2)" in problems
    assert url.from_params({"task": "nope"})[1] == [
        "task='nope' is not valid (must be one of " + ", ".join(engine.TASKS) + ")"
    ]


@pytest.mark.parametrize("name", list(engine.TASKS))
def test_every_tasks_own_settings_are_within_the_controls_it_is_trained_with(name):
    """The Learn page's controls hold each task's own run (the one it replays) and its model: a default
    outside a control's range would be clamped there, and the page would train another run."""
    task = engine.TASKS[name]
    assert state.STEPS[0] <= task.steps <= state.STEPS[1] and state.LR[0] <= task.lr <= state.LR[1]
    assert task.seq_len <= state.MAX_SEQUENCE and task.seq_len <= state.SEQ_LEN[1]
    c, problems = url.from_params({"task": name, "steps": str(task.steps), "lr": str(task.lr)})
    assert not problems and (c.steps, c.lr) == (task.steps, task.lr)


def test_learn_sidebar_shows_only_what_the_page_reads():
    at = _learn({"task": "induction"})
    labels = [w.label for w in at.sidebar.number_input]
    assert labels == ["Batch seed", "Adam steps", "Learning rate"]
    assert not at.sidebar.slider and not at.sidebar.selectbox  # no article sizes, no preset
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "d_model 32, 2 heads, 2 layers" in said and "do not apply here" in said
    softmax = open_app(site.by_path("softmax").file)
    assert any(s.label.startswith("d_model") for s in softmax.sidebar.slider)


def test_other_settings_train_their_own_run():
    at = _train(_learn({"task": "first", "steps": "40", "train_seed": "3", "lr": "0.05"}))
    cap = " ".join(c.value for c in at.caption)
    assert "40 Adam steps" in cap and "learning rate 0.05" in cap and "batch seed 3" in cap


def test_untrained_notice_counts_the_even_rows():
    """Issue 23 defect 4: at step 0 the notice says how many rows are spread almost evenly, counted
    from the initial weights (a loop here), not 'every row' whatever the numbers."""
    for name in ("max", "previous"):
        at = _learn({"task": name, "train_seed": "4321"})  # a run nobody trained: step 0 shown
        task = engine.TASKS[name]
        ids = [task.vocab.index(w) for w in presets.sample_words(task, task.seq_len)]
        stack = engine.measure.task_stack(task, task.config, engine.init_params(task.config), ids)
        even = total = 0
        for layer in stack.layers:
            for h in range(layer.num_heads):
                for i in range(layer.T):
                    seen = [layer.weights[h, i, j] for j in range(layer.T) if layer.visible[i, j]]
                    if len(seen) > 1:
                        total += 1
                        entropy = -sum(w * np.log2(w) for w in seen if w > 0)
                        even += entropy / np.log2(len(seen)) >= 0.98
        notice = next(s.value for s in at.success if "What to notice" in s.value)
        assert f"{even} of the {total} rows" in notice
        assert "every row spreads its weight almost evenly" not in notice
        keys = task.expected_keys(np.array([ids]))[0]
        rows = [i for i in range(len(ids)) if keys[i].any() and stack.layers[0].visible[i].sum() > 1]
        on_keys = np.mean([stack.layers[0].weights[0, i][keys[i]].sum() for i in rows])
        assert f"The dashed keys get {on_keys:.0%} of their rows' weight" in notice
    assert even < total


@pytest.mark.parametrize("name, sees", [("previous", r"t_0, \dots, t_i"), ("reverse", r"t_0, \dots, t_{T-1}")])
def test_loss_formula_counts_from_zero_and_defines_p_and_theta(name, sees):
    """Issue 23 defect 5: positions from 0, a causal task conditions on tokens ≤ i, p is the softmax of
    the last block's output times W_U, θ holds the embeddings and W_U."""
    at = _learn({"task": name})
    formula = " ".join(" ".join(x.value for x in at.latex).split())
    assert sees in formula and r"\le T" not in formula
    assert (
        r"\text{softmax}\big(h^{(0)}_i\, W_U\big)" in formula
        and r"\theta =\nobreak (E," in formula
        and "W_U)" in formula
    )
    # Three equations: a narrow column wraps the line between them, never right after an '='.
    assert formula.count(r"\qquad\allowbreak") == 2 and formula.count("=") == formula.count(r"=\nobreak") == 3


def test_plateau_is_described_as_measured():
    """Issue 23 defect 6: the plateau's ends and level come from the curve, not from the drop step."""
    rng = np.random.RandomState(0)
    losses = np.r_[
        np.linspace(3.0, 2.7, 40), 2.7 + 0.02 * rng.randn(360), np.linspace(2.7, 0.3, 60), 0.3 + 0.02 * rng.randn(240)
    ]
    said = learn_words.plateau(losses, engine.loss_curve.steepest_fall(losses))
    start, stop = (int(x) for x in re.search(r"from step (\d+) to step (\d+)", said).groups())
    assert start <= 45 and 380 <= stop <= 420  # flat from 40 to 400 (not drop // 3)
    window = max(10, len(losses) // 20)
    means = np.convolve(losses, np.ones(window) / window, mode="valid")[start - 1 : stop - window + 1]
    assert f"between {means.min():.2f} and {means.max():.2f}" in said
    assert f"to {losses[-window:].mean():.2f} over the last {window} steps" in said
    assert "plateau" not in learn_words.plateau(
        np.linspace(3, 0.1, 400), engine.loss_curve.steepest_fall(np.linspace(3, 0.1, 400))
    )
    sloped = np.r_[np.linspace(3.0, 2.0, 300), np.linspace(2.0, 0.3, 60), 0.3 + 0.02 * rng.randn(340)]
    said = learn_words.plateau(sloped, engine.loss_curve.steepest_fall(sloped))
    assert "plateau" not in said and f"averages {sloped[:35].mean():.2f} over the first 35 steps" in said


def test_circuit_names_every_head_from_the_measurements():
    """Issue 23 defect 7: every head past half on its keys is named with its weight; no 'two heads'."""
    steps = np.array([0, 100])
    shares = np.array([[[0.1, 0.1], [0.1, 0.1]], [[0.05, 0.03], [0.92, 0.96]]])  # (K, L, H) task's keys
    previous = np.array([[[0.1, 0.1], [0.1, 0.1]], [[0.77, 0.68], [0.02, 0.01]]])  # on the previous token
    losses = np.linspace(3, 1, 200)
    said = learn_words.depth_notice(
        losses,
        engine.loss_curve.steepest_fall(losses),
        steps,
        shares,
        previous,
        1,
        0.97,
        "induction",
        "",
        engine.sample.measured("induction", 1000, 1),
        engine.histories.history_sample("induction"),
    )
    assert "layer 0 head 0 (77%) and layer 0 head 1 (68%) put more than half" in said
    assert "layer 1 head 0 (92%) and layer 1 head 1 (96%) put more than half on the keys of 'induction'" in said
    assert "Two heads" not in said


@pytest.mark.parametrize("task", ["induction", "text"])
def test_the_replay_slider_says_how_its_steps_were_saved(task, monkeypatch):
    """The help under the replay slider is read from the shipped run's saved steps: the widest gap across
    the loss's drop (induction), or that a language model's loss has no drop to save densely (text)."""
    from services import weights

    monkeypatch.setattr(weights, "_sleep", lambda seconds: None)  # Train replays the shipped run at once
    at = _train(_learn({"task": task}))
    steps = replay_steps(at)
    said = next(c.value for c in at.caption if c.value.startswith(f"{len(steps)} saved steps"))
    assert said.startswith(f"{len(steps)} saved steps")
    found = re.search(r"at most (\d+) apart across the loss's drop \(steps (\d+) to (\d+)\)", said)
    if task == "text":
        assert found is None and "no sudden drop" in said
        return
    gap, first, last = map(int, found.groups())
    inside = [s for s in steps if first <= s <= last]
    assert len(inside) > 1 and max(np.diff(inside)) == gap <= 10


def _numbers(cfg: engine.Config) -> int:
    """How many weights a model of this config has (what training saves at each snapshot)."""
    return engine.params.flatten(engine.init_params(cfg)).size


def test_replay_saves_weights_at_most_ten_steps_apart_across_the_drop():
    run = engine.train("previous", steps=300)
    first, last = importlib.import_module("engine.training").drop_window(run.losses)
    inside = [step for step, _ in run.checkpoints if first <= step <= last]
    assert inside and np.diff([first, *inside, last]).max() <= 10
    assert len(run.checkpoints) < 40 + (last - first) // 2  # the flat parts are thinned
    # The largest run a lecturer can ask for: induction's model, 1,500 steps, saved while training.
    from engine.training import CHECKPOINTS, DENSE_SAVES, dense_every

    numbers = _numbers(engine.TASKS["induction"].config)
    assert dense_every(state.STEPS[1], numbers) <= 10
    assert (DENSE_SAVES + CHECKPOINTS + 1) * numbers * 8 < 20e6


def test_snapshots_held_while_training_stay_within_their_bytes_for_every_task_and_length():
    """A student can train any task for the longest steps the control offers, in a worker of their own: the
    snapshots it holds before thinning stay within DENSE_BYTES (the text model's 2,500 steps held 250 saves,
    230 MB, before the bound) besides the usual schedule's."""
    training = importlib.import_module("engine.training")
    for name, task in engine.TASKS.items():
        numbers = _numbers(task.config)
        size = numbers * np.dtype(training.DTYPE).itemsize
        for steps in (task.steps, *state.STEPS):
            every = training.dense_every(steps, numbers)
            assert 1 <= every and (steps // every) * size <= training.DENSE_BYTES, (name, steps, every)
            assert every <= training.DENSE_EVERY or steps / (every - 1) * size > training.DENSE_BYTES  # no wider
    assert training.dense_every(2500, 226944) > 10 and training.dense_every(480, 13440) == 4


def test_training_keeps_no_more_snapshots_than_the_bound_allows(monkeypatch):
    """The loop itself: with the bytes bound set to ten saves' worth, a 100-step run saves at most ten
    snapshots besides its schedule's."""
    training = importlib.import_module("engine.training")
    task = engine.TASKS["first"]
    numbers = _numbers(task.config)
    monkeypatch.setattr(training, "DENSE_BYTES", 10 * numbers * np.dtype(training.DTYPE).itemsize)
    saved, copy = [], training.frozen_copy

    def counted(params, *args):
        if not args:  # a save in the loop (the init is drawn in float64)
            saved.append(params)
        return copy(params, *args)

    monkeypatch.setattr(training, "frozen_copy", counted)
    run = engine.train("first", steps=100)
    schedule = set(training.checkpoint_steps(100).tolist()) - {0}
    assert training.dense_every(100, numbers) == 10
    assert len(saved) - 1 <= len(schedule | set(range(10, 101, 10))) <= len(schedule) + 10  # - the init
    assert run.checkpoints[-1][0] == 100


def test_tasks_are_read_from_the_engine():
    """Issue 22 §2: a task added to engine.TASKS is a trained preset, has words on the Learn page, and
    a stack's measures need no other task."""
    assert presets.TRAINED_TASKS == tuple(engine.TASKS)
    for name, task in engine.TASKS.items():
        assert learn_words.task(name).startswith(task.target) and task.pattern in learn_words.task(name)
        tokens, targets = task.sample(np.random.RandomState(0), 100)
        answers = task.targets(tokens)
        both = (targets >= 0) & (answers >= 0)  # a text window's last target lies past its tokens
        assert (answers[both] == targets[both]).all() and both.sum() >= 0.9 * (targets >= 0).sum()


def test_a_deep_task_needs_no_other_task(monkeypatch):
    base = engine.TASKS["previous"]
    from dataclasses import replace as swap

    deep = swap(base, name="deep", title="deep previous", config=swap(base.config, n_layers=2))
    monkeypatch.setattr(engine.tasks, "TASKS", {"deep": deep})
    monkeypatch.setattr(engine, "TASKS", {"deep": deep})
    training = presets.Training(task="deep", steps=20, lr=deep.lr)
    previous, drop = compute.circuit(compute.train(deep.config, training))
    assert previous.shape[1:] == (2, deep.config.num_heads)
    assert "A head that solves it" in learn_words.task("deep")


def test_a_stack_is_shown_beside_one_layer_trained_with_the_same_budget():
    """Issue 24: for a task with more than one layer, a one-layer model trained with the same steps,
    batches and learning rate, its accuracy metric and model view beside the stack's."""
    at = _train(_learn({"task": "induction", "steps": "20"}, timeout=300), timeout=600)
    task = engine.TASKS["induction"]
    training = presets.Training(task="induction", steps=20, lr=task.lr)
    one = engine.Config(**{**task.config.__dict__, "n_layers": 1})
    metrics = {m.label: m.value for m in at.metric}
    two_layers = engine.evaluate(task, task.config, compute.train(task.config, training).params)
    assert metrics["accuracy, 2 layers"] == f"{two_layers:.1%}"
    assert metrics["accuracy, 1 layer"] == f"{engine.evaluate(task, one, compute.train(one, training).params):.1%}"
    assert compute.model(one, training).run.steps == 20


def test_knockout_sentence_quotes_the_loss_and_the_accuracy_the_larger_change_first():
    """Issue 47's rule (a claim about a head's effect quotes every measure the page has, with words that follow
    the larger change): the Learn page's knock-out sentence gives each head's and each layer's accuracy AND loss,
    worded by the lessons' one function (ui.prose.knockout.knockout_effect), heads in order of the larger change;
    a head the loss alone moves is listed by the loss (it said 'costs less than 1 point' from accuracy alone)."""
    from ui.prose.knockout import knockout_effect

    base = (0.969, 0.0302)
    single = {(0, 0): (0.855, 0.3), (0, 1): (0.965, 0.454), (1, 0): (0.925, 0.05), (1, 1): (0.968, 0.0305)}
    layers = {0: (0.153, 3.1), 1: (0.069, 4.2)}
    said = learn_knockout_words.knockouts(base, single, layers, engine.sample.measured("induction", 1000, 1))
    assert "1,000 fresh 16-token sequences, 96.9% right and loss 0.0302 with none" in said
    heads = [(int(layer), int(h)) for layer, h in re.findall(r"layer (\d) head (\d): ", said)]
    assert heads == [(0, 1), (0, 0), (1, 0)]  # 15-fold loss first; (1, 1) barely moves either
    for pair in heads:
        effect = knockout_effect(base[0], single[pair][0], base[1], single[pair][1])
        assert f"layer {pair[0]} head {pair[1]}: {effect}" in said
    assert (
        "layer 0 head 1: the loss grows to 15 times its value (0.0302 → 0.454), while accuracy barely moves"
    ) in said
    assert "layer 1 head 1 moves accuracy by at most 2 points and the loss by at most 5%" in said
    for layer, (acc, loss) in layers.items():
        assert f"layer {layer}: {knockout_effect(base[0], acc, base[1], loss)}" in said


def test_the_learn_pages_knockouts_quote_the_shipped_runs_loss_and_accuracy():
    """On the shipped induction run: every number of the knock-out sentence is the metrics' (accuracy and loss
    on the same sequences, compute.metrics with and without each head), none typed."""
    from services import weights
    from ui.prose.knockout import knockout_effect

    t = engine.TASKS["induction"]
    trained = weights.find(t.config, weights.Training("induction", t.steps))
    base, single, layers = compute.circuit_knockouts(trained)
    plain = compute.metrics(trained)
    assert base == (plain.overall_accuracy, plain.overall_loss)
    said = learn_knockout_words.knockouts(base, single, layers, plain.sample)
    for pair, (acc, loss) in single.items():
        knocked = compute.metrics(trained, None, (pair,))
        assert (acc, loss) == (knocked.overall_accuracy, knocked.overall_loss)
        effect = knockout_effect(base[0], acc, base[1], loss)
        assert f"layer {pair[0]} head {pair[1]}: {effect}" in said or (
            abs(acc - base[0]) <= 0.02 and abs(loss / base[1] - 1) <= 0.05
        )
    for layer, (acc, loss) in layers.items():
        assert f"layer {layer}: {knockout_effect(base[0], acc, base[1], loss)}" in said
        assert f"({fmt(base[1], '.3g')} → {fmt(loss, '.3g')})" in said


# --------------------------------------------------------------------------- knock-outs on the model view (issue 24)
MODEL = site.by_path("model").file


def _metric(at, label: str) -> float:
    return float(next(m.value for m in at.metric if m.label == label).rstrip("%")) / 100


def test_knocking_out_a_trained_presets_heads_changes_its_accuracy_and_the_url():
    """trained-previous has one head: knocked out, the task fails; the metric says so, with its delta, the
    URL keeps ablate=0.0, and the numbers are engine.evaluate's on 1,000 fresh sequences."""
    at = open_app(MODEL, {"preset": "trained-previous"}, timeout=300)
    assert_clean(at)
    task, training = engine.TASKS["previous"], presets.training("trained-previous")
    params = compute.train(task.config, training).params
    assert _metric(at, "accuracy") == pytest.approx(engine.evaluate(task, task.config, params), abs=5e-4)
    at.multiselect(key="ablate").select((0, 0)).run(timeout=300)
    assert_clean(at)
    knocked = engine.evaluate(task, task.config, params, ablate=((0, 0),))
    assert _metric(at, "accuracy") == pytest.approx(knocked, abs=5e-4) and knocked < 0.5
    assert next(m for m in at.metric if m.label == "accuracy").delta.startswith("-")
    assert at.query_params["ablate"] in ("0.0", ["0.0"])
    assert any("zero-ablation" in c.value for c in at.caption)


def test_induction_needs_its_first_layer():
    """The issue's done criterion: ?preset=trained-induction&ablate=0.0,0.1 shows accuracy below 30 %,
    without ablate at least 90 %."""
    at = open_app(MODEL, {"preset": "trained-induction", "ablate": "0.0,0.1"}, timeout=900)
    assert_clean(at)
    assert _metric(at, "accuracy") < 0.30
    at = open_app(MODEL, {"preset": "trained-induction"}, timeout=900)
    assert _metric(at, "accuracy") >= 0.90
    roles = next(t for t in tables(at) if "strongest measured role" in t.columns)
    task = engine.TASKS["induction"]
    params = compute.train(task.config, presets.training("trained-induction")).params
    tokens, targets = task.sample(np.random.RandomState(compute.SHARE_SEED), compute.SHARE_SEQUENCES)
    scores = engine.evidence.head_scores(task.config, params, tokens, task, targets)
    for i, (layer, head) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
        name, score = scores.role(layer, head, 0.5)
        shown = roles["strongest measured role"][i].replace("\\", "")
        assert shown == (
            f"{name} {score:.2f}" if name != "no clear role" else f"no clear role (best {score:.2f} < 0.5)"
        )
    shown = [r.replace("\\", "") for r in roles["strongest measured role"]]
    assert shown[0].startswith("previous token") or shown[1].startswith("previous token")  # layer 0 copies
    assert all(r.startswith("induction") for r in shown[2:])  # layer 1 finds


def test_an_article_preset_has_no_task_and_shows_the_output_rows_change():
    at = open_app(MODEL, {"ablate": "0.1"})
    assert_clean(at)
    assert not at.metric
    said = " ".join(c.value for c in at.caption)
    assert "no task, so there is no accuracy to score" in said and "zero-ablation" in said
    frame = next(t for t in tables(at) if "after the knock-out" in t.columns)
    controls, _ = url.from_params({"ablate": "0.1"})
    cfg, words_ = state.to_config(controls), state.to_tokens(controls).words
    before = np.linalg.norm(engine.run(cfg, words_).output, axis=-1)
    after = np.linalg.norm(engine.run(cfg, words_, None, ((0, 1),)).output, axis=-1)
    assert [float(x.replace("\\", "")) for x in frame["‖output‖"]] == pytest.approx(before, abs=5e-4)
    assert [float(x.replace("\\", "")) for x in frame["after the knock-out"]] == pytest.approx(after, abs=5e-4)


def test_learn_page_shows_loss_and_accuracy_by_position():
    """Issue 24: per-position loss and accuracy on fresh sequences, the engine's numbers."""
    at = _train(_learn({"task": "previous", "steps": "60"}))
    chart = next(c for c in at.get("vega_lite_chart") if "by position" in str(c.proto.spec))
    data = pa.ipc.open_stream(next(d for d in chart.proto.datasets if d.name == "pos").data.data).read_all()
    task = engine.TASKS["previous"]
    run = compute.train(task.config, presets.Training(task="previous", steps=60, lr=task.lr))
    metrics = engine.evidence.position_metrics(task, task.config, run.params, 1000, 1)
    assert data.column("position").to_pylist() == list(range(1, task.seq_len))  # position 0 is never scored
    np.testing.assert_allclose(data.column("loss").to_numpy(), metrics.loss[1:])
    np.testing.assert_allclose(data.column("accuracy").to_numpy(), metrics.accuracy[1:])
