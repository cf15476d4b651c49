"""Attention Lab's engine: pure NumPy, no Streamlit. Config -> Params -> embed -> forward -> Stack of Traces."""
from .attention import causal_visible, layer_norm, merge_heads, relu, row_entropy, sinusoidal_positions, softmax, split_heads
from .block import Trace, block_backward, block_forward
from .config import MAX_LAYERS, MAX_TOKENS, Config, valid_head_counts
from .evidence import (ABLATE_MODES, HISTORY_N, HISTORY_SEED, MEASURED_N, MEASURED_SEED, HeadScores, PositionMetrics, evaluate, head_means, head_scores, head_sets, history_arrays, history_of, history_sample,
                       knockout_arrays, knockout_from, position_metrics, predict, previous_share)
from .measure import expected_share, lock_step, share_history, share_per_query, task_stack, task_trace
from .model import Stack, backward, cross_entropy, forward, loss_and_grads, run
from .params import Block, Params, flatten, frozen_copy, init_params, stack_params, unflatten
from .sample import Sample
from .presets import DAY33_VOCAB, PRESETS, Preset, get_preset, run_preset
from .tasks import TASKS, Task, get_task
from .tokens import FILLER, display_labels, embed, fit_length, label, token_id, tokenize
from .training import Fall, TrainRun, adam_step, loss_drop_step, steepest_fall, train

__all__ = [
    "Config", "Params", "Trace", "Stack", "Preset", "PRESETS", "DAY33_VOCAB", "FILLER", "MAX_TOKENS",
    "init_params", "embed", "forward", "run", "run_preset", "get_preset", "valid_head_counts",
    "block_forward", "block_backward",
    "tokenize", "fit_length", "label", "display_labels", "token_id",
    "softmax", "split_heads", "merge_heads", "causal_visible", "sinusoidal_positions", "layer_norm",
    "relu", "row_entropy",
    # stacks of blocks
    "MAX_LAYERS", "Block", "stack_params",
    # training
    "TASKS", "Task", "get_task", "cross_entropy", "backward", "loss_and_grads", "adam_step",
    "flatten", "unflatten", "frozen_copy", "train", "TrainRun", "evaluate", "predict",
    # evidence: knock-outs and head scores
    "ABLATE_MODES", "head_means", "position_metrics", "PositionMetrics", "head_scores", "HeadScores", "previous_share",
    "head_sets", "knockout_arrays", "knockout_from", "history_arrays", "history_of", "history_sample", "Sample", "HISTORY_N", "HISTORY_SEED", "MEASURED_N", "MEASURED_SEED",
    "task_trace", "task_stack", "expected_share", "share_per_query", "share_history", "lock_step", "loss_drop_step", "Fall", "steepest_fall",
]
