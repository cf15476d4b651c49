"""Issue 47's read of the READMEs: they describe the English text preset's passage as the code draws it, name
`passage=` among the link's keys, and state the induction run's loss fall as the Learn page does (the step
range where the windowed loss falls most, the window named: ui/sections/learn/words_loss.py), never 'falls
fastest at step N'. Expected numbers are read from the code and the shipped run, not typed."""

from __future__ import annotations

import re

import engine
import engine.loss_curve
from conftest import ROOT
from services import weights
from ui.shell import presets, state

READMES = ("README.md", "benchmarks/README.md")


def read(path: str) -> str:
    return " ".join((ROOT / path).read_text(encoding="utf-8").split())  # lines joined: a sentence may wrap


def test_no_readme_says_the_loss_falls_fastest_at_a_step():
    """Item 7 replaced 'falls fastest at step N' (an artefact of the averaging window) with the range where the
    windowed loss falls most; the READMEs said it the old way (the Learn row, the induction benchmark)."""
    for path in READMES:
        assert not re.search(r"(falls|drops) fastest", read(path)), path


def test_the_readmes_state_the_shipped_induction_fall_as_the_learn_page_finds_it():
    task = engine.TASKS["induction"]
    model = weights.find(presets.base_config("trained-induction"), presets.training("trained-induction"))
    assert model is not None, "the induction run ships"
    found = engine.loss_curve.steepest_fall(model.run.losses)
    said = [
        m.groups()
        for path in READMES
        for m in re.finditer(
            r"averaged over (\d+) steps, (?:the loss falls most )?from steps (\d+)–(\d+) to steps (\d+)–(\d+)",
            read(path),
        )
    ]
    assert len(said) >= 2, said  # the Learn row and the benchmark note
    for window, a, b, c, d in said:
        assert (int(window), int(a), int(b), int(c), int(d)) == (
            found.window,
            found.first,
            found.step,
            found.step + 1,
            found.last,
        ), (said, found, task.name)


def test_the_readme_describes_the_text_presets_passage_as_drawn():
    """It said every trained preset shows the first of 50 sequences with the most scored positions, while the
    English text preset shows ONE held-out passage of which every length shows the first T tokens."""
    text = read("README.md")
    task = engine.TASKS["text"]
    passage = re.search(
        r"The English text preset \(`\?preset=trained-text`\) shows ONE passage: a (\d+)-token window "
        r"\(its training length\) of a held-out chapter .*? passage 0, the default, is the first of "
        r"(\d+) windows drawn from seed (\d+) whose both copies lie in its first (\d+) tokens \(the "
        r"default length\).*?`passage=N` \((\d+)–(\d+), the sidebar's Passage box\) draws another by "
        r"the same rule from seed N\. Every length shows the passage's first T tokens, on every page "
        r"and on the Learn page",
        text,
    )
    assert passage, "the README's paragraph on the English text preset's passage"
    length, candidates, seed, shown, low, high = map(int, passage.groups())
    assert length == task.seq_len == len(presets.passage("text", 0).ids)
    assert (candidates, seed, low, high) == (presets.CANDIDATES, presets.SAMPLE_SEED, 0, presets.PASSAGES - 1)
    assert seed == presets.SAMPLE_SEED + 0  # passage N: seed SAMPLE_SEED + N
    assert shown == presets.shown_length(task)
    first = presets.passage("text", 0)
    assert first.second + first.span <= shown  # the default length holds both copies


def test_the_readmes_link_keys_name_passage():
    text = read("README.md")
    keys = re.search(r"\*\*Links reproduce the view\.\*\*(.*?)Malformed parameters", text).group(1)
    assert "passage=" in keys
    assert "passage" in state.Controls.__dataclass_fields__
