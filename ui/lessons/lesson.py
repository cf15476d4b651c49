"""A lesson: a title, a one-line summary and ordered steps. Each step names a page and its settings (the
keys a link to that page takes, read by the same code as a link: ui.shell.url.from_params), a few
sentences for the student, a note for the presenter, and optionally the page's poll question.

Read from TOML (the standard library's tomllib) and written back (dump), so a lesson edited in a room
downloads as a file that loads again. A file that cannot be used raises LessonError, whose message names
the step, the field and the fix; nothing is ever filled in silently. Pure Python.

    title = "Self-attention from scratch"
    summary = "One line on what the lesson shows."

    [[steps]]
    title = "Tokens become vectors"
    page = "inputs"                       # a path of ui.shell.site.PAGES
    text = "The sentence is {inputs.T} tokens."   # {page.fact}: a number computed as the page computes it
    note = "Ask the hall why a repeated word gets the same row."
    question = false                      # true: open the page's poll question at this step (in a room)
    pace = [2, 4]                         # optional, in a room: from this step, students move on their own
                                          # between steps 2 and 4 (the step itself among them)
    [steps.settings]                      # the link's keys: preset=day33&seq_len=6 ...
    preset = "day33"
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace

from ui.lessons import facts
from ui.shell import site, state, url
from ui.shell.state import Controls
from ui.shell.view import View

MAX_BYTES = 100_000  # an uploaded lesson file (100 KB)
MAX_STEPS = 40
LIMITS = {"title": 80, "summary": 300, "text": 1200, "note": 800}  # characters of each text field
OWN = ("present", "sidebar")  # the viewer's own settings, never a step's
SETTINGS = tuple(url.URL_KEY.get(k, k) for k in state.KEYS if k not in OWN)  # every key a step may set
TOP, STEP_FIELDS = ("title", "summary", "steps"), ("title", "page", "text", "note", "question", "pace", "settings")
HTML = re.compile(r"<\s*/?\s*[A-Za-z!?][^<>]*>|&#?\w+;")  # a tag, a comment, an entity
WIDTH = 790  # px a step's facts are computed for (the laptop's main column)


class LessonError(ValueError):
    """A lesson file that cannot be used: every problem found, each naming its step, field and fix."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class Step:
    title: str
    page: str  # a path of ui.shell.site.PAGES
    settings: tuple[tuple[str, str], ...]  # (URL key, value) as a link carries them
    text: str  # for the student: plain text with {page.fact} placeholders
    note: str = ""  # for the presenter: what to say or ask
    question: bool = False  # open the page's poll question at this step (in a room)
    pace: tuple[int, int] | None = None  # in a room: students move on their own between these steps (from 1)

    def params(self) -> dict[str, str]:
        return dict(self.settings)

    def controls(self) -> Controls:
        """The step's settings as controls (checked when the lesson was read: nothing falls back here)."""
        return url.from_params(self.params())[0]


@dataclass(frozen=True)
class Lesson:
    name: str  # its file's name in lessons/ (or the uploaded file's)
    title: str
    summary: str
    steps: tuple[Step, ...]

    def at(self, number: int) -> Step:
        """Step `number`, counted from 1 as the bar shows it."""
        return self.steps[number - 1]


def view_of(step: Step, own: Controls | None = None) -> View:
    """The View a step's page is drawn with (the viewer's presenter view and sidebar kept): the facts and
    the question are computed from it, as the page computes its numbers."""
    c = step.controls()
    if own is not None:
        c = replace(c, present=own.present, sidebar=own.sidebar)
    return View(
        controls=c,
        config=state.to_config(c),
        tokens=state.to_tokens(c),
        notes=(),
        page=site.by_path(step.page),
        width=WIDTH,
        training=state.to_training(c),
    )


