"""Learn: train the block in NumPy on a task whose answer is an attention pattern; watch a head learn it.

The page's header (its title, intro and formulas), then its sections: pages/learn.py calls draw."""

from __future__ import annotations

from ui.page import layout
from ui.poll import classrun
from ui.sections.learn import live, replay
from ui.sections.learn import task as tasks
from ui.sections.learn import words as learn_words
from ui.sections.learn.words_intro import intro
from ui.shell.view import View


def draw(view: View) -> None:
    """The whole page, under the frame."""
    cfg = tasks.config(view)
    layout.header(
        view,
        "Learn: train a head",
        intro(view.controls.task),
        learn_words.formula(cfg),
    )
    classrun.draw(view.present)  # a student in a room with a class experiment: their run (issue 52)
    task = tasks.choose(view)
    training = tasks.training(view)
    seq = tasks.sequence(view, task)
    found = live.found(cfg, training)  # looked up once; only the Train button trains
    trained = live.run_to_show(view, cfg, training, seq, found)
    if trained is None:
        live.untrained(view, cfg, training, seq, found)
    else:
        replay.replay(view, trained, seq)
