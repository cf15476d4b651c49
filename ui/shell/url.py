"""The URL round trip: controls from a link's query parameters (anything malformed keeps its default and
is reported) and the parameters that reproduce the controls (only what differs from the preset's
defaults). Pure Python; a lesson's steps are read by the same code."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

import engine
from ui.shell import presets
from ui.shell.state import (
    BETAS,
    D_FF,
    D_MODEL,
    HEADS_MAX,
    KEYS,
    LAYERS,
    LR,
    MAX_TEXT,
    SEED,
    SEQ_LEN,
    STEPS,
    TRAIN_SEED,
    Controls,
    ablate_text,
    learn_defaults,
    preset_controls,
    settle,
)


def _as_int(raw: str, low: int, high: int) -> int:
    value = int(raw.strip())
    if not low <= value <= high:
        raise ValueError(f"must be between {low} and {high}")
    return value


REPLAY_DIGITS = 12  # a replay step longer than this is no step of any run (the Learn page rounds the rest)


def _as_replay(raw: str) -> int:
    """A replay step as the link writes it: any whole number; the Learn page shows the nearest saved step of
    its run, says so where that is another step, and writes the step it shows back into the address."""
    text = raw.strip()
    if not text.lstrip("-").isdigit() or len(text.lstrip("-")) > REPLAY_DIGITS:
        raise ValueError(
            "must be a whole number, a saved step of the run; the Learn page opens as without one: "
            "the model before training and its Train button, or a run too long to train live at its "
            "last step"
        )
    return int(text)


def _as_bool(raw: str) -> bool:
    text = raw.strip().lower()
    if text in ("1", "true", "on", "yes"):
        return True
    if text in ("0", "false", "off", "no"):
        return False
    raise ValueError("must be 1 or 0")


def _as_cell(raw: str) -> tuple[int, int]:
    parts = raw.split(",")
    if len(parts) != 2:
        raise ValueError("must look like 2,3 (query,key)")
    query, key = (_as_int(p, 0, SEQ_LEN[1] - 1) for p in parts)
    return query, key


def cell_param(raw: str | None) -> tuple[int, int] | None:
    """The (query, key) a cell= parameter names, or None when it is absent or malformed."""
    try:
        return None if raw is None else _as_cell(raw)
    except ValueError:
        return None


def _as_float(raw: str, low: float, high: float) -> float:
    value = float(raw.strip())
    if not low <= value <= high:  # also refuses nan
        raise ValueError(f"must be between {low:g} and {high:g}")
    return value


def _as_task(raw: str) -> str:
    if raw.strip() not in engine.TASKS:
        raise ValueError(f"must be one of {', '.join(engine.TASKS)}")
    return raw.strip()


def _as_ablate(raw: str) -> tuple[tuple[int, int], ...]:
    """ "0.0,1.1" -> ((0, 0), (1, 1)): layer.head pairs, sorted, each once."""
    pairs = set()
    for part in raw.split(","):
        if not part.strip():
            continue
        bits = part.strip().split(".")
        if len(bits) != 2:
            raise ValueError("must look like 0.0,1.1 (layer.head pairs)")
        pairs.add((_as_int(bits[0], 0, LAYERS[1] - 1), _as_int(bits[1], 0, HEADS_MAX - 1)))
    return tuple(sorted(pairs))


def _as_beta(raw: str) -> float:
    value = float(raw.strip())
    if value not in BETAS:
        raise ValueError(f"must be one of {', '.join(f'{b:g}' for b in BETAS)}")
    return value


URL_KEY = {"replay_step": "replay"}  # a field whose URL key is not its name
FIELD_OF = {v: k for k, v in URL_KEY.items()}


def from_params(params: dict[str, str]) -> tuple[Controls, list[str]]:
    """Controls from URL query parameters; anything malformed keeps its default and is reported."""
    problems: list[str] = []
    preset = params.get("preset", "part4")
    if preset not in presets.names():
        problems.append(f"preset={preset!r} is unknown")
        preset = "part4"
    try:  # a text preset's sentence is its passage's: read it first
        number = _as_int(str(params.get("passage", "0")), 0, presets.PASSAGES - 1)
    except (ValueError, TypeError):
        number = 0  # reported below, with the other keys
    base = preset_controls(preset, passage=number)
    if params.get("task") in engine.TASKS:  # the Learn page's defaults are its task's
        base = replace(base, **learn_defaults(params["task"]))
    values: dict = {}
    readers = {
        "d_model": lambda r: _as_int(r, *D_MODEL),
        "heads": lambda r: _as_int(r, 1, HEADS_MAX),
        "d_ff": lambda r: _as_int(r, *D_FF),
        "seed": lambda r: _as_int(r, *SEED),
        "seq_len": lambda r: _as_int(r, *SEQ_LEN),
        "text": lambda r: r[:MAX_TEXT],
        "causal": _as_bool,
        "positional": _as_bool,
        "scale": _as_bool,
        "present": _as_bool,
        "sidebar": _as_bool,
        "stretch": _as_bool,
        "layers": lambda r: _as_int(r, *LAYERS),
        "layer_norm": _as_bool,
        "layer": lambda r: _as_int(r, 0, LAYERS[1] - 1),
        "head": lambda r: _as_int(r, 0, HEADS_MAX - 1),
        "cell": _as_cell,
        "beta": _as_beta,
        "ablate": _as_ablate,
        "task": _as_task,
        "train_seed": lambda r: _as_int(r, *TRAIN_SEED),
        "steps": lambda r: _as_int(r, *STEPS),
        "lr": lambda r: _as_float(r, *LR),
        "sequence": lambda r: r[:MAX_TEXT],
        "replay": _as_replay,
        "passage": lambda r: _as_int(r, 0, presets.PASSAGES - 1),
    }
    for key, read in readers.items():
        if key not in params:
            continue
        raw = params[key]
        try:
            values[FIELD_OF.get(key, key)] = read(str(raw))
        except (ValueError, TypeError) as error:
            shown = str(raw)[:30]
            why = f" ({error})" if str(error).startswith("must") else ""
            problems.append(f"{key}={shown!r} is not valid{why}")
    controls = replace(base, **values)
    controls, fixes = settle(controls)
    problems += fixes
    return controls, problems


def to_params(c: Controls) -> dict[str, str]:
    """The URL query parameters for these controls: only what differs from the preset's defaults."""
    learn = learn_defaults(c.task)  # steps and lr are written when not the task's own
    learn.pop("task")
    base = replace(preset_controls(c.preset, passage=c.passage), **learn)  # the passage's own sentence
    out: dict[str, str] = {}
    if c.preset != "part4":
        out["preset"] = c.preset
    if c.passage:
        out["passage"] = str(c.passage)
    for key in KEYS[1:]:
        value = getattr(c, key)
        if value == getattr(base, key):
            continue
        name = URL_KEY.get(key, key)
        if isinstance(value, bool):
            out[name] = "1" if value else "0"
        elif key == "cell":
            out[name] = f"{value[0]},{value[1]}"
        elif key in ("beta", "lr"):
            out[name] = f"{value:g}"
        elif key == "ablate":
            out[name] = ablate_text(value)
        else:
            out[name] = str(value)
    return out


def share_link(page_url: str, params: dict[str, str]) -> str:
    """The page's URL with the view's query parameters (page_url has no query string)."""
    return page_url + ("?" + urlencode(params) if params else "")
