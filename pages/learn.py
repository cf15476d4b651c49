"""Learn: train the block in NumPy on a task whose answer is an attention pattern; watch a head learn it."""
import engine
from ui import app
from ui.page import layout
from ui.prose import learn as words
from ui.sections import learn

view = app.view()
cfg = engine.TASKS[view.controls.task].config
layout.header(
    view,
    "Learn: train a head",
    "Every other page shows a block's numbers; here the block learns. Each task has a right answer "
    "that an attention pattern gives. Press Train: the model is trained in plain NumPy (gradients "
    "written out by hand, Adam), and its attention maps move from what the random initial weights give "
    "to the pattern. Afterwards, scrub through the saved steps and see what the model predicts.",
    words.formula(cfg),
)
task = learn.choose(view)
training = learn.training(view)
seq = learn.sequence(view, task)
trained = learn.run_to_show(view, cfg, training, seq)
if trained is None:
    learn.untrained(view, cfg, training, seq)
else:
    learn.replay(view, trained, seq)
