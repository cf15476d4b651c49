"""The phone without a browser: which width a run draws for, the sidebar's first state, stacked
columns, one equation a line, and charts that fit a phone's column (tests/test_phone.py drives the
real thing in Chromium)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conftest import assert_clean, open_app
from ui.charts import spec as sp
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
    assert inputs.screen(cap) == expected


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


# ----------------------------------------------------------------------------------- the charts
def drawn_width(size: sp.Size, row_chars: int, col_chars: int, tilted: bool, width: float) -> float:
    """The chart's width as fit() reckons it: the y axis, the cells, and the legend or last label."""
    font = sp.font(False)
    limit = sp.label_limit(width)
    left = sp.text_px(row_chars, font, limit) + 2 * font + 22
    reach = sp.TILT * sp.text_px(col_chars, font, limit) if tilted else sp.text_px(col_chars, font, limit) / 2
    right = reach + 5 if size.below else max(sp.legend_px(font), reach + 5)
    return max(left + size.width + right, left + size.below + 15)


@pytest.mark.parametrize("width", [320, 326, 352, 380])
@pytest.mark.parametrize("n", [2, 4, 8, 16, 64])
@pytest.mark.parametrize("chars", [1, 5, 12])
def test_a_heatmap_fits_a_phones_column(width, n, chars):
    tilted = sp.tilt(["x" * chars] * n)
    size = sp.fit(n, n, chars, chars, tilted, True, False, width, 560)
    assert drawn_width(size, chars, chars, tilted, width) <= width + 1
    assert not size.below or width < sp.NARROW  # the legend goes below only in a narrow chart


@pytest.mark.parametrize("width", [386, 464, 790, 1100])
def test_a_laptops_columns_keep_the_legend_beside_and_long_labels(width):
    size = sp.fit(16, 16, 8, 8, True, True, False, width, 560)
    assert size.below == 0 and sp.label_limit(width) == sp.LABEL_LIMIT


@pytest.mark.parametrize("width,n_cols", [(326, 256), (358, 256), (358, 512)])  # 360- and 390-px phones
@pytest.mark.parametrize("rows,chars", [(4, 5), (16, 9), (64, 12)])
def test_a_wide_map_fits_a_phones_column(width, n_cols, rows, chars):
    """Issue 47: the block output page's T × d_ff map of the English text preset (256 hidden units) ran ~25 px past
    a 390-px phone's edge, its cells held at 1 px each; a wider map now scales its picture below 1 px a cell
    (each cell still its own device pixels on a 3× screen), the legend below, and keeps every token's row."""
    cols = [str(c) for c in range(n_cols)]
    tilted = sp.tilt(cols)
    size = sp.fit(rows, n_cols, chars, len(cols[-1]), tilted, True, False, width, 600)
    assert drawn_width(size, chars, len(cols[-1]), tilted, width) <= width + 1
    assert size.cell >= sp.MIN_CELL and size.below  # as wide as fits, the legend below
    assert rows * sp.ROW_MIN_PX > sp.MAX_HEIGHT or size.row >= sp.ROW_MIN_PX  # every token's label, where they fit


@pytest.mark.parametrize("width", [326, 356, 386, 790])
@pytest.mark.parametrize("heads", [4, 8, 16])
def test_the_head_history_s_legend_fits_its_chart(width, heads):
    """Issue 47: on the Learn page of the English text preset (8 heads) the legend of 'which head locked on when'
    drew two columns of 'layer 0 head 0: on the previous token' and ran ~170 px past a phone's edge. Its
    columns and labels now fit the chart's width beside the plot; a laptop keeps two columns."""
    from ui.charts import run_charts as lc

    names = [f"layer {layer} head {head}: on the previous token" for layer in range(2) for head in range(heads // 2)]
    legend = lc.history_legend(names, width, False)
    per_column = sp.text_px(max(map(len, names)), legend["labelFontSize"], legend["labelLimit"]) + lc.LEGEND_SYMBOL
    assert lc.LEGEND_LEFT + legend["columns"] * per_column <= width
    assert legend["labelFontSize"] >= sp.LABEL_FONT_MIN
    assert legend["columns"] == (2 if width >= 700 else 1)
    assert sp.text_px(max(map(len, names)), legend["labelFontSize"], 10_000) <= legend["labelLimit"]  # nothing cut
