"""Measures of a model trained on English text (the "text" task), all on held-out chapters: its loss
against unigram and bigram baselines, what each head attends to, what knocking a head out costs
(over all text, and on the second copy of a repeated span), and its next-word predictions.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .attention import log_softmax, softmax
from .config import Config
from .evidence import strongest
from .measure import share_per_query
from .model import check_batch, forward
from .params import Params
from .sample import Sample
from .text import ENDS, PARAGRAPH, corpus, encode, vocabulary
from .windows import Windows, windows

SEED, N = 4242, 512  # the held-out windows every measure here reads
CHUNK = 128  # windows per forward: logits of 128 x 64 x 1,000 are 66 MB
LAMBDAS = np.linspace(0.05, 0.95, 19)  # the bigram's interpolation weights tried
MARKS = ENDS + (",", ";", ":", PARAGRAPH)  # what the "last mark" role looks back to


def held_out(n: int = N, seed: int = SEED, T: int = 64, repeat_share: float = 0.0) -> Windows:
    """n windows of the held-out chapters from RandomState(seed) (with repeat_share of them repeating a span)."""
    return windows("held_out", np.random.RandomState(seed), n, T, repeat_share)


@lru_cache(maxsize=1)
def ngram_counts() -> tuple[np.ndarray, np.ndarray]:
    """(V,) token counts and (V, V) counts of token pairs (this, next) over the training chapters."""
    text, V = corpus(), len(vocabulary())
    unigram, bigram = np.zeros(V), np.zeros((V, V))
    for k in np.flatnonzero(~text.held_out):
        ids = text.ids[text.bounds[k] : text.bounds[k + 1]]
        unigram += np.bincount(ids, minlength=V)
        np.add.at(bigram, (ids[:-1], ids[1:]), 1.0)  # a pair inside one chapter
    return unigram, bigram


def baseline_losses(tokens: np.ndarray, targets: np.ndarray) -> dict[str, float]:
    """Mean -log p(target) of a unigram model and of the best interpolated bigram
    p(next | this) = λ·count(this, next)/count(this) + (1 - λ)·p(next), with λ picked on these very
    targets (which flatters the bigram), and that λ."""
    unigram, bigram = ngram_counts()
    p_next = unigram / unigram.sum()  # (V,)
    follows = bigram / np.maximum(bigram.sum(axis=1, keepdims=True), 1)  # (V, V) rows: p(next | this)
    scored = targets >= 0
    this, nxt = tokens[scored], targets[scored]  # (M,) each
    losses = [float(-np.log(lam * follows[this, nxt] + (1 - lam) * p_next[nxt]).mean()) for lam in LAMBDAS]
    best = int(np.argmin(losses))
    return {"unigram": float(-np.log(p_next[nxt]).mean()), "bigram": losses[best], "lambda": float(LAMBDAS[best])}


def _chunks(n: int) -> list[slice]:
    return [slice(i, i + CHUNK) for i in range(0, n, CHUNK)]


def token_losses(cfg: Config, params: Params, tokens, targets, ablate=()) -> np.ndarray:
    """(n, T) -log p(target) at every position (0 where a target is -1), with heads in ablate knocked out."""
    tokens, targets = check_batch(cfg, params, tokens, targets)
    found = []
    for part in _chunks(len(tokens)):
        logits = forward(cfg, params, params.embeddings[tokens[part]], ablate=ablate).logits  # (chunk, T, V)
        wanted = np.maximum(targets[part], 0)[..., None]  # (chunk, T, 1)
        picked = np.take_along_axis(log_softmax(logits, axis=-1), wanted, axis=-1)[..., 0]  # (chunk, T)
        found.append(np.where(targets[part] >= 0, -picked, 0.0))
    return np.concatenate(found)  # (n, T)


@dataclass(frozen=True)
class Roles:
    """Each head's mean weight (L, H) on the keys of a role, over held-out windows."""

    previous: np.ndarray  # the token before the query
    current: np.ndarray  # the query's own token
    first: np.ndarray  # position 0 (a window's first token starts a sentence)
    last_mark: np.ndarray  # the latest . ! ? , ; : or ¶ before the query, where there is one
    induction: np.ndarray  # in windows that repeat a span: the token after the span's first copy of
    # the query's token, over the second copy's queries
    # every score is over the queries that choose: a query that sees one key only (row 0 under the causal
    # mask) gives it weight 1 by force, never a finding (chosen_queries)

    def named(self) -> dict[str, np.ndarray]:
        return {
            "previous token": self.previous,
            "current token": self.current,
            "first token": self.first,
            "last punctuation": self.last_mark,
            "induction (repeated span)": self.induction,
        }

    def roles(self) -> dict[str, np.ndarray]:
        """Every measured role by name, (L, H) each (as engine.evidence.HeadScores.roles)."""
        return self.named()

    def role(self, layer: int, head: int, threshold: float = 0.5) -> tuple[str, float]:
        """The head's strongest role and its score, or ("no clear role", best score) below threshold."""
        return strongest(self.roles(), layer, head, threshold)


