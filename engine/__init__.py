"""Attention Lab's engine: pure NumPy, no Streamlit. Config -> Params -> embed -> forward -> Trace."""
from .attention import causal_visible, layer_norm, merge_heads, relu, row_entropy, sinusoidal_positions, softmax, split_heads
from .backward import loss_and_grads
from .block import Trace, forward
from .config import MAX_LAYERS, MAX_TOKENS, Config, valid_head_counts
from .measure import expected_share, lock_step, loss_drop_step, share_history, share_per_query, task_stack, task_trace
from .model import LayerTrace, Stack, forward_stack, run_stack
from .params import Block, Params, init_params, stack_params
from .presets import DAY33_VOCAB, PRESETS, Preset, get_preset, run, run_preset
from .tasks import TASKS, Task, get_task
from .tokens import FILLER, display_labels, embed, fit_length, label, token_id, tokenize
from .train import TrainRun, adam_step, evaluate, train

__all__ = [
    "Config", "Params", "Trace", "Preset", "PRESETS", "DAY33_VOCAB", "FILLER", "MAX_TOKENS",
    "init_params", "embed", "forward", "run", "run_preset", "get_preset", "valid_head_counts",
    "tokenize", "fit_length", "label", "display_labels", "token_id",
    "softmax", "split_heads", "merge_heads", "causal_visible", "sinusoidal_positions", "layer_norm",
    "relu", "row_entropy",
    # stacks of blocks
    "MAX_LAYERS", "Block", "stack_params", "Stack", "LayerTrace", "forward_stack", "run_stack",
    # training
    "TASKS", "Task", "get_task", "loss_and_grads", "adam_step", "train", "TrainRun", "evaluate",
    "task_trace", "task_stack", "expected_share", "share_per_query", "share_history", "lock_step", "loss_drop_step",
]
