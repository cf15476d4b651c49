"""The two articles' examples as named presets."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .config import Config
from .model import Stack, run
from .tokens import Token

# Day 33 names its ten ids only by number; these words make the axes readable.
# The script's sentence [2, 5, 3, 7, 1] reads "the cat sat on mat".
DAY33_VOCAB = ("a", "mat", "the", "sat", "dog", "cat", "ran", "on", "home", ".")


@dataclass(frozen=True)
class Preset:
    name: str  # short key used in URLs and code
    title: str  # what the sidebar shows
    summary: str  # one line on what the architecture is
    config: Config
    tokens: tuple[Token, ...]  # the article's example input
    next_token: Token  # the exercise's default new token at the preset's own sentence: the word the
    # sequence-length slider appends (tokens.FILLER[0]); this app's choice, the
    # articles name no 6th token


PRESETS: dict[str, Preset] = {
    "part4": Preset(
        name="part4",
        title="Part 4 block",
        summary="2 heads, output projection W_o, residual connections; weights ×0.1",
        config=Config(),
        tokens=("AI", "builds", "neural", "models"),
        next_token="the",
    ),
    "day33": Preset(
        name="day33",
        title="Day 33 minimal",
        summary="1 head, token-embedding table, no W_o, no residuals; weights ÷√fan_in",
        config=Config(
            d_model=8,
            num_heads=1,
            d_ff=16,
            seed=42,
            output_projection=False,
            residual=False,
            init="fan_in",
            init_scale=1.0,
            vocab=DAY33_VOCAB,
            embedding_stream="weights",
        ),
        tokens=(2, 5, 3, 7, 1),
        next_token=2,  # 'the', as an id: Day 33 gives its tokens as ids
    ),
}


def get_preset(name: str) -> Preset:
    if not isinstance(name, str) or name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of: {', '.join(PRESETS)}")
    return PRESETS[name]


def run_preset(name: str, **overrides) -> Stack:
    """An article's example, exactly as its script computes it (overrides change the config)."""
    preset = get_preset(name)
    return run(replace(preset.config, **overrides), preset.tokens)