def _share(cfg, params, tokens, keys, queries) -> np.ndarray:
    """(L, H) mean weight on keys (n, T, T) over queries (n, T), a chunk of windows at a time."""
    shares = [share_per_query(cfg, params, tokens[part], keys[part], queries[part]) for part in _chunks(len(tokens))]
    return np.concatenate(shares, axis=-1).mean(axis=-1)  # (L, H, Q) -> (L, H)


def chosen_queries(cfg: Config, n: int, T: int) -> np.ndarray:
    """(n, T) the queries that see more than one key (under the causal mask every query but row 0, whose one
    key gets weight 1 by force): the only queries a role's score counts."""
    sees = np.arange(1, T + 1) if cfg.causal else np.full(T, T)  # (T,) keys each query sees
    return np.broadcast_to(sees > 1, (n, T))


def head_roles(cfg: Config, params: Params, n: int = N, seed: int = SEED, T: int = 64) -> Roles:
    """Roles on n plain held-out windows, induction on n held-out windows that all repeat a span; every score
    over the queries that choose between keys (chosen_queries)."""
    plain, repeated = held_out(n, seed, T), held_out(n, seed + 1, T, repeat_share=1.0)
    tokens = plain.tokens
    query, key = np.indices((T, T))  # (T, T) each
    every = chosen_queries(cfg, len(tokens), T)  # (n, T): no forced row
    later = every & (np.arange(T) >= 1)  # (n, T): queries with a token before them

    def fixed(pattern):
        return np.broadcast_to(pattern, (len(tokens), T, T))  # (n, T, T)

    marks = np.isin(tokens, [vocabulary().index(m) for m in MARKS])  # (n, T)
    before = np.where(marks[:, None, :] & (key < query), key, -1)  # (n, T, T): marks before each query
    last_mark = key == before.max(axis=-1, keepdims=True)  # (n, T, T): the latest of them (-1: none)
    return Roles(
        previous=_share(cfg, params, tokens, fixed(key == query - 1), later),
        current=_share(cfg, params, tokens, fixed(key == query), every),
        first=_share(cfg, params, tokens, fixed(key == 0), later),
        last_mark=_share(cfg, params, tokens, last_mark, every),
        induction=_share(
            cfg,
            params,
            repeated.tokens,
            repeated.copy_keys(),
            repeated.copy_queries() & chosen_queries(cfg, len(repeated.tokens), T),
        ),
    )


@dataclass(frozen=True)
class Knockout:
    """Held-out losses with some heads knocked out (zero-ablation)."""

    ablate: frozenset  # the (layer, head) pairs removed
    overall: float  # mean over every position of plain held-out windows
    second_copy: float  # mean over the second copy's positions of windows that repeat a span


