"""Exercise: append one token to the sentence; predict, then see how the old rows of attention change."""
import pandas as pd
import streamlit as st

import engine
from engine import analysis, exercise
from ui import charts, compute, frame, layout, session

v = frame.view()
T = len(v.words)
nth = exercise.ordinal(T + 1)
layout.header(
    v,
    f"Exercise: {T} → {T + 1} tokens",
    f"The Day 33 article ends with a challenge: run 6 token ids instead of 5 and look at the attention "
    f"matrix again. Here the sentence is the sidebar's {T} tokens. Look at their attention rows, predict "
    f"what appending a {nth} token does to them, then reveal the {T + 1}-token run. The formula below is "
    f"all you need to reason it out.",
    rf"w_{{ij}} = \frac{{e^{{s_{{ij}}}}}}{{Z_i}},\qquad Z_i = \sum_{{j=1}}^{{{T}}} e^{{s_{{ij}}}}",
)
cfg, h, present, words = v.config, v.head, v.present, v.words
preset = engine.get_preset(v.controls.preset)
before = compute.trace(cfg, words)
mask = before.visible if cfg.causal else None

# --------------------------------------------------------------------------- 1 · predict
st.subheader("1 · Predict")
left, right = st.columns([3, 2])
with left:
    charts.heatmap(before.weights[h], before.labels, before.labels, title=f"weights, head {h}: {T} × {T}",
                   x_title="key", y_title="query", signed=False, mask=mask, key="ex_map_now", present=present,
                   max_width=520)
with right:
    prediction = st.radio(f"What happens to these {T} rows when a {nth} token is appended?",
                          list(exercise.PREDICTIONS), format_func=exercise.PREDICTIONS.get, index=None,
                          key=session.EX_PREDICTION)
    st.text_area("In your own words: how will attention redistribute?", key=session.EX_GUESS, max_chars=500,
                 placeholder="One or two sentences, before you reveal.")

# --------------------------------------------------------------------------- 2 · the new token
st.subheader(f"2 · Choose the {nth} token")
default = preset.next_token
default_word = engine.label(cfg, default)
defaults = {session.EX_TOKEN_KIND: "id" if isinstance(default, int) else "word",
            session.EX_TOKEN_ID: default if isinstance(default, int) else cfg.vocab_size - 1,
            session.EX_TOKEN_WORD: default_word}
session.exercise_defaults(preset.name, defaults)   # a new preset brings its own default

kind_col, value_col, default_col = st.columns([2, 2, 2], vertical_alignment="bottom")
kind = kind_col.radio("Give it as", exercise.KINDS, key=session.EX_TOKEN_KIND, horizontal=True,
                      format_func={"id": "vocabulary id", "word": "typed word"}.get)
if kind == "id":
    raw = value_col.number_input("Vocabulary id", step=1, key=session.EX_TOKEN_ID,
                                 help=f"A whole number from 0 to {cfg.vocab_size - 1}.")
else:
    raw = value_col.text_input("Word", key=session.EX_TOKEN_WORD, max_chars=exercise.MAX_TYPED,
                               help="One word; a word outside the vocabulary gets its own seeded vector.")
default_col.button("Back to the default", key=session.EX_TOKEN_DEFAULT, on_click=session.reset_exercise_token, args=(defaults,),
                   icon=":material/restart_alt:")
vocab = " · ".join(f"{i} {layout.q(w)}" for i, w in enumerate(cfg.vocab))
st.caption(f"Vocabulary (id, word): {vocab}. Default: {layout.q(default_word)}"
           + (f" (id {default})" if isinstance(default, int) else "")
           + f", the documented next token of the {layout.md_escape(preset.title)} preset.")

try:
    new_token = exercise.parse_next_token(cfg, kind, raw)
except ValueError as err:
    new_token = None
    st.warning(f"**That {nth} token cannot be used:** {layout.md_escape(str(err))}.",
               icon=":material/error:")
else:
    known = engine.token_id(cfg, new_token)
    st.caption(f"The {nth} token is {layout.q(engine.label(cfg, new_token))}: "
               + (f"vocabulary id {known}, its row of the embedding table." if known is not None else
                  "not in the vocabulary, so its vector comes from its own seeded stream (the same every time)."))

# --------------------------------------------------------------------------- 3 · reveal
st.subheader("3 · Reveal")
if new_token is None:
    st.caption("Choose a usable token to reveal the result.")
    st.stop()
shown = repr((cfg, words, new_token))             # what a reveal belongs to
ask, now, _ = st.columns([2, 2, 3])
if ask.button("Check my prediction", key=session.EX_REVEAL, type="primary", disabled=prediction is None,
              help="Needs a prediction above; the lecturer button reveals without one."):
    session.reveal(shown, prediction)
if now.button("Reveal now (lecturer)", key=session.EX_REVEAL_NOW):
    session.reveal(shown, prediction)
revealed = session.revealed()                     # what was predicted when the result was revealed
if not revealed or revealed["setup"] != shown:
    if revealed:
        st.info("The setup changed since the last reveal: predict again, then reveal.", icon=":material/replay:")
    st.caption(f"Nothing of the {T + 1}-token run is shown until you reveal it.")
    st.stop()

ext = compute.extension(cfg, words, new_token)
b, a = ext.before, ext.after
rows = exercise.rows(ext, h)
new = layout.q(a.labels[T])
status, verdict = exercise.verdict(ext, h, revealed["prediction"], quote=layout.q)
said = exercise.PREDICTIONS.get(revealed["prediction"])
{"right": st.success, "partly": st.info, "wrong": st.warning, "none": st.info}[status](
    (f"**You predicted:** {said}  \n" if said else "") + verdict)
