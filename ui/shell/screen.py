"""The browser's side of a phone: the screen a page is drawn on, and taps on big maps.

The server cannot see the screen, so a tiny inline component (st.components.v2: script only, no
HTML, no user text, nothing fetched) measures the main column in the browser and sends the result
back as a widget value, read by ui.shell.inputs on the next run. It sends only when the measurement differs
from what the server drew with, and in buckets (widths in steps of STEP px, capped at the desktop
width), so a laptop or projector never causes an extra run and a resize only causes one when the
charts would change. It also keeps the measurement in a first-party cookie (COOKIE: two numbers,
read by the server only), so the next visit from the same browser (a reload, a deep link, a new
tab) is drawn at the right width on its very first run.

Before anything was measured (a browser's first visit), a phone's browser (its User-Agent says
'Mobi') is drawn for the narrowest phone laid out for (PHONE_GUESS: 360 px), which fits every phone
from 360 px up; a wider phone then costs one more run to grow its charts. Any other browser is drawn
for the desktop.

The same script lets a finger pick a cell on a map Vega paints on a canvas (from 1,024 cells). Vega
picks the item under the last pointer move, and a tap's pointer leaves the canvas (pointerout)
before the mouse events a tap ends with, so the tap's click found no cell. Before those mouse events
reach Vega, the script moves its pointer back to the tap.
"""

from __future__ import annotations

import re

import streamlit as st

from ui.shell import session

STEP = 16  # px: a width is sent rounded down to this step
MIN_PX = 160  # px: no main column is laid out narrower (a value below is not believed)
STACK_PX = 640  # Streamlit stacks st.columns at this viewport width and below (its 'columns' breakpoint)
PADDING_PX = 34  # the main column's side padding on a narrow screen (1rem each side)
PHONE_PX = 360  # the narrowest phone laid out for
PHONE_GUESS = ((PHONE_PX - PADDING_PX) // STEP * STEP, True)  # (320, True): fits any phone from 360 px
COOKIE = "attention_lab_screen"  # "<px>x<0|1>": the last measurement, for this browser's next first run

_JS = """
export default function ({ data, setStateValue }) {
  const main = document.querySelector("[data-testid='stMainBlockContainer']");
  if (!main) return;
  let sent = data.seen;
  const measure = () => {
    const style = getComputedStyle(main);
    const px = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const width = px >= data.cap ? data.cap : Math.max(data.step, Math.floor(px / data.step) * data.step);
    return [width, window.innerWidth <= data.stack];
  };
  const report = () => {
    const now = measure();
    if (!(now[0] > 0)) return;
    document.cookie = `${data.cookie}=${now[0]}x${now[1] ? 1 : 0}; path=/; max-age=31536000; SameSite=Strict`;
    if (now.join() !== sent) { sent = now.join(); setStateValue("screen", now); }
  };
  let timer = 0;
  const later = () => { clearTimeout(timer); timer = setTimeout(report, 150); };
  const watch = new ResizeObserver(later);
  watch.observe(main);
  later();
  let touched = -1e9;
  const down = (e) => { if (e.pointerType === "touch") touched = e.timeStamp; };
  const press = (e) => {        // the mouse events a tap ends with: point Vega at the tapped item again
    if (e.timeStamp - touched > 1000 || e.target.tagName !== "CANVAS"
        || !e.target.closest("[data-testid='stVegaLiteChart']")) return;
    e.target.dispatchEvent(new PointerEvent("pointermove", {clientX: e.clientX, clientY: e.clientY, bubbles: true}));
  };
  document.addEventListener("pointerdown", down, true);
  document.addEventListener("mousedown", press, true);
  return () => {
    clearTimeout(timer);
    watch.disconnect();
    document.removeEventListener("pointerdown", down, true);
    document.removeEventListener("mousedown", press, true);
  };
}
"""

_measure = st.components.v2.component("attention_lab_screen", js=_JS)


def _ignore() -> None:
    """The value is read at the top of the next run (ui.shell.inputs); nothing to do when it arrives."""


def watch(cap: int, seen: tuple[int, bool]) -> None:
    """Mount the measuring script (in the sidebar: it draws nothing, and takes no room in the page)."""
    with st.sidebar:
        # Plain values only (`seen` as the text the script compares): a list would make Streamlit ask
        # whether it is a dataframe, which imports pandas (0.34 s of a fresh server's first page).
        _measure(
            key=session.SCREEN,
            data={
                "cap": cap,
                "seen": f"{seen[0]},{str(seen[1]).lower()}",
                "step": STEP,
                "stack": STACK_PX,
                "cookie": COOKIE,
            },
            default={"screen": None},
            on_screen_change=_ignore,
            height=0,
        )


def believable(width: int, stacked: bool) -> tuple[int, bool] | None:
    """A measurement as the server uses it (a width below MIN_PX is not a real main column)."""
    return (int(width), bool(stacked)) if width >= MIN_PX else None


def remembered() -> tuple[int, bool] | None:
    """This browser's last measurement (the cookie the script keeps), or None."""
    try:
        raw = st.context.cookies.get(COOKIE)
    except Exception:  # no browser behind this run (a bare script)
        return None
    match = re.fullmatch(r"(\d{2,5})x([01])", raw) if isinstance(raw, str) else None  # AppTest: not a str
    return believable(int(match.group(1)), match.group(2) == "1") if match else None


def phone_agent() -> bool:
    """The browser says it is a phone (its User-Agent names 'Mobi', as phone browsers' do)."""
    try:
        agent = st.context.headers.get("User-Agent")
    except Exception:  # no browser behind this run (a bare script)
        return False
    return isinstance(agent, str) and "Mobi" in agent


def guess() -> tuple[int, bool] | None:
    """The screen before this session measured it: remembered, else a phone's; None: a desktop's."""
    return remembered() or (PHONE_GUESS if phone_agent() else None)
