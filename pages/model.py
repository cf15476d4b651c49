"""The model view: every layer × every head at a glance, on one colour scale; click a map to open it."""
import engine
import streamlit as st

from ui import app, charts, compute
from ui.page import footer, layout
from ui.shell import session
from ui.sections import knockout, model_view as numbers
from ui.prose import model as words
from ui.prose import stages
from ui.prose.numbers import count

view = app.view()
cfg = view.config
layout.header(
    view,
    "Model view: every head",
    "Every attention map of the model at once: one row per layer, one column per head, all on one "
    "colour scale, like BertViz's model view. Layer 0 reads the tokens; each later layer reads the output "
    "of the one before, so its maps can mix what earlier heads found. Click a map to open that layer's "
    "heads on the per-head page.",
    [r"X^{(0)} = X" + (" + P" if cfg.positional == "sinusoidal" else "")
     + r",\qquad X^{(\ell+1)} = \text{block}_\ell\big(X^{(\ell)}\big),\qquad "
     r"A^{(\ell)}_h = \text{softmax}\Big(\frac{Q^{(\ell)}_h K^{(\ell)\top}_h}{"
     + (r"\sqrt{d_{head}}" if cfg.scale_scores else "1") + "}" + stages.masked(cfg) + r"\Big)",
     r"Q^{(\ell)} = " + (r"\text{LN}(X^{(\ell)})" if cfg.layer_norm else r"X^{(\ell)}") + r"\,W_Q^{(\ell)},\quad"
     r" K^{(\ell)} = " + (r"\text{LN}(X^{(\ell)})" if cfg.layer_norm else r"X^{(\ell)}") + r"\,W_K^{(\ell)}",
     *stages.mask_line(cfg)],
)
knocked = knockout.control(view)
stack = compute.stack(cfg, view.words, view.training)
shown = compute.knocked_stack(cfg, view.words, compute.in_use(cfg, view.training), knocked) if knocked else stack
spread, top, uniform = numbers.summary(shown)
L, H, T = stack.n_layers, cfg.num_heads, len(view.words)
roles = knockout.roles(view)
charts.model_view(numbers.weights(shown), width=view.width, mask=stack.layers[0].mask,
                  title=f"{count(L, 'layer')} × {count(H, 'head')}, {T} × {T} each",
                  info=[[(f"{roles[layer][head]}; " if roles else "") + words.head_line(spread[layer, head],
                                                                                       top[layer, head])
                         for head in range(H)] for layer in range(L)],
                  pick=(view.layer, view.head), key=session.MODEL_MAP, present=view.present, selectable=True)
choose, go = st.columns([3, 1], vertical_alignment="bottom")       # the keyboard's way to a click on a map
choose.selectbox("Layer and head to open", range(L * H), format_func=lambda i: f"layer {i // H}, head {i % H}",
                 key=session.OPEN_HEAD)
go.button("Open this head", key=session.OPEN_HEAD_GO, on_click=session.ask_open_head)
st.caption(f"Outlined: layer {view.layer}, head {view.head}, the block and head the other pages show. Hover a "
           "map for its numbers" + ("; grey cells are hidden by the causal mask" if cfg.causal else "") + ". All the maps are one picture, so even "
           "4 layers × 16 heads of 64 tokens draw at once.")
knockout.labels(view, roles)
knockout.redrawn(view, knocked)
layout.notice(words.notice(spread, top, uniform, trained=view.training is not None, per_row=numbers.row_spread(shown),
                           labels=shown.labels))
knockout.effect(view, stack, shown)
everything = numbers.StackArrays(stack)
footer.exports("model", everything, everything.weights(), code=[engine.forward])
