"""Finished training runs on disk: one .npz file per run, found by what decides its numbers, checked
before it is trusted, written so that a reader never sees half a file.

A file holds the run's key (task, config, steps, batch, lr, batch seed, the training code's version),
its checkpoints' weights as flat vectors, its curves, and a SHA-256 of all of it. Reading returns
None, never a guess, when the file is missing, cut short, altered, holds another run or was made by
other training code; the caller then trains again. The shipped runs (assets/weights/, python -m
factory.ship) are files of the same kind. Pure Python and NumPy (no Streamlit).
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from engine import training
from engine.config import Config
from engine.params import flatten, init_params, unflatten
from engine.tasks import get_task
from engine.training import TrainRun

FORMAT = 3  # the file layout below; bump it when the layout changes
ROOT = Path(__file__).resolve().parents[1]  # the repository
SHIPPED = ROOT / "assets" / "weights"  # the trained presets' default runs, in git (python -m factory.ship)
CACHE_ENV = "ATTENTION_LAB_CACHE"  # a folder for finished runs; "off" keeps none
DEFAULT_CACHE = ROOT / ".cache" / "weights"  # git-ignored


def cache_folder() -> Path | None:
    """Where finished runs are kept: $ATTENTION_LAB_CACHE, else .cache/weights/ in the repository;
    None when the variable is "off"."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.lower() == "off":
        return None
    return Path(chosen) if chosen else DEFAULT_CACHE


def run_key(task: str, cfg: Config, steps: int, seed: int, batch: int | None = None, lr: float | None = None) -> dict:
    """Everything that decides a run's numbers (None: the task's default batch and lr)."""
    t = get_task(task)
    return {
        "format": FORMAT,
        "code": training.VERSION,
        "task": t.name,
        "config": repr(cfg),
        "steps": int(steps),
        "batch": int(t.batch if batch is None else batch),
        "lr": float(t.lr if lr is None else lr),
        "seed": int(seed),
        "schedule": [training.WARMUP, training.DECAY_FROM, training.LR_FLOOR],
    }


def key_of(run: TrainRun) -> dict:
    return run_key(run.task, run.config, run.steps, run.seed, run.batch, run.lr)


def file_name(key: dict) -> str:
    """<task>-<first 20 hex digits of the key's SHA-256>.npz"""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return f"{key['task']}-{digest}.npz"


def file_checksum(header: bytes, arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256(header)
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _as_stored(thetas: np.ndarray, lossy: bool) -> np.ndarray:
    """Weight vectors as stored: float16 where the caller accepts rounding (a long shipped run's replay steps),
    else float32 where that is exact (training computes in float32), else float64."""
    if lossy:
        return thetas.astype(np.float16)
    narrow = thetas.astype(np.float32)
    return narrow if np.array_equal(narrow.astype(np.float64), thetas) else thetas  # a copy's exactness


def _arrays(run: TrainRun, lossy: bool) -> dict[str, np.ndarray]:
    """The run as arrays. Step 0 is the init, drawn from the config as the articles draw it: not stored, it
    is drawn again when read. The last step's weights are kept exactly; the steps between (what the Learn
    page replays) exactly too, or in float16 for a run too large to ship otherwise (lossy)."""
    thetas = np.stack([flatten(params) for _, params in run.checkpoints[1:]])  # (K-1, N) float64
    return {
        "steps": np.array([step for step, _ in run.checkpoints], dtype=np.int64),
        "between": _as_stored(thetas[:-1], lossy),
        "final": _as_stored(thetas[-1], False),  # (K-2, N) and (N,)
        "losses": np.asarray(run.losses, dtype=np.float64),
        "accuracies": np.asarray(run.accuracies, dtype=np.float64),
    }


def file_bytes(run: TrainRun, lossy: bool = False) -> bytes:
    """The file's bytes: every checkpoint, the curves, the key, and the checksum of them all."""
    arrays = _arrays(run, lossy)
    header = json.dumps({"key": key_of(run), "seconds": run.seconds, "lossy": lossy}, sort_keys=True).encode()
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer, header=np.frombuffer(header, dtype=np.uint8), checksum=np.array(file_checksum(header, arrays)), **arrays
    )
    return buffer.getvalue()


def _write(run: TrainRun, target: Path, lossy: bool = False) -> None:
    """The file at target, written atomically: to a temporary file in the same folder, flushed to
    disk, then renamed over the target, so readers see the old file or the new one, never a mix."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(file_bytes(run, lossy))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def save(run: TrainRun, folder: Path, name: str | None = None, lossy: bool = False) -> Path:
    """Write the run to folder/name (default: file_name of its key), replacing any file there."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (name or file_name(key_of(run)))
    _write(run, target, lossy)
    return target


