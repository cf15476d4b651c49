"""The block's configuration: one frozen dataclass, checked once when it is made."""

from __future__ import annotations

from dataclasses import dataclass

MAX_TOKENS = 1024  # longest sequence the engine accepts (the UI offers far fewer)
MAX_D_MODEL = 1024  # widest model the engine accepts
MAX_D_FF = 4096  # widest feed-forward layer the engine accepts
MAX_SEED = 2**32 - 1  # RandomState accepts seeds in [0, 2**32)
MAX_LAYERS = 8  # deepest stack of blocks the engine accepts (the UI offers 1-4)

INIT_RULES = ("fixed", "fan_in")  # std = init_scale, or std = init_scale / sqrt(fan_in)
POSITIONAL = ("none", "sinusoidal")
EMBEDDING_STREAMS = ("inputs", "weights")  # where known words' vectors are drawn from


def valid_head_counts(d_model: int, max_heads: int | None = None) -> list[int]:
    """Head counts that split d_model evenly, smallest first (optionally at most max_heads)."""
    if not isinstance(d_model, int) or isinstance(d_model, bool) or d_model < 1:
        raise ValueError(f"d_model must be a positive whole number, got {d_model!r}")
    if max_heads is not None and (not isinstance(max_heads, int) or isinstance(max_heads, bool) or max_heads < 1):
        raise ValueError(f"max_heads must be a positive whole number, got {max_heads!r}")
    limit = d_model if max_heads is None else min(d_model, max_heads)
    return [h for h in range(1, limit + 1) if d_model % h == 0]


def _say_list(items: list[int]) -> str:
    words = [str(i) for i in items]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


@dataclass(frozen=True)
class Config:
    """Everything that decides the numbers. Defaults are the Part 4 article's block."""

    d_model: int = 16  # C: width of every token vector
    num_heads: int = 2  # H: heads; each sees d_head = d_model // H columns
    d_ff: int = 32  # hidden width of the feed-forward layer
    seed: int = 42  # seeds the weights' RandomState: same seed, same weights
    causal: bool = False  # token i may only look at keys 0..i
    scale_scores: bool = True  # divide Q·Kᵀ by sqrt(d_head) before the softmax
    positional: str = "none"  # "none" or "sinusoidal", added to the inputs
    layer_norm: bool = False  # pre-norm (no learned gain) before attention and before the FFN
    output_projection: bool = True  # multiply the concatenated heads by W_o
    residual: bool = True  # add each sub-layer's input back to its output
    init: str = "fixed"  # "fixed": N(0, init_scale²); "fan_in": N(0, init_scale²/fan_in)
    init_scale: float = 0.1  # the ×0.1 of Part 4; 1.0 with "fan_in" is Day 33's 1/sqrt(fan_in)
    vocab: tuple[str, ...] = ("AI", "builds", "neural", "models")  # known words; id = position
    embedding_stream: str = "inputs"  # "inputs": N(0,1) rows from input_seed; "weights": drawn first from seed
    input_seed: int = 101  # seeds the input vectors when embedding_stream == "inputs"
    n_layers: int = 1  # L: blocks stacked, each with its own weights; block 0 is drawn first
    unembedding: bool = False  # add W_u (C, V): the last block's output -> next-token logits

    def __post_init__(self) -> None:
        for name in ("d_model", "num_heads", "d_ff", "seed", "input_seed", "n_layers"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{name} must be a whole number, got {value!r}")
        for name, top in (("d_model", MAX_D_MODEL), ("num_heads", MAX_D_MODEL), ("d_ff", MAX_D_FF)):
            value = getattr(self, name)
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
            if value > top:
                raise ValueError(f"{name}={value} is too large; the engine accepts at most {top}")
        if not 1 <= self.n_layers <= MAX_LAYERS:
            raise ValueError(f"n_layers={self.n_layers} must be between 1 and {MAX_LAYERS}")
        for name in ("seed", "input_seed"):
            value = getattr(self, name)
            if not 0 <= value <= MAX_SEED:
                raise ValueError(f"{name}={value} must be between 0 and {MAX_SEED}")
        if self.d_model % self.num_heads:
            choices = _say_list(valid_head_counts(self.d_model))
            raise ValueError(
                f"d_model={self.d_model} is not divisible by num_heads={self.num_heads}; choose {choices} heads"
            )
        for name in ("causal", "scale_scores", "layer_norm", "output_projection", "residual", "unembedding"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.positional not in POSITIONAL:
            raise ValueError(f"positional must be one of {POSITIONAL}, got {self.positional!r}")
        if self.init not in INIT_RULES:
            raise ValueError(f"init must be one of {INIT_RULES}, got {self.init!r}")
        if self.embedding_stream not in EMBEDDING_STREAMS:
            raise ValueError(f"embedding_stream must be one of {EMBEDDING_STREAMS}, got {self.embedding_stream!r}")
        scale = self.init_scale
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 100:
            raise ValueError(f"init_scale must be a number above 0 and at most 100, got {scale!r}")
        if not isinstance(self.vocab, tuple) or not all(isinstance(w, str) and w for w in self.vocab):
            raise ValueError("vocab must be a tuple of non-empty words")
        if len(set(self.vocab)) != len(self.vocab):
            raise ValueError("vocab must not list the same word twice")
        if self.unembedding and not self.vocab:
            raise ValueError("unembedding needs a vocabulary to predict: vocab is empty")

    @property
    def d_head(self) -> int:
        """Columns each head works with."""
        return self.d_model // self.num_heads

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)