guess = revealed["guess"].strip()
if guess:
    st.markdown("**Your words:** " + "  \n".join(layout.md_escape(line) for line in guess.splitlines()))

st.latex(rf"w'_{{ij}} = \frac{{e^{{s_{{ij}}}}}}{{Z_i + e^{{s_{{i,{T + 1}}}}}}} = w_{{ij}}\cdot"
         rf"\frac{{Z_i}}{{Z_i + e^{{s_{{i,{T + 1}}}}}}}\qquad (j \le {T})")
domain = charts.weight_domain(b.weights[h], a.weights[h])
factor_rows = [f"{label}  ×{f:.3f}" for label, f in zip(a.labels[:T], rows.factor)] + [a.labels[T]]
pair = T + 1 <= 16                               # side by side while cells stay readable, else stacked
wide = min(260, 44 * (T + 1)) if pair else 560   # cell area; axes and legend come on top
left, right = st.columns(2) if pair else (st.container(), st.container())
with left:
    charts.heatmap(b.weights[h], b.labels, b.labels, title=f"{T} tokens: {T} × {T}", x_title="key",
                   y_title="query", signed=False, domain=domain, mask=mask, key="ex_map_before",
                   present=present, max_width=wide * T // (T + 1))
with right:
    charts.heatmap(a.weights[h], factor_rows, a.labels,
                   title=f"{T + 1} tokens: new row and column outlined",
                   x_title="key", y_title="query  ×  factor", signed=False, domain=domain,
                   mask=a.visible if cfg.causal else None, key="ex_map_after", present=present,
                   max_width=wide, highlight=T)
st.caption(f"Head {h}; one colour scale for both maps (0 to {domain[1]:.3f}). Next to each old row of the "
           f"{T + 1}-token map: the factor its weights were multiplied by.")

layout.table(pd.DataFrame(rows.table()),
             {"s (new key)": ".4f", "e^s": ".4f", "Z (old row)": ".4f", "factor Z/(Z+e^s)": ".6f",
              "new ÷ old, min": ".6f", "new ÷ old, max": ".6f", "lost to new": ".4f"})
st.caption(f"s is each old query's score against {new}, Z the total of its old row. In every row new ÷ old "
           f"is the same for every key (min = max = factor): the ratios between the old weights are "
           f"unchanged, up to {exercise.tiny(ext.ratio_error)}. What a row lost is the weight it gives {new}.")
if b.num_heads > 1:
    with st.expander(f"Factors in all {b.num_heads} heads"):
        factors = pd.DataFrame(ext.factors, index=[f"head {k}" for k in range(b.num_heads)],
                               columns=[f"{j}: {label}" for j, label in enumerate(b.labels)])
        layout.table(factors, {c: ".4f" for c in factors.columns}, labels_in_header=True, hide_index=False)

# --------------------------------------------------------------------------- 4 · why, and the twist
st.subheader("4 · What happened, in two sentences")
left, right = st.columns(2) if pair else (st.container(), st.container())
with left:
    charts.heatmap(ext.diff[h], b.labels, b.labels, title=f"after − before, old {T} × {T} block",
                   x_title="key", y_title="query", mask=mask, key="ex_map_diff", present=present,
                   max_width=wide, fmt=".3f")
with right, st.container(border=True):
    for sentence in exercise.sentences(ext, h, quote=layout.q):
        st.markdown(sentence)

st.markdown("**The twist.** Switch one thing on for this comparison only (the sidebar keeps its values):")
causal_col, positions_col = st.columns(2)
for col, name, what in ((causal_col, "causal", "the causal mask"),
                        (positions_col, "positions", "sinusoidal positions")):
    with col:
        if not st.toggle(f"Try it with {what}", key=session.EX_TWIST[name]):
            continue
        other = compute.extension(exercise.variant(cfg, name), words, new_token)
        tw = exercise.twist(ext, other, name, quote=layout.q)
        first, second = st.columns(2)
        if name == "causal":
            first.metric(f"max change, first {T} rows", exercise.tiny(tw.max_row_change))
            second.metric("max output change, old rows", exercise.tiny(tw.output_change))
        else:
            first.metric("ratio error", exercise.tiny(tw.ratio_error))
            second.metric("max change of old scores", exercise.tiny(tw.score_change))
        st.markdown(tw.sentence)
        charts.heatmap(other.after.weights[h], other.after.labels, other.after.labels,
                       title=f"{T + 1} tokens with {what}", x_title="key", y_title="query", signed=False,
                       mask=other.after.visible if other.after.config.causal else None,
                       key=f"ex_map_{name}", present=present, max_width=min(wide, 280), highlight=T)

# --------------------------------------------------------------------------- 5 · the block output
st.subheader("5 · The block output")
out = exercise.outputs(ext, quote=layout.q)
layout.table(pd.DataFrame({"token": list(b.labels), "‖Δ output‖": out.change, "share of its length": out.relative}),
             {"‖Δ output‖": ".4f", "share of its length": ".1%"})
st.markdown(out.sentence)

layout.notice(exercise.notice(ext, h, quote=layout.q))
st.button("Hide the result and predict again", key=session.EX_HIDE, icon=":material/visibility_off:",
          on_click=session.hide_reveal)
layout.exports("exercise", a, {
    f"weights head {h}, {T} tokens": (b.weights[h], b.labels, b.labels),
    f"weights head {h}, {T + 1} tokens": (a.weights[h], a.labels, a.labels),
    f"change of the old block, head {h}": (ext.diff[h], b.labels, b.labels),
    "factors (heads x old rows)": (ext.factors, [f"head {k}" for k in range(b.num_heads)], b.labels),
}, code=[analysis.extend, exercise.rows])
