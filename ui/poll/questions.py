"""Every page's poll question, registered with its page (importing this module registers them all): the
mechanism is ui/poll/asking.py, each question lives in its page's folder, ui/sections/<page>/question.py.
Adding a question is that file and one import line here. Pure Python."""

from __future__ import annotations

from ui.poll.asking import ASKS, MAX_OPTIONS, Asked, Asks, Unanswerable, asks, step_qid, title, who  # noqa: F401
from ui.sections.exercise.question import exercise_prediction  # noqa: F401
from ui.sections.scores.question import CANDIDATES, scores_spread  # noqa: F401
from ui.sections.softmax.question import EVEN, softmax_top_key  # noqa: F401
