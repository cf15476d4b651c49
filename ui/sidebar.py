"""The shared sidebar: one set of controls, read from the URL once, written back to it every run."""
from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace

import streamlit as st

import engine
from ui import state
from ui.state import Controls

WIDGETS = ("preset", "d_model", "heads", "d_ff", "seed", "seq_len", "text", "causal", "positional",
           "scale", "head", "present")


@dataclass(frozen=True)
class View:
    """What every page needs: the controls, the engine config they mean, and the tokens."""

    controls: Controls
    config: engine.Config
    tokens: state.Tokens
    notes: tuple[str, ...]          # things the app changed or cut, to be said on the page

    @property
    def words(self) -> tuple[str, ...]:
        return self.tokens.words

    @property
    def present(self) -> bool:
        return self.controls.present


def _read() -> Controls:
    ss = st.session_state
    return Controls(**{f.name: ss[f.name] for f in fields(Controls)})


def _write(c: Controls) -> None:
    for f in fields(Controls):
        st.session_state[f.name] = getattr(c, f.name)


def _apply_preset() -> None:
    """Choosing a preset resets every control to the article's values (the view toggles stay)."""
    ss = st.session_state
    _write(state.preset_controls(ss.preset, present=ss.present))
    ss["_notes"] = [f"Loaded the {engine.get_preset(ss.preset).title} preset: the article's exact numbers."]


def load() -> Controls:
    """Once per session read the URL; every run make the combination consistent. Call before widgets."""
    ss = st.session_state
    notes: list[str] = ss.pop("_notes", [])
    if "_loaded" not in ss:
        ss["_loaded"] = True
        controls, problems = state.from_params(st.query_params.to_dict())
        _write(controls)
        if problems:
            notes.append("Some link parameters were not usable and fell back to defaults: "
                         + "; ".join(problems) + ".")
    elif any(f.name not in ss for f in fields(Controls)):
        # Streamlit drops a widget's state when a run is cut short by st.switch_page before the page
        # ran; the last complete view is kept under a non-widget key, so nothing is ever lost.
        _write(ss["_controls"])
    if not isinstance(ss.get("head"), int):
        # The head picker's labels name d_model's columns. After d_model moves, the browser still
        # sends the old label, which matches no option, and Streamlit returns it as a plain string.
        match = re.match(r"head (\d+)", str(ss.get("head")))
        ss["head"] = int(match.group(1)) if match else 0
    controls, fixes = state.settle(_read())
    if fixes:
        _write(controls)
    ss["_run_notes"] = notes + fixes
    return controls


def render() -> View:
    """Draw the sidebar (call load() first) and return the View every page reads."""
    ss = st.session_state
    sb = st.sidebar
    sb.selectbox("Preset", list(engine.PRESETS), key="preset", on_change=_apply_preset,
                 format_func=lambda name: engine.PRESETS[name].title,
                 help="Sets every control to one article's example. At these values the numbers "
                      "match that article's script exactly.")
    sb.caption(engine.get_preset(ss.preset).summary)
    sb.text_input("Tokens (a sentence)", key="text", max_chars=state.MAX_TEXT,
                  help="Split on spaces. Cut to the sequence length, or padded from a fixed word list.")
    sb.slider("Sequence length T", *state.SEQ_LEN, key="seq_len")
    sb.slider("d_model (width of each token vector)", *state.D_MODEL, key="d_model")
    sb.select_slider("Heads H (only divisors of d_model)", options=state.head_choices(ss.d_model), key="heads")
    sb.slider("d_ff (hidden size of the feed-forward layer)", *state.D_FF, key="d_ff")
    sb.number_input("Seed (weights)", *state.SEED, step=1, key="seed")
    with sb.expander("Switches", expanded=ss.causal or ss.positional or not ss.scale):
        st.toggle("Causal mask", key="causal", help="Token i may only look at tokens 0…i.")
        st.toggle("Sinusoidal positions", key="positional", help="Add a position code to every input.")
        st.toggle("Divide scores by √d_head", key="scale")
    sb.divider()
    d_head = ss.d_model // ss.heads
    sb.selectbox("Head to show", list(range(ss.heads)), key="head",
                 format_func=lambda h: f"head {h}  (columns {h * d_head}…{(h + 1) * d_head - 1})")
    sb.toggle("Presenter view", key="present", help="Large type, prose hidden, PageUp/PageDown steps pages.")

    controls = _read()
    ss["_controls"] = controls
    params = state.to_params(controls)
    if params != st.query_params.to_dict():
        st.query_params.from_dict(params)
    with sb.expander("Link to this view", icon=":material/link:"):
        st.caption("Copy it (button at the right of the box): opening it shows exactly this page, "
                   "these settings, this head and the picked cell.")
        st.code(state.share_link(st.context.url or "", params), language=None, wrap_lines=True)
    tokens = state.to_tokens(controls)
    notes = list(ss.get("_run_notes", []))
    if tokens.note:
        notes.append(tokens.note)
    return View(controls=controls, config=state.to_config(controls), tokens=tokens, notes=tuple(notes))


def set_cell(cell: tuple[int, int] | None) -> None:
    """Remember a clicked (query, key) cell for every chart of every page (and the URL)."""
    st.session_state["cell"] = cell
