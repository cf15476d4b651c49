"""What the pages prove about a text model (its heads' roles and what knocking each out costs), measured
once per set of weights and kept: the shipped model's measures ship beside it (python -m engine.ship),
any other model's are measured on first need (about 20 s on one core) and kept in the disk store, named
by the weights' digest like everything derived from them. Pure Python and NumPy."""
from __future__ import annotations

from engine import language, store
from services.weights import Model


def text_evidence(model: Model) -> language.Evidence:
    """The model's evidence: shipped, else stored, else measured now (and kept)."""
    for folder in (store.SHIPPED, store.cache_folder()):
        if folder is None:
            continue
        arrays = store.read_evidence(store.evidence_path(folder, model.digest), model.digest)
        if arrays is not None:
            return language.evidence_from(arrays, model.config, model.digest)
    found = language.evidence(model.config, model.params, model.digest)
    folder = store.cache_folder()
    if folder is not None:
        try:
            store.save_evidence(language.evidence_arrays(found), model.digest, store.evidence_path(folder, model.digest))
        except OSError as error:
            print(f"attention-lab: could not keep the measures in {folder}: {error}", flush=True)
    return found
