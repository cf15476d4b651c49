"""The per-head page's role of its head (issue 50): the role the one rule names it for (or the check that failed),
every control beside it, and one click away its counter-example: the unit of the sample where it follows its
role least, with that unit's map."""

from __future__ import annotations

import streamlit as st

from ui import charts, compute, compute_roles
from ui.page.gloss_table import gloss_table
from ui.prose import controls as controls_words
from ui.prose.numbers import count, fmt
from ui.shell import lazy
from ui.shell.view import View


def control_rows(view: View, layer: int, head: int) -> dict[str, list[str]]:
    """The head's controls as a narrow two-column table (control, value), every number through fmt."""
    one = compute_roles.head_role(view.model.trained, layer, head)
    c = one.controls
    rows = {
        "role": c.role,
        "score": controls_words.score(one),
        "initial weights": fmt(c.untrained, controls_words.SPEC),
        "layer's other heads": controls_words.others(one),
        "transfer": fmt(c.transfer, controls_words.SPEC),
        **({"shuffled": fmt(c.shuffled, controls_words.SPEC)} if c.shuffled is not None else {}),
        "zero knock-out": controls_words.effect(c.zero),
        "mean knock-out": controls_words.effect(c.mean),
        "resample knock-out": controls_words.effect(c.resample),
        "label": controls_words.label(one),
    }
    return {"control": list(rows), "value": list(rows.values())}


def counter_example(view: View, layer: int, head: int) -> None:
    """The unit where the head follows its role least, with its map (drawn when the expander opens)."""
    trained = view.model.trained
    one = compute_roles.head_role(trained, layer, head)
    box = lazy.opened(f"Where head {head} follows its role least: a counter-example", f"heads_counter_{layer}_{head}")
    if box is None:
        return
    with box:
        found = compute_roles.counter_example(trained, layer, head)
        if found is None:
            st.caption("No unit of the sample has a query this role scores.")
            return
        ids, keys, score = found
        stack = compute.task_stack(trained, None, ids)
        labels = list(stack.labels)
        charts.heatmap(
            matrix=stack.layers[layer].weights[head],
            rows=labels,
            cols=labels,
            width=view.width,
            area=min(560, 18 * len(ids)),
            title=f"layer {layer} head {head} on its weakest unit",
            x_title="key",
            y_title="query",
            signed=False,
            domain=(0.0, 1.0),
            key=f"heads_counter_map_{layer}_{head}",
            present=view.present,
        )
        keyed = int(keys.any(axis=-1).sum())
        st.caption(
            f"Unit {one.controls.weakest} of {one.sample}: here the head puts {fmt(score, controls_words.SPEC)} of "
            f"its weight on the {one.controls.role} keys, averaged over the {count(keyed, 'query', 'queries')} "
            "the role scores, against "
            f"{fmt(one.controls.score, controls_words.SPEC)} over the whole sample."
        )


def draw(view: View) -> None:
    """The section, for the head the page shows (view.layer, view.head); nothing for an article's preset."""
    trained = view.model.trained
    if trained is None:
        return
    layer, head = view.layer, view.head
    one = compute_roles.head_role(trained, layer, head)
    st.subheader(f"Head {head}'s role, with its controls")
    st.markdown(f"**{controls_words.label(one)}.** {controls_words.why(one)}")
    rows = control_rows(view, layer, head)
    # each control's name shows its gloss on hover and focus; printed below too
    gloss_table(
        rows, controls_words.GLOSSES, key=f"heads_role_{layer}_{head}", caption=controls_words.HEAD_CAPTION, by="row"
    )
    st.caption(" ".join(f"{name}: {controls_words.GLOSSES[name]}" for name in rows["control"]))
    st.caption(f"{controls_words.samples((one,))} {controls_words.rule()} {controls_words.MEAN_WHY}")
    counter_example(view, layer, head)
