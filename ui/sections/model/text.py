"""The model view of a model that learned English: each head's knock-out measured on held-out text (overall
and on the second copy of a repeated span, where copying shows), and what the model predicts next."""

from __future__ import annotations

import streamlit as st

import engine
import engine.tokens
from engine import language
from services.weights import Model
from ui import compute
from ui.page import layout, tables
from ui.prose import knockout as knockout_words
from ui.prose.numbers import fmt
from ui.shell.view import View


def effect(view: View, trained: Model) -> None:
    """The held-out losses with the picked heads knocked out, beside the untouched model's."""
    knocked = view.controls.ablate
    base = compute.text_knockout(trained, ())
    with st.spinner("Measuring this knock-out on held-out text …"):
        now = compute.text_knockout(trained, knocked)
    left, right = layout.columns(view, 2)
    with left:
        st.metric(
            "loss, held-out text",
            fmt(now.overall, ".3f"),
            delta=fmt(now.overall - base.overall, "+.3f") if knocked else None,
            delta_color="inverse",
        )
    with right:
        st.metric(
            "loss, second copy of a span",
            fmt(now.second_copy, ".3f"),
            delta=fmt(now.second_copy - base.second_copy, "+.3f") if knocked else None,
            delta_color="inverse",
        )
    st.caption(knockout_words.text_caption(knocked, *language.samples(compute.TEXT_N)))


def head_costs(trained: Model) -> dict[str, list[str]]:
    """Each head's knock-out, as the change of the two held-out losses (nats a token), for the roles table."""
    found = compute.text_evidence(trained)
    base = found.base
    return {
        "held-out loss if knocked out": [fmt(k.overall - base.overall, "+.3f") for k in found.heads],
        "second-copy loss if knocked out": [fmt(k.second_copy - base.second_copy, "+.3f") for k in found.heads],
    }


def next_words(view: View, trained: Model) -> None:
    """The model's five likeliest next tokens after the sidebar's text, with the picked heads knocked out."""
    ids = tuple(engine.tokens.token_id(view.config, w) for w in view.words)
    next_table(trained, ids, view.words[-1], view.controls.ablate)


def next_table(trained: Model, ids: tuple[int, ...], last: str, knocked=()) -> None:
    """The five likeliest next tokens after a sequence of token ids (ending with `last`), as a table."""
    best = compute.next_words(trained, tuple(ids), tuple(knocked), 5)
    st.markdown(
        "**What the model predicts next**, after the last token of the sentence"
        + (" (with the picked heads knocked out)" if knocked else "")
    )
    tables.table(
        {
            "rank": list(range(1, len(best) + 1)),
            "next token": [w for w, _ in best],
            "probability": [p for _, p in best],
        },
        {"probability": ".3f"},
    )
    st.caption(knockout_words.next_caption(last, best, trained.config.vocab[0]))
