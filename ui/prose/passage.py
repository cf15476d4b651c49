"""A text preset's passage in words: where it comes from (novel and chapter), which of its tokens the task
pasted (the second copy of a repeated span: not the author's words), which fill a typed sentence up to the
sequence length; and the token strip that marks both. Pure Python."""

from __future__ import annotations

from ui.prose.numbers import count, fmt
from ui.prose.text import md_escape

TEXT, COPY, FILLING = "text", "copy", "filling"  # the kinds of a strip's parts
LEARN_TYPED = (
    "The Learn page shows this passage only while its box 'Your own sequence' is empty or cannot be read: "
    "your sequence replaces it."
)


def _positions(start: int, stop: int) -> str:
    """Positions start .. stop-1 (stop exclusive) as words."""
    return f"position {start}" if stop - start == 1 else f"positions {start}–{stop - 1}"


def rule(number: int, passages: int, seed: int, candidates: int, length: int, shown: int) -> str:
    """How passage `number` was drawn (ui.shell.presets.draw_passage), for the sidebar."""
    return (
        f"Its sentence: passage {number} of {passages} (0–{passages - 1}, the Passage box), one window of "
        f"{length} tokens of held-out text (chapters the model never trained on) in which the task pastes a copy "
        f"of an earlier span, for a head that copies to find: of the first {candidates} such windows "
        f"drawn from seed {seed + number}, the first whose both copies lie in its first {shown} tokens (else the "
        f"first). Every length shows its first tokens, on every page and on the Learn page. Type your own: "
        "unknown words are read as <unk>."
    )


def both_copies(own: int, pasted: range, copied_from: int, span: int) -> bool:
    """The shown tokens hold both copies of the repeated span, the second in full (neither under typed words)."""
    return span > 0 and len(pasted) == span and 0 <= own <= copied_from


def source(
    title: str, number: int, begin: int, T: int, span: int, second: int, own: int, pasted: range, copied_from: int
) -> str:
    """Where the passage comes from, and what of the first T tokens is not the author's text in order (own: the
    student's typed tokens before the passage's; 0 when the tokens are the passage's own)."""
    said = [f"Passage {number}: {md_escape(title)}, a held-out chapter, from token {fmt(begin, ',.0f')} of the corpus."]
    if own >= T:
        said.append(f"Your sentence fills all {T} tokens: none of the passage is shown.")
        return " ".join(said)
    if both_copies(own, pasted, copied_from, span):
        said.append(
            f"In these {T} tokens a span comes again: {_positions(pasted.start, pasted.stop)} are the task's "
            f"pasted copy of {_positions(copied_from, copied_from + span)}, not Austen's words; after it "
            "the text goes on as she wrote it (marked in the token strip)."
        )
    elif len(pasted):
        said.append(
            f"From position {pasted.start} the task pastes a copy of tokens from earlier in the passage, not "
            "Austen's words"
        )
        if pasted.stop < second + span:
            said[-1] += f"; the {T} tokens shown cut it at position {pasted.stop - 1}"
        if copied_from < own:
            said[-1] += "; what it copies lies under your typed tokens"
        said[-1] += " (marked in the token strip)."
    elif span > 0 and second >= T and own == 0:
        said.append(
            f"Every one of these {T} tokens is Austen's text in order: the task's pasted copy starts at "
            f"position {second}, past them."
        )
    if own:
        said.append(
            f"{_positions(own, T).capitalize()} fill your {count(own, 'token')} up to {T}: "
            "the passage's own tokens at those positions (marked in the token strip)."
        )
    return " ".join(said)


def filling(filled_from: int, T: int, number: int, title: str) -> str:
    """The notice for a typed sentence shorter than the sequence length."""
    return (
        f"You typed {count(filled_from, 'token')}; {_positions(filled_from, T)} ({count(T - filled_from, 'token')}) "
        f"are filling: passage {number}'s own tokens at those positions ({title}), marked in the token strip."
    )


def parts(words, filled_from: int | None, pasted: range) -> list[tuple[str, tuple[str, ...]]]:
    """The strip's runs of tokens in order, each (kind, tokens): TEXT, the task's pasted COPY, or FILLING."""

    def kind(i: int) -> str:
        return COPY if i in pasted else FILLING if filled_from is not None and i >= filled_from else TEXT

    runs: list[tuple[str, list[str]]] = []
    for i, word in enumerate(words):
        if runs and runs[-1][0] == kind(i):
            runs[-1][1].append(word)
        else:
            runs.append((kind(i), [word]))
    return [(k, tuple(w)) for k, w in runs]


def strip(words, filled_from: int | None, pasted: range, copied_from: int) -> str:
    """The token strip as Markdown: every token escaped (a token is user text), the pasted copy and the filling
    each between marks that say what they are."""
    out, at = [f"**The {len(words)} tokens:**"], 0
    for kind, run in parts(words, filled_from, pasted):
        text = " ".join(md_escape(w) for w in run)
        if kind == COPY:
            source = copied_from + (at - pasted.start)
            whose = "the passage's " if filled_from is not None and source < filled_from else ""  # under typed words
            out.append(
                f":orange-background[**⟦pasted copy of {whose}{_positions(source, source + len(run))}:** {text} **⟧**]"
            )
        elif kind == FILLING:
            out.append(f":gray-background[**⟦filling:** {text} **⟧**]")
        else:
            out.append(text)
        at += len(run)
    return " ".join(out)
