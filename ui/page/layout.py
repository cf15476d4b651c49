"""Where a page draws: columns that know their width, the header with its formula (one equation a line
on a phone), and the 'what to notice' line."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from ui.prose.text import md_escape
from ui.shell.view import View

GAP_PX = 17  # between two of st.columns (Streamlit's "small" gap: 1rem at a 17 px base font)


@dataclass(frozen=True)
class Column:
    """A place to draw (`with column:`) and how many px wide it is, for charts that must fit it."""

    box: Any
    width: float

    def __enter__(self):
        return self.box.__enter__()

    def __exit__(self, *exc):
        return self.box.__exit__(*exc)


def columns(view: View, spec: Sequence[float] | int, **options) -> list[Column]:
    """st.columns, each with its width in px (from the main column's width and the shares; on a
    phone, where Streamlit stacks the columns, each is the main column's full width)."""
    shares = [1.0] * spec if isinstance(spec, int) else [float(s) for s in spec]
    room = view.width - GAP_PX * (len(shares) - 1)
    boxes = st.columns(shares, **options)
    if view.stacked:
        return [Column(box, view.width) for box in boxes]
    return [Column(box, room * share / sum(shares)) for box, share in zip(boxes, shares)]


def two(view: View, side_by_side: bool) -> list[Column]:
    """Two places for the two maps of a comparison: side by side, or one under the other (full width)."""
    return columns(view, 2) if side_by_side else [Column(st.container(), view.width) for _ in range(2)]


WIDE_MAP = 32  # a map of more columns than this is drawn at the full width: in half of it its
# cells would be 2-3 px and its rows too thin for a token's label


def two_maps(view: View, n_cols: int, area: int = 230) -> tuple[list[Column], float]:
    """Two places for two maps of n_cols columns each (a T × d_model pair), and the cells' area to draw them
    with: side by side at `area` px, or, when they are wider than WIDE_MAP columns, one under the other at the
    full width."""
    side_by_side = n_cols <= WIDE_MAP
    return two(view, side_by_side), (area if side_by_side else view.width)


def header(view: View, title: str, intro: str, formula: str | Sequence[str]) -> None:
    """Title, a few sentences (hidden in presenter view), the formula(s), and any notes of this run."""
    st.title(title)
    if not view.present:
        st.markdown(intro)
    for line in [formula] if isinstance(formula, str) else formula:
        latex(view, line)
    marks = token_strip(view)
    if marks:
        st.markdown(marks)
    for note in view.notes:
        st.info(md_escape(note), icon=":material/info:")
    weights = trained_weights(view)
    if weights:
        st.caption(weights)
    outside = outside_training(view)
    if outside:
        st.warning(md_escape(outside), icon=":material/model_training:")


def token_strip(view: View) -> str:
    """A text preset's tokens as a strip (Markdown, every token escaped), its pasted copy and any filling
    marked; '' elsewhere (an article's or a letter task's tokens are on the page's own table and axes)."""
    from ui.prose import passage
    from ui.shell import presets

    task = presets.task_of(view.controls.preset)
    if task is None or task.shown is None or not view.page.sentence:
        return ""
    t = view.tokens
    return passage.strip(t.words, t.filled_from, t.pasted, t.copied_from)


def trained_weights(view: View) -> str:
    """Which trained weights the page shows (shipped, stored or trained here, and their digest); '' for an
    article's preset or while the model is still training (the Learn page trains it live)."""
    return "" if view.model is None or not view.model.is_trained else f"Trained weights in use: {view.model.said()}."


def outside_training(view: View) -> str:
    """For a trained preset used outside its training (another length, switch, layer count or width): what
    changed and the task's accuracy at this setting; '' otherwise or while the model is still training."""
    from ui import compute
    from ui.prose import preset_notes
    from ui.shell import presets

    if view.training is None:
        return ""
    T = len(view.words)
    changed, longer = presets.departures(view.controls.preset, view.config, T)
    if not changed and not longer:
        return ""
    trained = None if view.model is None else view.model.trained
    if trained is None:  # the Learn page trains it live
        return ""
    task = trained.task
    here, at_length = compute.metrics(trained, T), compute.metrics(trained)
    preset = compute.model(task.config, view.training) if changed else None  # if ready: never a training here
    return preset_notes.outside_training(
        task.title,
        task.seq_len,
        T,
        changed,
        here.overall_accuracy,
        at_length.overall_accuracy,
        None if preset is None else compute.metrics(preset).overall_accuracy,
        here.accuracy,
        here.count,
        here.sample,
        at_length.sample,
    )


def latex(view: View, formula: str) -> None:
    """st.latex, on a phone one equation a line (see formula_lines); elsewhere the line may wrap between
    its equations when the column is too narrow (the frame's CSS lets KaTeX wrap at its break points),
    and not right after an equation's '=' (its right side would start the next line alone)."""
    for part in laid_out(formula, view.stacked):
        st.latex(part)


@functools.lru_cache(maxsize=512)
def laid_out(formula: str, stacked: bool) -> tuple[str, ...]:
    """What layout.latex draws of a formula (a pure function of it: worked out once a process)."""
    if stacked:
        return tuple(formula_lines(formula, equations=True))
    return (
        r"\qquad\allowbreak ".join(
            r"\quad\allowbreak ".join(_kept(equation) for equation in _equations(part))
            for part in formula_lines(formula)
        ),
    )


def _top_level(latex: str):
    """(index, token) of every token outside any braces: a command with its whole name ('\\quad', '\\{')
    or one character."""
    depth, i = 0, 0
    while i < len(latex):
        if latex[i] == "\\":
            end = i + 1
            while end < len(latex) and latex[end].isalpha():
                end += 1
            token = latex[i : max(end, i + 2)]
        else:
            token = latex[i]
            depth += {"{": 1, "}": -1}.get(token, 0)
        if depth == 0:
            yield i, token
        i += len(token)


def _split(latex: str, command: str) -> list[str]:
    """latex cut at each \\<command> outside any braces (not at a longer command it begins)."""
    mark = "\\" + command
    cuts = [i for i, token in _top_level(latex) if token == mark]
    starts, ends = [0, *(cut + len(mark) for cut in cuts)], [*cuts, len(latex)]
    return [latex[a:b] for a, b in zip(starts, ends)]


def _equation(latex: str) -> bool:
    """latex has an '=' outside any braces: an equation, not a note such as (residual)."""
    return any(token == "=" for _, token in _top_level(latex))


def _equations(part: str) -> list[str]:
    """A formula part's equations: cut at each \\quad before another equation (Q = …,\\quad K = …), not
    before a note (x + attn\\quad (residual))."""
    first, *rest = _split(part, "quad")
    found = []
    for piece in rest:
        if _equation(piece):
            found.append(first)
            first = piece
        else:
            first += "\\quad" + piece
    return [*found, first]


def _kept(equation: str) -> str:
    """The equation with no line break allowed right after its '=' signs, nor inside a bracket: after a '+'
    or '-' between '(' and ')' (all outside braces), so a wrapped line never splits '(X + P)'."""
    at, depth = [], 0
    for i, token in _top_level(equation):
        depth += {"(": 1, ")": -1}.get(token, 0)
        if token == "=" or (depth > 0 and token in "+-"):
            at.append(i)
    for i in reversed(at):
        equation = equation[: i + 1] + r"\nobreak " + equation[i + 1 :]
    return equation


def formula_lines(latex: str, equations: bool = False) -> list[str]:
    """A formula's parts: split at each \\qquad outside any braces (the gap this app puts between the
    equations of one line); with `equations` (a phone: one equation a line), each part's equations too."""
    parts = _split(latex, "qquad")
    if equations:
        parts = [equation for part in parts for equation in _equations(part)]
    return [p.strip() for p in parts if p.strip()]


def notice(text: str) -> None:
    """The page's 'what to notice' line, computed by the page from the live numbers."""
    st.success("**What to notice:** " + text, icon=":material/visibility:")