# --------------------------------------------------------------------------- reading
def _setting(raw) -> str:
    """A TOML value as a link writes it: true -> 1, 0.5 -> 0.5, [2, 3] -> 2,3."""
    if isinstance(raw, bool):
        return "1" if raw else "0"
    if isinstance(raw, (int, float)):
        return f"{raw:g}" if isinstance(raw, float) else str(raw)
    if isinstance(raw, list):
        return ",".join(_setting(x) for x in raw)
    if isinstance(raw, str):
        return raw
    raise TypeError(type(raw).__name__)


def _text(where: str, field: str, raw, problems: list[str], required: bool = True) -> str:
    if raw is None:
        if required:
            problems.append(f'{where}, {field}: missing. Add {field} = "…" ({_WHAT[field]}).')
        return ""
    if not isinstance(raw, str):
        problems.append(f"{where}, {field}: must be text in quotes, not {type(raw).__name__}.")
        return ""
    text = raw.strip()
    if required and not text:
        problems.append(f"{where}, {field}: empty. Write {_WHAT[field]}.")
    if len(text) > LIMITS[field]:
        problems.append(f"{where}, {field}: {len(text):,} characters; at most {LIMITS[field]:,}. Shorten it.")
    found = HTML.search(text)
    if found:
        problems.append(
            f"{where}, {field}: HTML is not allowed (found {found.group(0)[:30]!r}). Write plain text: "
            "it is shown exactly as typed."
        )
    return text


_WHAT = {
    "title": "a short title",
    "summary": "one line on what the lesson shows",
    "text": "a few sentences for the student",
    "note": "what the presenter says or asks",
}


