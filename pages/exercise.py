"""Exercise: append one token to the sentence; predict, then see how the old rows of attention change."""

import streamlit as st

from ui import app
from ui.page import layout
from ui.prose.new_token import ordinal
from ui.sections.exercise import steps as sections

view = app.view()
T = len(view.words)
nth = ordinal(T + 1)
layout.header(
    view,
    view.page.title,  # one name in the navigation, the title, the steps and the poll
    f"The Day 33 article ends with a challenge: run 6 token ids instead of 5 and look at the attention "
    f"matrix again. Here the sentence is the sidebar's {T} tokens, so one more makes {T + 1}. Look at their "
    f"attention rows, predict "
    f"what appending a {nth} token does to them, then reveal the {T + 1}-token run. The formula below is "
    f"all you need to reason it out.",
    rf"w_{{ij}} = \frac{{e^{{s_{{ij}}}}}}{{Z_i}},\qquad Z_i = \sum_{{j=0}}^{{{T - 1}}} e^{{s_{{ij}}}}"
    r"\qquad(\text{a masked score is } s_{ij} = -\infty\text{: it adds } e^{-\infty} = 0)",
)
if view.config.n_layers > 1:
    st.info(
        f"With {view.config.n_layers} layers this exercise works on layer 0, the first block, which reads the "
        "tokens themselves: its rows change exactly as the formula says. The result also shows what one more "
        "token does to the old rows of the later layers.",
        icon=":material/layers:",
    )
sections.draw(view)
