"""The Learn page's replay of a finished run, scrubbed in the browser: every saved step's maps sent once
(ui.charts.attention_frames), redrawn as the scrubber moves (no run); the step it rests on sets the replay
control (one run of the replay's fragment: the curves' marker, the heads' history, the notice; the URL's
replay= follows), and that run sends the maps' bytes the browser holds, built and encoded before (its scrubber
stays where it rested). A stack's run sends its model view (every layer × head), a one-layer run each head's map with
the task's expected cells dashed."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from services.weights import Model
from ui import compute
from ui.charts import attention_frames, memo
from ui.charts import attention_map as am
from ui.charts.attention_map import Panel
from ui.sections.learn import words as learn_words
from ui.sections.learn.task import Sequence
from ui.shell import frame, url
from ui.shell.session import FIELD
from ui.shell.view import View

KEY = "learn_grid"  # the replay's component (its scrubber, its maps)
REPLAY_SENT = "learn_replay_sent"  # the saved steps the replay's frames hold, in order
RESTED = "learn_replay_rested"  # the step a scrub rested on (the browser shows it already), until the run reads it
_DRAWN = "learn_replay_drawn"  # the key of the replay's bytes this session was sent last
MAP_AREA = 300  # px: a one-layer run's map's cells at most this wide (as the live maps)
DOMAIN = (0.0, 1.0)  # one colour scale, 0 to 1, for every frame


def _wanted(view: View, trained: Model) -> int | None:
    """The step the controls name (a link's replay=N: the nearest saved step; where that is another step, a notice
    says which is shown and the address is corrected to it), else None (the last)."""
    steps = list(trained.steps)
    wanted = view.controls.replay_step
    if wanted is None:
        return None
    shown = min(steps, key=lambda s: (abs(s - wanted), s))
    if shown != wanted:
        st.info(learn_words.replay_rounded(wanted, shown, steps), icon=":material/info:")
        st.session_state[FIELD.replay_step] = shown
        frame.address(replace(view.controls, replay_step=shown))
    return shown


def scrubbed_step(view: View, trained: Model, seq: Sequence) -> int:
    """Every saved step's maps sent once (thinned to attention_frames.MAX_BYTES), scrubbed in the browser; the
    step shown (the control's, else the last)."""
    steps = list(trained.steps)
    wanted = _wanted(view, trained)
    at_step = steps[-1] if wanted is None else wanted
    stack = compute.task_stack(trained, at_step, seq.ids)
    L, H, T = stack.n_layers, trained.config.num_heads, len(seq.ids)
    cells = L * H * T * T
    exact = L == 1 and len(steps) * cells < attention_frames.EXACT_CELLS  # one layer's maps send exact tips
    sent = attention_frames.thinned(len(steps), attention_frames.frame_bytes(cells, exact=exact), steps.index(at_step))
    st.session_state[REPLAY_SENT] = [steps[i] for i in sent]
    shown = tuple(steps[i] for i in sent)
    at = ("replay", trained.digest, shown, steps.index(at_step), seq.ids, seq.expected, view.present, int(view.width))
    same = memo.digest(at[:3] + at[4:])  # the replay whatever its step
    drawn = st.session_state.get(_DRAWN)
    if st.session_state.pop(RESTED, None) == at_step and drawn and drawn[0] == same:
        at = drawn[1]  # a rested scrub: the browser shows this step already; the bytes it holds, sent again (no build)
    st.session_state[_DRAWN] = (same, at)
    made = lambda: am.encoded(_payload(view, trained, stack, seq, shown, sent.index(steps.index(at_step))))  # noqa: E731
    data = memo.once(at, made)  # the same run, steps, sequence and size: the bytes sent before (ui.charts.memo)
    if L == 1:
        st.caption(
            "Each head's weights on the sequence above, one colour scale from 0 to 1"
            + (" (grey: hidden by the causal mask)" if trained.config.causal else "")
            + "; the dashed cells are the keys a head that solves the task looks at."
        )
    attention_frames.draw(data, key=KEY, on_frame=_scrub_released)
    st.caption(
        learn_words.saved_steps(steps, trained.drop)
        + ("" if len(sent) == len(steps) else f" {len(sent)} of the {len(steps)} saved steps are sent to scrub.")
    )
    return at_step


def _payload(view: View, trained: Model, stack, seq: Sequence, shown: tuple[int, ...], start: int) -> dict:
    """The replay's component data: the sent steps' maps (a stack's model view, else each head's map)."""
    steps = list(trained.steps)
    weights = compute.replay_weights(trained, shown, seq.ids)
    scrubber = dict(
        start=start,
        labels=[f"step {s:,}" for s in shown],
        texts=[f"the weights after step {s:,} of {steps[-1]:,}" for s in shown],
        values=[str(s) for s in shown],
        label="Replay: the weights after",  # its value reads "step N"
        param=url.URL_KEY.get(FIELD.replay_step, FIELD.replay_step),
    )
    mask = stack.layers[0].mask
    built = _built(trained, shown, seq.ids, tuple(stack.labels))
    if stack.n_layers > 1:
        return attention_frames.grid_payload(
            list(weights),
            stack.labels,
            mask=mask,
            title="every layer × head",
            present=view.present,
            built=built,
            **scrubber,
        )
    return attention_frames.maps_payload(
        _panels(weights, mask, seq.expected),
        stack.labels,
        domain=DOMAIN,
        signed=False,
        mask_text="0",
        across=min(trained.config.num_heads, 2),
        width=int(view.width),
        area=MAP_AREA,
        present=view.present,
        built=built,
        **scrubber,
    )


def _panels(weights, mask, expected) -> list[list[Panel]]:
    """A one-layer run's frames: each head's map after each sent step, its expected cells dashed."""
    return [[Panel(w[0, h], f"head {h}", mask, expected=expected) for h in range(w.shape[1])] for w in weights]


@st.cache_resource(max_entries=8, show_spinner=False, hash_funcs=compute.KEYS)
def _built(trained: Model, sent: tuple[int, ...], ids: tuple[int, ...], labels: tuple[str, ...]):
    """The sent steps' maps as the component reads them (their descriptions, colours and tips: most of a replay's
    CPU), built once per run, steps and sequence: a rested scrub reruns the replay's fragment, which re-sends
    them without rebuilding them (issue 49). Immutable (attention_frames.Framed): every session shares it."""
    weights = compute.replay_weights(trained, sent, ids)  # (K, L, H, T, T)
    mask = compute.task_stack(trained, sent[-1], ids).layers[0].mask
    if weights.shape[1] > 1:
        return attention_frames.grid_frames(list(weights), labels, mask, DOMAIN)
    return attention_frames.map_frames(_panels(weights, mask, None), labels, DOMAIN)


def _scrub_released() -> None:
    """The replay control rested on a step (its callback, before the fragment's run): that step set."""
    frame_index = attention_frames.frame_of(KEY)
    sent = st.session_state.get(REPLAY_SENT) or []
    if frame_index is not None and 0 <= frame_index < len(sent):
        st.session_state[FIELD.replay_step] = st.session_state[RESTED] = sent[frame_index]
