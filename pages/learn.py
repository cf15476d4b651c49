"""Learn: train the block in NumPy on a task whose answer is an attention pattern; watch a head learn it."""

from ui import app
from ui.page import layout
from ui.prose import learn as learn_words
from ui.prose.learn_intro import intro
from ui.sections.learn import live, replay
from ui.sections.learn import task as tasks

view = app.view()
cfg = tasks.config(view)
layout.header(
    view,
    "Learn: train a head",
    intro(view.controls.task),
    learn_words.formula(cfg),
)
task = tasks.choose(view)
training = tasks.training(view)
seq = tasks.sequence(view, task)
found = live.found(cfg, training)  # looked up once; only the Train button trains
trained = live.run_to_show(view, cfg, training, seq, found)
if trained is None:
    live.untrained(view, cfg, training, seq, found)
else:
    replay.replay(view, trained, seq)
