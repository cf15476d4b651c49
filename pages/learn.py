"""Learn: train the block in NumPy on a task whose answer is an attention pattern; watch a head learn it."""
from ui import app
from ui.page import layout
from ui.prose import learn as words
from ui.sections.learn import live, replay, task as tasks

view = app.view()
cfg = tasks.config(view)
layout.header(
    view,
    "Learn: train a head",
    "Every other page shows a block's numbers; here the block learns. Each task has a right answer "
    "that an attention pattern gives. Press Train: the model is trained in plain NumPy (gradients "
    "written out by hand, Adam), and its attention maps move from what the random initial weights give "
    "to the pattern. Afterwards, scrub through the saved steps and see what the model predicts.",
    words.formula(cfg),
)
task = tasks.choose(view)
training = tasks.training(view)
seq = tasks.sequence(view, task)
trained = live.run_to_show(view, cfg, training, seq)
if trained is None:
    live.untrained(view, cfg, training, seq)
else:
    replay.replay(view, trained, seq)
