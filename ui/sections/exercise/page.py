"""Exercise: append one token to the sentence; predict, then see how the old rows of attention change.

The page's header (its title, intro and formulas), then its sections: pages/exercise.py calls draw."""

from __future__ import annotations

import streamlit as st

from ui.page import layout
from ui.sections.exercise import steps as sections
from ui.sections.exercise import words_new_token as new_token_words
from ui.shell.view import View


def draw(view: View) -> None:
    """The whole page, under the frame."""
    T = len(view.words)
    nth = new_token_words.ordinal(T + 1)
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