def knockouts(cfg: Config, params: Params, pairs_list, n: int = N, seed: int = SEED, T: int = 64) -> list[Knockout]:
    """A Knockout for each set of (layer, head) pairs in pairs_list (an empty set: nothing removed)."""
    plain, repeated = held_out(n, seed, T), held_out(n, seed + 1, T, repeat_share=1.0)
    copies = repeated.copy_queries()  # (n, T)
    found = []
    for pairs in pairs_list:
        overall = token_losses(cfg, params, plain.tokens, plain.targets, pairs).mean()
        second = token_losses(cfg, params, repeated.tokens, repeated.targets, pairs)[copies].mean()
        found.append(Knockout(ablate=frozenset(pairs), overall=float(overall), second_copy=float(second)))
    return found


def next_words(cfg: Config, params: Params, text: str, k: int = 5) -> list[tuple[str, float]]:
    """The k most likely next tokens after the typed text, with their probabilities, best first."""
    return next_after(cfg, params, list(encode(text).ids), k)


def next_after(cfg: Config, params: Params, ids, k: int = 5, ablate=()) -> list[tuple[str, float]]:
    """The k most likely next tokens after a sequence of token ids, with their probabilities, best first
    (with the (layer, head) pairs in ablate knocked out)."""
    logits = forward(cfg, params, params.embeddings[list(ids)], ablate=ablate).logits[-1]  # (V,) at the last position
    probs = softmax(logits)  # (V,)
    best = np.argsort(-probs, kind="stable")[:k]
    return [(cfg.vocab[i], float(probs[i])) for i in best]


EVIDENCE_N = 256  # held-out windows the evidence is measured on (each kind)
EVIDENCE_T = 64  # their length: the text task's training length


def plain_sample(n: int = EVIDENCE_N, seed: int = SEED, T: int = EVIDENCE_T) -> Sample:
    """The plain held-out windows the roles and the overall loss are measured on (held_out(n, seed, T))."""
    return Sample("text", n, T, seed, held_out=True)


def samples(n: int = EVIDENCE_N) -> tuple[Sample, Sample]:
    """The held-out windows a text model's roles and knock-outs are measured on: plain ones, and ones that repeat a
    span (every figure of engine.language's evidence names them)."""
    return plain_sample(n), repeated_sample(n)


def repeated_sample(n: int = EVIDENCE_N, seed: int = SEED, T: int = EVIDENCE_T) -> Sample:
    """The held-out windows that all repeat a span: induction and the second copy's loss (held_out(n, seed + 1))."""
    return Sample("text", n, T, seed + 1, held_out=True, repeats=1.0)


@dataclass(frozen=True)
class Evidence:
    """What the pages prove about a text model, measured once on held-out text: each head's roles, and the
    losses with nothing, each head, and each layer's heads knocked out. Named by the weights' digest."""

    digest: str
    n: int  # windows of each kind measured on
    roles: Roles
    base: Knockout  # nothing knocked out
    heads: tuple[Knockout, ...]  # (layer, head) layer-major: that head knocked out
    layers: tuple[Knockout, ...]  # every head of that layer knocked out

    @property
    def sample(self) -> Sample:
        """The plain held-out windows of every role but induction, and of the overall loss."""
        return plain_sample(self.n)

    @property
    def repeated(self) -> Sample:
        """The held-out windows that repeat a span: induction, and the second copy's loss."""
        return repeated_sample(self.n)

    def knockout(self, pairs) -> Knockout | None:
        """The measured Knockout of exactly these (layer, head) pairs, if it is one of the above."""
        wanted = frozenset(tuple(p) for p in pairs)
        return next((k for k in (self.base, *self.heads, *self.layers) if k.ablate == wanted), None)


def evidence(cfg: Config, params: Params, digest: str, n: int = EVIDENCE_N) -> Evidence:
    """Roles and knock-outs (every single head, every whole layer) on n held-out windows of each kind."""
    L, H = cfg.n_layers, cfg.num_heads
    sets = [
        (),
        *(((layer, head),) for layer in range(L) for head in range(H)),
        *(tuple((layer, head) for head in range(H)) for layer in range(L)),
    ]
    found = knockouts(cfg, params, sets, n=n)
    return Evidence(
        digest=digest,
        n=n,
        roles=head_roles(cfg, params, n=n),
        base=found[0],
        heads=tuple(found[1 : 1 + L * H]),
        layers=tuple(found[1 + L * H :]),
    )
