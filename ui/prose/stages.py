"""The data flow of one block as a table: each stage's name, what happens, its formula and shape."""

from __future__ import annotations

import math

from engine import Config, Trace
from ui.prose.numbers import fmt


def adds_positions(cfg: Config, layer: int) -> bool:
    """P is added to this block's input: positions on, and the first block (P only before layer 0)."""
    return cfg.positional == "sinusoidal" and layer == 0


def block_input(cfg: Config, layer: int) -> str:
    """This block's input x_in as plain text: 'X + P' (layer 0 with positions) or 'X'."""
    return "X + P" if adds_positions(cfg, layer) else "X"


def source(cfg: Config, layer: int, tex: bool = False) -> str:
    """What Q, K and V are computed from, as a factor of a product: X, (X + P), LN(X), LN(X + P)."""
    x = block_input(cfg, layer)
    if cfg.layer_norm:
        return rf"\text{{LN}}({x})" if tex else f"LN({x})"
    return f"({x})" if " " in x else x


def output_formulas(cfg: Config, layer: int = 0) -> list[str]:
    """The block output page's formulas (LaTeX) for this architecture and layer: with or without residuals."""
    ffn_in = r"\text{LN}(\text{after\_attn})" if cfg.layer_norm else r"\text{after\_attn}"
    if cfg.residual:
        x = "(X + P)" if adds_positions(cfg, layer) else "X"
        first = rf"\text{{after\_attn}} = {x} + \text{{attn}}\quad(\text{{residual}})"
        last = r"\text{output} = \text{after\_attn} + \text{hidden}\, W_2 + b_2\quad(\text{residual})"
    else:
        first = r"\text{after\_attn} = \text{attn}\quad(\text{no residual})"
        last = r"\text{output} = \text{hidden}\, W_2 + b_2\quad(\text{no residual})"
    return [first, rf"\text{{hidden}} = \max(0,\ {ffn_in}\, W_1 + b_1),\qquad " + last]


def stages(trace: Trace) -> list[dict]:
    """The data flow of one block: each stage's name, formula and shape, in order, for this config and layer."""
    cfg = trace.config
    layer = getattr(trace, "layer", 0)
    H, T, C, F, dh = cfg.num_heads, trace.T, cfg.d_model, cfg.d_ff, cfg.d_head
    x_in, src = block_input(cfg, layer), source(cfg, layer)
    reads = "token vectors" if layer == 0 else f"layer {layer - 1}'s output"
    stage_rows = [("x", reads, "X", (T, C))]
    if trace.positions is not None:
        stage_rows.append(("x_in", "add sinusoidal positions", "X + P", (T, C)))
    if trace.x_norm is not None:
        stage_rows.append(("x_norm", "layer norm", f"LN({x_in})", (T, C)))
    stage_rows += [
        ("q, k, v", "project, split into heads", f"{src} W_Q, {src} W_K, {src} W_V", (H, T, dh)),
        ("scores", "every query · every key", "Q Kᵀ", (H, T, T)),
        (
            "scaled",
            ("÷ √d_head" if cfg.scale_scores else "no scaling") + (", causal mask" if cfg.causal else ""),
            ("Q Kᵀ / √d_head" if cfg.scale_scores else "Q Kᵀ") + (" + M" if cfg.causal else ""),
            (H, T, T),
        ),
        ("weights", "softmax over each row", "softmax(scaled)", (H, T, T)),
        ("heads", "weighted sum of values", "weights · V", (H, T, dh)),
        ("concat", "heads side by side", "[head₀ … head₍H₋₁₎]", (T, C)),
    ]
    if cfg.output_projection:
        stage_rows.append(("attn", "output projection", "concat · W_O", (T, C)))
    stage_rows.append(
        (
            "after_attn",
            "residual: add the input back" if cfg.residual else "no residual",
            f"{x_in} + attn" if cfg.residual else "attn",
            (T, C),
        )
    )
    stage_rows += [
        (
            "ffn_hidden",
            "feed-forward, first map (W₁), ReLU",
            "max(0, LN(after_attn) · W₁ + b₁)" if cfg.layer_norm else "max(0, after_attn · W₁ + b₁)",
            (T, F),
        ),
        (
            "output",
            "feed-forward, second map (W₂)" + (", residual" if cfg.residual else ""),
            "after_attn + hidden · W₂ + b₂" if cfg.residual else "hidden · W₂ + b₂",
            (T, C),
        ),
    ]
    return [
        {"stage": n, "what happens": what, "formula": f, "shape": " × ".join(map(str, s))}
        for n, what, f, s in stage_rows
    ]


def depth_formulas(cfg: Config, layer: int) -> list[str]:
    """Extra formula lines (LaTeX) for a stack and for the layer norm: which X this layer reads, and LN."""
    lines = []
    if cfg.n_layers > 1:
        reads = (
            r"X^{(0)} = X" + (" + P" if cfg.positional == "sinusoidal" else "") + r"\ \text{(the tokens)}"
            if layer == 0
            else rf"X^{{({layer})}} = \text{{output of layer }} {layer - 1}"
        )
        lines.append(rf"\text{{layer }} {layer} \text{{ of }} L = {cfg.n_layers}:\quad " + reads)
    if cfg.layer_norm:
        lines.append(
            r"\text{pre-LayerNorm:}\quad \text{LN}(x) = \frac{x - \text{mean}(x)}"
            r"{\sqrt{\text{var}(x) + 10^{-5}}}\ \text{for each token's row, before attention and before the FFN}"
        )
    return lines


def where(cfg: Config, layer: int) -> str:
    """', layer ℓ' in a chart title when the model has more than one layer, else nothing."""
    return f", layer {layer}" if cfg.n_layers > 1 else ""


def x_symbol(cfg: Config, layer: int = 0) -> str:
    """What Q, K and V are computed from, in LaTeX: X, (X + P), LN(X) or LN(X + P), for this layer."""
    return source(cfg, layer, tex=True)


def masked(cfg: Config) -> str:
    """' + M' in a LaTeX formula where the causal mask is on (M: 0 where a key is visible, −∞ where not)."""
    return " + M" if cfg.causal else ""


def mask_line(cfg: Config) -> list[str]:
    """The formula line defining M, where the mask is on; nothing where it is off."""
    return [r"M_{ij} = 0\ (j \le i),\quad M_{ij} = -\infty\ (j > i)\quad\text{(the causal mask)}"] if cfg.causal else []


SCALING_OFF = "Scaling is switched off, so nothing is divided"  # every page, the poll and the lessons say it so


def scaling_off(where: str = "") -> str:
    """The one sentence for ÷√d_head switched off (the scores go on as they are), e.g. 'Scaling is switched
    off, so nothing is divided' + where (' here')."""
    return SCALING_OFF + where


def scaled(numerator: str, cfg: Config, frac: str = r"\frac") -> str:
    """The scores as a formula (LaTeX): numerator / √d_head with scaling on, the numerator alone with it off."""
    return rf"{frac}{{{numerator}}}{{\sqrt{{d_{{head}}}}}}" if cfg.scale_scores else numerator


def divisor(cfg: Config) -> str:
    """√d_head as the scores page's formula and the lessons print it (4 decimals)."""
    return fmt(math.sqrt(cfg.d_head), ".4f")
