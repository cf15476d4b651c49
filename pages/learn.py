"""Learn: train the block in NumPy on a task whose answer is an attention pattern; watch a head learn it."""
import numpy as np

import engine
from ui import compute
from ui.page import layout
from ui.sections import learn
from ui.shell import frame, presets

view = frame.view()
layout.header(
    view,
    "Learn: train a head",
    "Every other page shows a block's numbers; here the block learns. Each task has a right answer "
    "that one attention pattern gives. Press Train: the block is trained in plain NumPy (gradients "
    "written out by hand, Adam), and its attention maps sharpen from the even spread of random weights "
    "to the pattern. Afterwards, scrub through the saved steps.",
    r"\text{loss} = -\frac{1}{N}\sum_{\text{scored } i} \log p(\text{target}_i \mid \text{tokens}_{\le T}),"
    r"\qquad \theta \leftarrow \text{Adam}(\theta, \nabla_\theta\,\text{loss})",
)
name = learn.choose(view)
task = engine.TASKS[name]
cfg, training = task.config, presets.training(presets.TRAINED_PREFIX + name)
sample = presets.sample_words(task, task.seq_len)
expected = task.expected_keys(np.array([[task.vocab.index(w) for w in sample]]))[0]
run = compute.trained(cfg, training) or learn.train_live(view, cfg, training, sample, expected)
if run is None:
    learn.untrained(view, cfg, sample, expected)
else:
    learn.replay(view, cfg, training, run, sample, expected)
