"""Finished training runs on disk: one .npz file per run, found by what decides its numbers, checked
before it is trusted, written so that a reader never sees half a file.

A file holds the run's key (task, config, steps, batch, lr, batch seed, the training code's version),
its checkpoints' weights as flat vectors, its curves, and a SHA-256 of all of it. load_* returns None,
never a guess, when the file is missing, cut short, altered, or was made by other training code; the
caller then trains again and saves over it. Pure Python and NumPy (no Streamlit).
"""
from __future__ import annotations

import hashlib
import importlib
import io
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from .config import Config
from .params import init_params
from .tasks import get_task
from .train import TrainRun, checkpoint_steps, flatten, unflatten

training = importlib.import_module(f"{__package__}.train")   # the module (engine.train is the function)
FORMAT = 1                                   # the file layout below; bump it when the layout changes
ROOT = Path(__file__).resolve().parents[1]   # the repository
SHIPPED = ROOT / "assets" / "weights"        # the trained presets' default weights, in git (python -m engine.ship)
CACHE_ENV = "ATTENTION_LAB_CACHE"            # a folder for finished runs; "off" keeps none
DEFAULT_CACHE = ROOT / ".cache" / "weights"  # git-ignored


def cache_folder() -> Path | None:
    """Where finished runs are kept: $ATTENTION_LAB_CACHE, else .cache/weights/ in the repository;
    None when the variable is "off"."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.lower() == "off":
        return None
    return Path(chosen) if chosen else DEFAULT_CACHE


def run_key(task: str, cfg: Config, steps: int, seed: int, batch: int | None = None,
            lr: float | None = None) -> dict:
    """Everything that decides a run's numbers (None: the task's default batch and lr)."""
    t = get_task(task)
    return {"format": FORMAT, "code": training.VERSION, "task": t.name, "config": repr(cfg), "steps": int(steps),
            "batch": int(t.batch if batch is None else batch), "lr": float(t.lr if lr is None else lr),
            "seed": int(seed), "schedule": [training.WARMUP, training.DECAY_FROM, training.LR_FLOOR]}


def key_of(run: TrainRun) -> dict:
    return run_key(run.task, run.config, run.steps, run.seed, run.batch, run.lr)


def file_name(key: dict) -> str:
    """<task>-<first 20 hex digits of the key's SHA-256>.npz"""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return f"{key['task']}-{digest}.npz"


def _checksum(header: bytes, arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256(header)
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def encode(run: TrainRun, full: bool = True) -> bytes:
    """The file's bytes: every checkpoint (full) or only the final weights, and the curves."""
    kept = run.checkpoints if full else run.checkpoints[-1:]
    arrays = {"steps": np.array([step for step, _ in kept], dtype=np.int64),
              "thetas": np.stack([flatten(params) for _, params in kept]),   # (K, N) float64
              "losses": np.asarray(run.losses, dtype=np.float64),
              "accuracies": np.asarray(run.accuracies, dtype=np.float64)}
    header = json.dumps({"key": key_of(run), "seconds": run.seconds, "full": full}, sort_keys=True).encode()
    buffer = io.BytesIO()
    np.savez_compressed(buffer, header=np.frombuffer(header, dtype=np.uint8),
                        checksum=np.array(_checksum(header, arrays)), **arrays)
    return buffer.getvalue()


def save(run: TrainRun, folder: Path, full: bool = True, name: str | None = None) -> Path:
    """Write the run to folder/name (default: file_name of its key) atomically: to a temporary file in
    the same folder, flushed to disk, then renamed over the target, so readers see the old file or the
    new one, never a mix, whoever else writes the same run at the same moment."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (name or file_name(key_of(run)))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(encode(run, full))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _read(path: Path, key: dict) -> tuple[dict, dict[str, np.ndarray]] | None:
    """The header and arrays of a file whose checksum holds and whose key is `key`; None otherwise."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in ("steps", "thetas", "losses", "accuracies")}
            header_bytes, checksum = data["header"].tobytes(), str(data["checksum"])
        header = json.loads(header_bytes)
    except FileNotFoundError:
        return None
    except Exception:                                                 # cut short, not a zip, a field missing ...
        return None
    if checksum != _checksum(header_bytes, arrays) or header.get("key") != key:
        return None                                                   # altered, or another run's or version's
    return header, arrays


def _params(cfg: Config, theta: np.ndarray):
    like = init_params(cfg)
    if theta.shape != flatten(like).shape:
        return None
    theta = theta.copy()
    theta.setflags(write=False)
    return unflatten(like, theta)


def load_run(folder: Path | None, task: str, cfg: Config, steps: int, seed: int) -> TrainRun | None:
    """The whole stored run (every checkpoint, for the Learn page's replay), or None."""
    if folder is None:
        return None
    key = run_key(task, cfg, steps, seed)
    found = _read(Path(folder) / file_name(key), key)
    if found is None or not found[0].get("full"):
        return None
    header, arrays = found
    if arrays["steps"].tolist() != checkpoint_steps(steps).tolist() or arrays["losses"].shape != (steps,):
        return None
    checkpoints = tuple((int(step), _params(cfg, theta)) for step, theta in zip(arrays["steps"], arrays["thetas"]))
    if any(params is None for _, params in checkpoints):
        return None
    losses, accuracies = arrays["losses"], arrays["accuracies"]
    losses.setflags(write=False)
    accuracies.setflags(write=False)
    return TrainRun(task=key["task"], config=cfg, seed=key["seed"], steps=key["steps"], batch=key["batch"],
                    lr=key["lr"], params=checkpoints[-1][1], losses=losses, accuracies=accuracies,
                    checkpoints=checkpoints, seconds=float(header["seconds"]))


def load_params(path: Path, task: str, cfg: Config, steps: int, seed: int):
    """The final weights of the run stored at path (a whole run or only its end), or None."""
    key = run_key(task, cfg, steps, seed)
    found = _read(Path(path), key)
    if found is None or found[1]["steps"][-1] != steps:
        return None
    return _params(cfg, found[1]["thetas"][-1])


def shipped_path(task: str) -> Path:
    return SHIPPED / f"{get_task(task).name}.npz"


def load_shipped(task: str, cfg: Config, steps: int, seed: int):
    """The weights shipped for the task's default run, if cfg, steps and seed are that run's; else None."""
    return load_params(shipped_path(task), task, cfg, steps, seed)



def keep(run: TrainRun, folder: Path | None) -> Path | None:
    """save() the run for a restart or another replica, if there is a folder; a disk that refuses the
    file (read-only, full) costs only the keeping, never the run: the error is printed, None returned."""
    if folder is None:
        return None
    try:
        return save(run, folder)
    except OSError as error:
        print(f"attention-lab: could not keep the trained weights in {folder}: {error}", flush=True)
        return None
