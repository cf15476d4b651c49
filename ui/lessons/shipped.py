"""The lessons that ship with the app: one TOML file each in lessons/, named by the file (?lesson=NAME).
Read once per process; a shipped file that does not parse is an error of the app (a test reads every one).
Pure Python."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from ui.lessons.lesson import Lesson, LessonError, parse

FOLDER = Path(__file__).resolve().parents[2] / "lessons"
ORDER = ("self-attention", "multi-head", "induction")  # the lessons list's order (others after, by name)
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")


@functools.cache
def names() -> tuple[str, ...]:
    found = sorted(p.stem for p in FOLDER.glob("*.toml") if NAME.fullmatch(p.stem))
    return tuple(n for n in ORDER if n in found) + tuple(n for n in found if n not in ORDER)


@functools.cache
def load(name: str) -> Lesson:
    """The shipped lesson NAME; LessonError if there is none."""
    if name not in names():
        raise LessonError([f"There is no lesson {name[:40]!r}. The lessons: {', '.join(names())}."])
    return parse((FOLDER / f"{name}.toml").read_text(encoding="utf-8"), name)


def every() -> list[Lesson]:
    return [load(n) for n in names()]


@functools.lru_cache(maxsize=64)
def from_text(text: str, name: str) -> Lesson:
    """A room's lesson from the TOML the store keeps (checked when it was set), parsed once per process."""
    return parse(text, name)
