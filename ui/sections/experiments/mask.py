"""Section 4: why a causal mask. A masked row is the past renormalised, and never changes later."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import charts, compute_experiments
from ui.page import footer, layout, tables
from ui.prose import experiments as said
from ui.sections.experiments.common import TITLES, prose, two_maps
from ui.shell.view import View


# --------------------------------------------------------------------------- 4 · causal mask
def mask(view: View) -> None:
    words, h = view.words, view.head
    st.subheader(TITLES["mask"])
    prose(
        view,
        "A model that writes text one token at a time cannot look at tokens it has not written yet. "
        "The mask sets every score above the diagonal to −∞ before the softmax: those weights become "
        "exactly 0, and each row shares its weight among the tokens up to itself.",
    )
    layout.latex(
        view,
        r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases},\qquad "
        r"w_{ij} = \frac{e^{s_{ij} + M_{ij}}}{\sum_{j' \le i} e^{s_{ij'}}} "
        r"= \frac{A_{ij}}{\sum_{j' \le i} A_{ij'}}\quad (j \le i)",
    )
    ct = compute_experiments.causal_test(view.model, words)
    labels = ct.open.labels
    domain = charts.weight_domain(ct.open.weights[h], ct.masked.weights[h])
    weights = dict(rows=labels, cols=labels, x_title="key", y_title="query", signed=False, domain=domain)
    two_maps(
        view,
        dict(matrix=ct.open.weights[h], title=f"no mask, head {h}", key="xp_mask_open", **weights),
        dict(
            matrix=ct.masked.weights[h],
            title=f"causal mask, head {h}",
            mask=ct.masked.visible,
            key="xp_mask_on",
            mask_word="hidden",
            **weights,
        ),
    )
    table = pd.DataFrame(
        {
            "query": list(labels),
            "keys it sees": range(1, ct.T + 1),
            "weight on its past, no mask": ct.past_share[h],
            "row sum with mask": ct.row_sums[h],
            "max |masked − past ÷ share|": ct.renorm_row_error[h],
        }
    )
    tables.table(
        table, {"weight on its past, no mask": ".4f", "row sum with mask": ".6f", "max |masked − past ÷ share|": ".1e"}
    )
    st.caption(
        f"Head {h}. A masked row is the unmasked row cut to its past and divided by the weight the "
        "past had: the last column compares the two."
    )
    st.markdown("##### Generating one token at a time")
    prose(
        view,
        "Grow the sentence the way a model writes it: first token 0, then tokens 0–1, and so on. Row i "
        "is computed for the first time when token i arrives. Does it change when later tokens come?",
    )
    steps = pd.DataFrame(
        {
            "row": list(labels),
            "weights change, mask": ct.drift_masked,
            "weights change, no mask": ct.drift_open,
            "output change, mask": ct.output_drift_masked,
            "output change, no mask": ct.output_drift_open,
        }
    )
    tables.table(steps, {c: ".2e" for c in steps.columns[1:]})
    st.caption(
        "Largest change of row i (over every head) between the step that produced token i and the "
        "whole sentence. The last row is computed at the last step, so it cannot change."
    )

    layout.notice(said.mask_notice(ct, h))
    footer.exports(
        "experiment-mask",
        ct.masked,
        {
            f"weights no mask head {h}": (ct.open.weights[h], labels, labels),
            f"weights causal head {h}": (ct.masked.weights[h], labels, labels),
        },
        code=["experiments.growing", "experiments.causal_test"],
    )