def _decode(path: Path, key: dict) -> tuple[dict, dict[str, np.ndarray]] | None:
    """The header and arrays of a file whose checksum holds and whose key is `key`; None otherwise."""
    try:
        with np.load(path, allow_pickle=False) as data:  # an .npz reads each array when asked
            header_bytes = data["header"].tobytes()
            header = json.loads(header_bytes)
            if header.get("key") != key:
                return None  # another run's or version's: not read further
            arrays = {name: data[name] for name in ("steps", "between", "final", "losses", "accuracies")}
            checksum = str(data["checksum"])
    except Exception:  # missing, cut short, not a zip, a field missing ...
        return None
    if checksum != file_checksum(header_bytes, arrays):
        return None  # altered
    return header, arrays


def _whole(arrays: dict[str, np.ndarray], steps: int) -> bool:
    """The file's own steps make a whole run: from 0 (the init) up to `steps`, each once, a weight
    vector for each, and a loss and an accuracy for every step."""
    saved = arrays["steps"]
    return (
        saved.ndim == 1
        and len(saved) >= 2
        and saved[0] == 0
        and saved[-1] == steps
        and bool(np.all(np.diff(saved) > 0))
        and arrays["between"].shape[0] == len(saved) - 2
        and arrays["final"].ndim == 1
        and arrays["between"].shape[1:] == arrays["final"].shape
        and arrays["losses"].shape == (steps,)
        and arrays["accuracies"].shape == (steps,)
    )


def _read_only_float64(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=np.float64)
    array.setflags(write=False)
    return array


def read(path: Path, cfg: Config, key: dict) -> TrainRun | None:
    """The whole run stored at path (every checkpoint, for the Learn page's replay) if the file is
    sound and holds the run `key` names (cfg is that run's config); None otherwise."""
    found = _decode(Path(path), key)
    if found is None or not _whole(found[1], key["steps"]):
        return None
    header, arrays = found
    like = init_params(cfg)  # step 0: the init, drawn again
    if arrays["final"].shape != flatten(like).shape:
        return None
    thetas = [flatten(like), *arrays["between"], arrays["final"]]  # (N,) each, step 0 first
    checkpoints = tuple(
        (int(step), unflatten(like, _read_only_float64(theta))) for step, theta in zip(arrays["steps"], thetas)
    )
    return TrainRun(
        task=key["task"],
        config=cfg,
        seed=key["seed"],
        steps=key["steps"],
        batch=key["batch"],
        lr=key["lr"],
        params=checkpoints[-1][1],
        losses=_read_only_float64(arrays["losses"]),
        accuracies=_read_only_float64(arrays["accuracies"]),
        checkpoints=checkpoints,
        seconds=float(header["seconds"]),
    )


def load_run(
    folder: Path | None,
    task: str,
    cfg: Config,
    steps: int,
    seed: int,
    batch: int | None = None,
    lr: float | None = None,
) -> TrainRun | None:
    """The run with these settings kept in folder (a cache folder), or None."""
    if folder is None:
        return None
    key = run_key(task, cfg, steps, seed, batch, lr)
    return read(Path(folder) / file_name(key), cfg, key)


def shipped_path(task: str) -> Path:
    """The file of a task's shipped default run."""
    return SHIPPED / f"{get_task(task).name}.npz"


def load_shipped(
    task: str, cfg: Config, steps: int, seed: int, batch: int | None = None, lr: float | None = None
) -> TrainRun | None:
    """A run shipped for the task (python -m factory.ship: its default run, and for a deep task the one-layer
    model beside it) if one has these settings; else None. Only each file's small header is read until
    one matches."""
    key = run_key(task, cfg, steps, seed, batch, lr)
    for path in sorted(SHIPPED.glob(f"{get_task(task).name}*.npz")):
        found = read(path, cfg, key)
        if found is not None:
            return found
    return None


def keep_first(run: TrainRun, folder: Path | None) -> TrainRun:
    """Keep the run for a restart or another replica, unless a sound file of the same run is there
    already: then that one is returned and this one dropped, so every process that trained the same
    settings shows one run (the first one stored). Writers take turns on a lock file in the folder. A
    disk that refuses the file (read-only, full) costs only the keeping: the error is printed and the
    run returned."""
    if folder is None:
        return run
    key = key_of(run)
    try:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / file_name(key)
        with open(folder / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            kept = read(target, run.config, key)
            if kept is not None:
                return kept
            _write(run, target)
    except OSError as error:
        print(f"attention-lab: could not keep the trained weights in {folder}: {error}", flush=True)
    return run
