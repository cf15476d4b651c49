"""Attention Lab's engine: pure NumPy, no Streamlit. Config -> Params -> embed -> forward -> Stack of Traces.

What a student reads beside the articles is exported here; everything else is imported from its module
(engine.attention's pieces, engine.evidence's measures, engine.knockouts, engine.loss_curve ...).
"""

from .attention import softmax
from .block import Trace
from .config import Config
from .evidence import evaluate
from .model import Stack, cross_entropy, forward, loss_and_grads, run
from .params import Params, init_params
from .presets import PRESETS, Preset, get_preset, run_preset
from .tasks import TASKS, Task, get_task
from .tokens import embed, tokenize
from .training import TrainRun, train

__all__ = [
    # a model: its settings, its weights, what one pass computes
    "Config",
    "Params",
    "init_params",
    "embed",
    "tokenize",
    "softmax",
    "forward",
    "run",
    "Trace",
    "Stack",
    # the worked examples
    "Preset",
    "PRESETS",
    "get_preset",
    "run_preset",
    # training on a task, and measuring it
    "Task",
    "TASKS",
    "get_task",
    "cross_entropy",
    "loss_and_grads",
    "train",
    "TrainRun",
    "evaluate",
]
