"""The phone without a browser: which width a run draws for, the sidebar's first state, stacked
columns, one equation a line, and charts that fit a phone's column (tests/test_phone.py drives the
real thing in Chromium)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conftest import assert_clean, open_app
from ui.page import layout
from ui.shell import frame, inputs, screen, session, site, url


# ----------------------------------------------------------------------------------- the screen
@pytest.mark.parametrize(
    "sent, cookie, agent, cap, expected",
    [
        (None, None, "Mozilla/5.0 (X11; Linux x86_64) Chrome/126", 790, (790, False)),  # a laptop
        (None, None, "Mozilla/5.0 (iPhone) Mobile/15E148 Safari", 790, (320, True)),  # a phone's first visit
        (None, "352x1", "Mozilla/5.0 (iPhone) Mobile/15E148 Safari", 790, (352, True)),  # remembered
        ([352, True], "320x1", "iPhone Mobi", 790, (352, True)),  # measured now
        ([1100, False], None, "", 790, (790, False)),  # capped
        ([4, True], None, "", 790, (790, False)),  # not a real column
        (None, "12x1;x", "Mobi", 790, (320, True)),  # a bad cookie
        (None, "1100x0", "", 1100, (1100, False)),  # presenter view
    ],
)
def test_a_run_draws_for_the_measured_remembered_or_guessed_screen(monkeypatch, sent, cookie, agent, cap, expected):
    context = SimpleNamespace(cookies={screen.COOKIE: cookie} if cookie else {}, headers={"User-Agent": agent})
    monkeypatch.setattr(screen.st, "context", context)
    monkeypatch.setattr(session, "screen", lambda: tuple(sent) if sent else None)
    monkeypatch.setattr(session, "screen_guess", lambda guess: guess())  # no session here: guessed each call
    assert inputs.screen(cap) == expected


def test_the_screen_is_guessed_once_a_session(monkeypatch):
    """The guess reads the request's cookie and User-Agent: on a session's first run, not on every run before the
    browser has measured (a websocket client never does)."""
    asked = []
    monkeypatch.setattr(screen, "guess", lambda: asked.append(1) or screen.PHONE_GUESS)
    at = open_app(site.file("inputs"))
    at.slider(key=session.FIELD.seq_len).set_value(6).run()
    assert_clean(at)
    assert len(asked) == 1
    assert at.session_state[session.FIELD.seq_len] == 6


def test_the_phone_guess_fits_the_narrowest_phone():
    width, stacked = screen.PHONE_GUESS
    assert stacked and width <= screen.PHONE_PX - screen.PADDING_PX and width % screen.STEP == 0


def test_every_run_mounts_the_screen_measure():
    at = open_app(site.file("inputs"))
    assert_clean(at)
    assert session.SCREEN in [e.key for e in at.get("bidi_component")]


@pytest.mark.parametrize(
    "params, expected",
    [({}, "auto"), ({"present": "1"}, "collapsed"), ({"sidebar": "1"}, "expanded"), ({"sidebar": "0"}, "auto")],
)
def test_the_sidebar_starts_collapsed_on_a_narrow_screen_unless_asked(params, expected):
    controls, problems = url.from_params(params)
    assert not problems and frame.sidebar_state(controls) == expected
    assert url.to_params(controls) == {k: v for k, v in params.items() if v == "1"}  # a lecturer's link keeps it


# ----------------------------------------------------------------------------------- the layout
def test_stacked_columns_are_each_the_full_width(monkeypatch):
    monkeypatch.setattr(layout.st, "columns", lambda shares, **_: [object() for _ in shares])
    wide = SimpleNamespace(width=790, stacked=False)
    phone = SimpleNamespace(width=352, stacked=True)
    assert [c.width for c in layout.columns(wide, [3, 2])] == pytest.approx([(790 - 17) * 0.6, (790 - 17) * 0.4])
    assert [c.width for c in layout.columns(phone, [3, 2])] == [352, 352]


def test_two_wide_maps_go_one_under_the_other_at_the_full_width(monkeypatch):
    monkeypatch.setattr(layout.st, "columns", lambda shares, **_: [object() for _ in shares])
    monkeypatch.setattr(layout.st, "container", object)
    wide = SimpleNamespace(width=790, stacked=False)
    cols, area = layout.two_maps(wide, layout.WIDE_MAP)  # d_model 32: side by side, as before
    assert [c.width for c in cols] == pytest.approx([(790 - 17) / 2] * 2) and area == 230
    cols, area = layout.two_maps(wide, layout.WIDE_MAP + 1)  # wider: each the full width
    assert [c.width for c in cols] == [790, 790] and area == 790


def test_a_formula_is_one_equation_a_line_on_a_phone():
    assert layout.formula_lines(r"Q = X W_Q,\qquad K = X W_K,\qquad V = X W_V") == [
        "Q = X W_Q,",
        "K = X W_K,",
        "V = X W_V",
    ]
    inside = r"\text{a \qquad b},\qquad c"  # only a top-level gap splits
    assert layout.formula_lines(inside) == [r"\text{a \qquad b},", "c"]
    assert layout.formula_lines(r"a \qquadx b") == [r"a \qquadx b"]


def test_on_a_phone_a_quad_before_another_equation_starts_a_line_and_a_note_stays():
    mask = r"M_{ij} = 0\ (j \le i),\quad M_{ij} = -\infty\ (j > i)\quad\text{(the causal mask)}"
    assert layout.formula_lines(mask, equations=True) == [
        r"M_{ij} = 0\ (j \le i),",
        r"M_{ij} = -\infty\ (j > i)\quad\text{(the causal mask)}",
    ]
    assert layout.formula_lines(mask) == [mask]  # a laptop: one line, one group
    assert layout.formula_lines(r"x = \text{attn}\quad(\text{residual})", equations=True) == [
        r"x = \text{attn}\quad(\text{residual})"
    ]
    assert layout.formula_lines(r"a = \frac{b}{c\quad d = e},\qquad f = g\quad h = i", equations=True) == [
        r"a = \frac{b}{c\quad d = e},",
        "f = g",
        "h = i",
    ]  # inside braces: no line


def test_a_wide_screen_wraps_a_formula_between_equations_never_right_after_an_equals_sign():
    assert (
        layout._kept(r"\theta = (E, \text{a = b}) = \frac{x=y}{2}")
        == r"\theta =\nobreak  (E, \text{a = b}) =\nobreak  \frac{x=y}{2}"
    )  # only the top-level '='
    assert (
        layout._kept(r"a + (X + P) - \big(b - c\big) + d") == r"a + (X +\nobreak  P) - \big(b -\nobreak  c\big) + d"
    )  # no break inside a bracket
    assert layout._equations(r"Q = X W_Q,\quad K = X W_K\quad(\text{residual})") == [
        "Q = X W_Q,",
        r" K = X W_K\quad(\text{residual})",
    ]
