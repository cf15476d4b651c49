"""The numbers behind the Experiments page, one module per section, numbered as the page numbers them:

1 · why ÷ √d_head (random vectors)   → scaling: variance_curve, random_rows
2 · ÷ √d_head in this block           → scaling: scaling_rows, init_sweep
3 · why positions                     → positions: shuffle, positions_test
4 · why a causal mask                 → mask: growing, causal_test

Pure NumPy (no Streamlit, no pandas). Every function takes a Config and tokens (or plain numbers) and
returns a frozen result; the page only draws what these return.
"""

from .mask import CausalTest, causal_test, growing
from .positions import PositionTest, Shuffle, positions_test, shuffle
from .scaling import (
    D_HEADS,
    INIT_SCALES,
    ONE_HOT,
    RAW,
    ROWS,
    SAMPLES,
    SCALED,
    SEED,
    InitSweep,
    RandomRows,
    ScalingRows,
    VarianceCurve,
    init_sweep,
    nearly_one_hot,
    peaks,
    random_rows,
    scaling_rows,
    score_variance,
    variance_curve,
    visible_counts,
)

__all__ = [
    "CausalTest",
    "causal_test",
    "growing",
    "PositionTest",
    "Shuffle",
    "positions_test",
    "shuffle",
    "D_HEADS",
    "INIT_SCALES",
    "ONE_HOT",
    "RAW",
    "ROWS",
    "SAMPLES",
    "SCALED",
    "SEED",
    "InitSweep",
    "RandomRows",
    "ScalingRows",
    "VarianceCurve",
    "init_sweep",
    "nearly_one_hot",
    "peaks",
    "random_rows",
    "score_variance",
    "scaling_rows",
    "variance_curve",
    "visible_counts",
]
