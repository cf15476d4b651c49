"""The data flow of one block as a table: each stage's name, what happens, its formula and shape."""
from __future__ import annotations

from engine import Config, Trace


def output_formulas(cfg: Config) -> list[str]:
    """The block output page's formulas (LaTeX) for this architecture: with or without residuals."""
    ffn_in = r"\text{LN}(\text{after\_attn})" if cfg.layer_norm else r"\text{after\_attn}"
    if cfg.residual:
        x = "(X + P)" if cfg.positional == "sinusoidal" else "X"
        first = rf"\text{{after\_attn}} = {x} + \text{{attn}}\quad(\text{{residual}})"
        last = r"\text{output} = \text{after\_attn} + \text{hidden}\, W_2 + b_2\quad(\text{residual})"
    else:
        first = r"\text{after\_attn} = \text{attn}\quad(\text{no residual})"
        last = r"\text{output} = \text{hidden}\, W_2 + b_2\quad(\text{no residual})"
    return [first, rf"\text{{hidden}} = \max(0,\ {ffn_in}\, W_1 + b_1),\qquad " + last]


def stages(trace: Trace) -> list[dict]:
    """The data flow of one block: each stage's name, formula and shape, in order, for this config."""
    cfg = trace.config
    H, T, C, F, dh = cfg.num_heads, trace.T, cfg.d_model, cfg.d_ff, cfg.d_head
    stage_rows = [("x", "token vectors", "X", (T, C))]
    if trace.positions is not None:
        stage_rows.append(("x_in", "add sinusoidal positions", "X + P", (T, C)))
    if trace.x_norm is not None:
        stage_rows.append(("x_norm", "layer norm", "LN(X)", (T, C)))
    stage_rows += [
        ("q, k, v", "project, split into heads", "X W_Q, X W_K, X W_V", (H, T, dh)),
        ("scores", "every query · every key", "Q Kᵀ", (H, T, T)),
        ("scaled", ("÷ √d_head" if cfg.scale_scores else "no scaling") + (", causal mask" if cfg.causal else ""),
         "Q Kᵀ / √d_head" if cfg.scale_scores else "Q Kᵀ", (H, T, T)),
        ("weights", "softmax over each row", "softmax(scaled)", (H, T, T)),
        ("heads", "weighted sum of values", "weights · V", (H, T, dh)),
        ("concat", "heads side by side", "[head₀ … head₍H₋₁₎]", (T, C)),
    ]
    if cfg.output_projection:
        stage_rows.append(("attn", "output projection", "concat · W_O", (T, C)))
    stage_rows.append(("after_attn", "residual: add the input back" if cfg.residual else "no residual",
                 ("X + P + attn" if trace.positions is not None else "X + attn") if cfg.residual else "attn", (T, C)))
    stage_rows += [
        ("ffn_hidden", "feed-forward layer 1, ReLU",
         "max(0, LN(after_attn) · W₁ + b₁)" if cfg.layer_norm else "max(0, after_attn · W₁ + b₁)", (T, F)),
        ("output", "feed-forward layer 2" + (", residual" if cfg.residual else ""),
         "after_attn + hidden · W₂ + b₂" if cfg.residual else "hidden · W₂ + b₂", (T, C)),
    ]
    return [{"stage": n, "what happens": what, "formula": f, "shape": " × ".join(map(str, s))}
            for n, what, f, s in stage_rows]


