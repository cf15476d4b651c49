"""Any link opens the app: whatever a student types, a chat app mangles or a bot sends as query parameters,
url.from_params reads it without raising, reports each problem in a sentence, and gives controls the frame
can draw (their config and training validate). The URL written back from them is a fixed point: it reads
back to the same controls, with nothing to report. (The malformed cases a student meets are checked one by
one, on the page, in tests/test_app.py; this is the property over every key and any text.)"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies

import engine
from ui.shell import presets, state, url

KEYS = [url.URL_KEY.get(key, key) for key in state.KEYS] + ["utm_source", "page"]  # every link key, and strangers

# Values near what the readers accept (numbers at and past each range, pairs, the presets and tasks by name)
# and anything at all: text with HTML, controls, other scripts, huge or odd numbers.
NEAR = strategies.one_of(
    strategies.integers(-3, 70_000).map(str),
    strategies.sampled_from(
        [
            "",
            " ",
            "1",
            "0",
            "true",
            "no",
            "nan",
            "inf",
            "-inf",
            "1e9",
            "0x10",
            "٣",
            "2,3",
            "9,9",
            "0.0,1.1",
            "3.15,0.0",
            "1.1,1.1,",
            ",",
            "1.",
            ".1",
            "0.25",
            "1e-3",
            "<b>x</b>",
            "a\x00b",
            "%20",
        ]
    ),
    strategies.sampled_from(presets.names() + list(engine.TASKS)),
    strategies.lists(strategies.tuples(strategies.integers(-1, 5), strategies.integers(-1, 20)), max_size=5).map(
        lambda pairs: ",".join(f"{a}.{b}" for a, b in pairs)
    ),
    strategies.floats(allow_nan=True, allow_infinity=True).map(repr),
)
ANY = strategies.one_of(NEAR, strategies.text(max_size=300))
PARAMS = strategies.dictionaries(strategies.sampled_from(KEYS), ANY, max_size=12)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PARAMS)
def test_any_query_parameters_give_drawable_controls_and_a_url_that_reads_back(params):
    controls, problems = url.from_params(params)
    assert all(isinstance(p, str) and p for p in problems)
    state.to_config(controls)  # the engine's own validation passes
    state.to_training(controls)
    assert controls.preset in presets.names() and len(controls.text) <= state.MAX_TEXT
    if controls.ablate:
        assert list(controls.ablate) == sorted(set(controls.ablate))
    written = url.to_params(controls)
    again, more = url.from_params(written)
    assert again == controls and more == [], (written, more)
