"""Measures kept on disk beside the weights they measured, named by those weights' digest: a text model's evidence
(its roles and knock-outs, engine.language.evidence) as arrays, and a shipped model's every knock-out
(engine.knockouts, engine.language's knockout_table here) and its run's heads step by step (engine.histories),
each file checked as a stored run is (factory.store) before it is trusted."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np

from engine.config import Config
from engine.knockouts import head_sets, set_number
from engine.language import EVIDENCE_N, Evidence, Knockout, Roles, knockouts
from engine.params import Params

from .store import FORMAT, file_checksum

ROLES_VERSION = 2  # of the roles' definition (2: no forced row counts, issue 47):
# evidence kept under another is measured again
MEASURES = "measures"  # measures-<digest>.npz: a shipped model's every knock-out and its run's head histories


def evidence_arrays(found: Evidence) -> dict[str, np.ndarray]:
    """The evidence as arrays (for a file): every role's (L, H) scores, and the knock-outs' losses in order."""
    arrays = {f"role {name}": scores for name, scores in found.roles.named().items()}
    losses = [(k.overall, k.second_copy) for k in (found.base, *found.heads, *found.layers)]
    return arrays | {
        "losses": np.array(losses, dtype=np.float64),
        "n": np.array(found.n),
        "roles version": np.array(ROLES_VERSION),
    }


def current(arrays: dict[str, np.ndarray]) -> bool:
    """Kept evidence whose roles were measured as head_roles measures them now (ROLES_VERSION; a file from before
    the version was kept counted row 0's forced weight)."""
    return "roles version" in arrays and int(arrays["roles version"]) == ROLES_VERSION


def evidence_from(arrays: dict[str, np.ndarray], cfg: Config, digest: str) -> Evidence:
    """evidence_arrays read back (the knock-outs' sets are the order evidence() measures them in)."""
    L, H = cfg.n_layers, cfg.num_heads
    sets = [
        (),
        *(((layer, head),) for layer in range(L) for head in range(H)),
        *(tuple((layer, head) for head in range(H)) for layer in range(L)),
    ]
    named = {name.removeprefix("role "): a for name, a in arrays.items() if name.startswith("role ")}
    roles = Roles(
        previous=named["previous token"],
        current=named["current token"],
        first=named["first token"],
        last_mark=named["last punctuation"],
        induction=named["induction (repeated span)"],
    )
    found = [
        Knockout(ablate=frozenset(s), overall=float(o), second_copy=float(c))
        for s, (o, c) in zip(sets, arrays["losses"])
    ]
    return Evidence(
        digest=digest,
        n=int(arrays["n"]),
        roles=roles,
        base=found[0],
        heads=tuple(found[1 : 1 + L * H]),
        layers=tuple(found[1 + L * H :]),
    )


def knockout_table(cfg: Config, params: Params, n: int = EVIDENCE_N) -> dict[str, np.ndarray]:
    """The held-out losses with every set of the model's heads knocked out (engine.knockouts.head_sets' order;
    256 sets of 8 heads, ~1 s each), on the evidence's n windows of each kind, as arrays to keep beside the
    weights: a knock-out of any heads is then a look-up."""
    found = knockouts(cfg, params, head_sets(cfg), n=n)
    return {
        "n": np.array(n),
        "heads": np.array([cfg.n_layers, cfg.num_heads]),
        "losses": np.array([(k.overall, k.second_copy) for k in found], dtype=np.float64),
    }  # (sets, 2)


def knockout_in(arrays: dict[str, np.ndarray], cfg: Config, pairs, n: int) -> Knockout | None:
    """knockout_table's Knockout of these (layer, head) pairs on n windows, or None when the table measured
    another model shape or other windows, or a pair is not one of the model's heads."""
    s = set_number(cfg, pairs)
    if s is None or (int(arrays["n"]), tuple(int(x) for x in arrays["heads"])) != (n, (cfg.n_layers, cfg.num_heads)):
        return None
    overall, second = arrays["losses"][s]
    return Knockout(
        ablate=frozenset(tuple(int(x) for x in p) for p in pairs), overall=float(overall), second_copy=float(second)
    )


def save_evidence(arrays: dict[str, np.ndarray], digest: str, path: Path) -> Path:
    """Measures of one set of weights (engine.language.evidence_arrays), named by their digest, checked as a run is."""
    header = json.dumps({"format": FORMAT, "digest": digest}, sort_keys=True).encode()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez_compressed(
                out,
                header=np.frombuffer(header, dtype=np.uint8),
                checksum=np.array(file_checksum(header, arrays)),
                **arrays,
            )
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def read_evidence(path: Path, digest: str) -> dict[str, np.ndarray] | None:
    """The measures stored at path if the file is sound and measured these weights (their digest); else None."""
    try:
        with np.load(path, allow_pickle=False) as data:
            header_bytes = data["header"].tobytes()
            if json.loads(header_bytes) != {"format": FORMAT, "digest": digest}:
                return None
            arrays = {name: data[name] for name in data.files if name not in ("header", "checksum")}
            checksum = str(data["checksum"])
    except Exception:
        return None
    return arrays if checksum == file_checksum(header_bytes, arrays) else None


def evidence_path(folder: Path, digest: str, kind: str = "evidence") -> Path:
    """Where measures of the weights named by digest are kept: evidence-<digest>.npz (a text model's roles and
    knock-outs, engine.language) or measures-<digest>.npz (kind MEASURES: a shipped model's every knock-out,
    engine.knockouts and engine.language, and its run's heads step by step, engine.histories.history_arrays)."""
    return Path(folder) / f"{kind}-{digest}.npz"
