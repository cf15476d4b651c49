"""The checks a lesson's numbers need: every fact it names has a value at its step's settings, every
question it opens can be graded there, every replay step it names is a saved step of the run. They use the
numbers of the pages (ui.compute, passed in), so they run when a lesson is loaded into a room and over every
shipped lesson in the tests. Pure Python."""

from __future__ import annotations

from ui.lessons import facts
from ui.lessons.facts import NoFact
from ui.lessons.lesson import Lesson, LessonError, Step, view_of
from ui.poll import questions
from ui.sections.learn.facts import learn_run


def problems(step: Step, number: int, numbers) -> list[str]:
    """What is wrong with one step's numbers (empty: nothing)."""
    where, found = f"Step {number} ({step.title[:40]!r})", []
    view = view_of(step)
    for field, body in (("title", step.title), ("text", step.text), ("note", step.note)):
        for name in dict.fromkeys(facts.names(body)):
            try:
                facts.FACTS[name].value(view, numbers)
            except NoFact as why:
                found.append(f"{where}, {field}: {{{name}}} has no value at this step's settings: {why}.")
    wanted = view.controls.replay_step
    if step.page == "learn" and wanted is not None:
        try:
            saved = list(learn_run(view, numbers).steps)
        except NoFact as why:
            found.append(f"{where}, settings.replay: {why}.")
        else:
            if wanted not in saved:
                near = sorted(saved, key=lambda s: (abs(s - wanted), s))[:2]
                found.append(
                    f"{where}, settings.replay: {wanted} is not a saved step of this run. The nearest saved "
                    f"steps are {' and '.join(map(str, sorted(near)))}."
                )
    if step.question:
        asked = questions.ASKS.get(step.page)
        if asked is None:
            found.append(
                f"{where}, question: the page {step.page!r} has no poll question (the pages with one: "
                f"{', '.join(questions.ASKS)}). Set question = false."
            )
        else:
            try:
                asked.ask(view, numbers)
            except questions.Unanswerable as why:
                found.append(f"{where}, question: not asked at these settings: {why}")
    return found


def check(lesson: Lesson, numbers) -> Lesson:
    """The lesson, if every step's numbers can be had; else LessonError with every problem."""
    found = [p for i, step in enumerate(lesson.steps, start=1) for p in problems(step, i, numbers)]
    if found:
        raise LessonError(found)
    return lesson