def _settings(where: str, raw, problems: list[str]) -> tuple[tuple[str, str], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        problems.append(f"{where}, settings: must be a table ([steps.settings]) of a link's keys.")
        return ()
    out = []
    for key, value in raw.items():
        if key in OWN:
            problems.append(f"{where}, settings.{key}: is the viewer's own choice, not a step's. Remove it.")
        elif key not in SETTINGS:
            problems.append(f"{where}, settings.{key}: no such setting. Use a link's keys: {', '.join(SETTINGS)}.")
        else:
            try:
                out.append((key, _setting(value)))
            except TypeError as err:
                problems.append(f"{where}, settings.{key}: a {err} cannot be a setting; write it as a link does.")
    _, said = url.from_params(dict(out))
    problems += [
        f"{where}, settings: {p}. Give a value in range, or leave the key out for the preset's own." for p in said
    ]
    return tuple(out)


def _step(number: int, raw, problems: list[str]) -> Step | None:
    where = f"Step {number}"
    if not isinstance(raw, dict):
        problems.append(f"{where}: must be a table ([[steps]]) with a title, page, text and note.")
        return None
    title = raw.get("title")
    where += f" ({str(title)[:40]!r})" if isinstance(title, str) and title.strip() else ""
    for key in raw:
        if key not in STEP_FIELDS:
            problems.append(f"{where}, {key}: no such field. A step has: {', '.join(STEP_FIELDS)}.")
    title = _text(where, "title", title, problems)
    page = raw.get("page")
    if page is None:
        problems.append(f'{where}, page: missing. Add page = "…", one of: {", ".join(p.path for p in site.PAGES)}.')
    elif page not in [p.path for p in site.PAGES]:
        problems.append(
            f"{where}, page: {str(page)[:30]!r} is not a page of this app. Use one of: "
            f"{', '.join(p.path for p in site.PAGES)}."
        )
    text = _text(where, "text", raw.get("text"), problems)
    note = _text(where, "note", raw.get("note"), problems, required=False)
    question = raw.get("question", False)
    if not isinstance(question, bool):
        problems.append(f"{where}, question: must be true or false.")
        question = False
    problems += [
        f"{where}, {field}: {p}"
        for field, body in (("title", title), ("text", text), ("note", note))
        for p in facts.unknown(body)
    ]
    settings = _settings(where, raw.get("settings"), problems)
    return Step(title, str(page), settings, text, note, question, _pace(where, raw.get("pace"), problems))


def _pace(where: str, raw, problems: list[str]) -> tuple[int, int] | None:
    """A step's `pace = [a, b]` (its bounds are checked against the lesson in pace_problems)."""
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 2 or any(type(x) is not int for x in raw):
        problems.append(f"{where}, pace: must be two step numbers, first and last, such as pace = [2, 4].")
        return None
    return raw[0], raw[1]


def pace_problems(steps: list[Step | None]) -> list[str]:
    """Each step's pace within the lesson, in order, and around the step itself (where it starts)."""
    problems = []
    for number, step in enumerate(steps, start=1):
        if step is None or step.pace is None:
            continue
        a, b = step.pace
        where = f"Step {number} ({step.title[:40]!r}), pace"
        if not 1 <= a <= b <= len(steps):
            problems.append(
                f"{where}: [{a}, {b}] is not a range of this lesson's steps. Give two numbers from 1 to "
                f"{len(steps)}, the first not after the second."
            )
        elif not a <= number <= b:
            problems.append(f"{where}: [{a}, {b}] must include this step ({number}), where the pacing starts.")
    return problems


def parse(source: str | bytes, name: str) -> Lesson:
    """A lesson from a TOML file's text; LessonError with every problem found."""
    size = len(source.encode() if isinstance(source, str) else source)
    if size > MAX_BYTES:
        raise LessonError(
            [
                f"The file has {size:,} bytes; a lesson file may have at most {MAX_BYTES:,} "
                "(100 KB). Shorten its texts, or make two lessons of it."
            ]
        )
    try:
        text = source.decode("utf-8") if isinstance(source, bytes) else source
        raw = tomllib.loads(text)
    except UnicodeDecodeError:
        raise LessonError(["The file is not text (UTF-8). Save the lesson as a plain .toml text file."]) from None
    except tomllib.TOMLDecodeError as err:
        raise LessonError([f"The file is not valid TOML ({err}). Check the quotes and brackets there."]) from None
    problems: list[str] = []
    for key in raw:
        if key not in TOP:
            problems.append(f"The lesson, {key}: no such field. A lesson has: {', '.join(TOP)}.")
    title = _text("The lesson", "title", raw.get("title"), problems)
    summary = _text("The lesson", "summary", raw.get("summary"), problems)
    found = raw.get("steps")
    if not isinstance(found, list) or not found:
        problems.append("The lesson, steps: none. Add at least one [[steps]] table with a title, page, text and note.")
        found = []
    elif len(found) > MAX_STEPS:
        problems.append(f"The lesson, steps: {len(found)}; at most {MAX_STEPS}. Make two lessons of it.")
    steps = [_step(i, s, problems) for i, s in enumerate(found[:MAX_STEPS], start=1)]
    problems += pace_problems(steps)
    if problems:
        raise LessonError(problems)
    return Lesson(name, title, summary, tuple(steps))


# --------------------------------------------------------------------------- writing
def _value(value: str) -> str:
    """A setting as TOML: a whole number bare, anything else a string (it reads back to the same text)."""
    return value if re.fullmatch(r"-?[1-9]\d{0,8}|0", value) else _string(value)


def _string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return '"' + re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\u{ord(m.group(0)):04x}", out) + '"'


def dump(lesson: Lesson) -> str:
    """The lesson as a TOML file that parse() reads back to the same lesson."""
    lines = [f"title = {_string(lesson.title)}", f"summary = {_string(lesson.summary)}"]
    for step in lesson.steps:
        lines += [
            "",
            "[[steps]]",
            f"title = {_string(step.title)}",
            f"page = {_string(step.page)}",
            f"text = {_string(step.text)}",
            f"note = {_string(step.note)}",
        ]
        if step.question:
            lines.append("question = true")
        if step.pace is not None:
            lines.append(f"pace = [{step.pace[0]}, {step.pace[1]}]")
        if step.settings:
            lines += ["[steps.settings]"] + [f"{key} = {_value(value)}" for key, value in step.settings]
    return "\n".join(lines) + "\n"
