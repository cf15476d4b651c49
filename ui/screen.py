"""The browser's side of a phone: the screen a page is drawn on, and taps on big maps.

The server cannot see the screen, so a tiny inline component (st.components.v2: script only, no
HTML, no user text, nothing fetched) measures the main column in the browser and sends the result
back as a widget value, read by ui.inputs on the next run. It sends only when the measurement differs
from what the server drew with, and in buckets (widths in steps of STEP px, capped at the desktop
width), so a laptop or projector never causes an extra run and a resize only causes one when the
charts would change.

The same script lets a finger pick a cell on a map Vega paints on a canvas (from 1,024 cells). Vega
picks the item under the last pointer move, and a tap's pointer leaves the canvas (pointerout)
before the mouse events a tap ends with, so the tap's click found no cell. Before those mouse events
reach Vega, the script moves its pointer back to the tap.
"""
from __future__ import annotations

import streamlit as st

from ui import session

STEP = 16              # px: a width is sent rounded down to this step
STACK_PX = 640         # Streamlit stacks st.columns at this viewport width and below (its 'columns' breakpoint)
PHONE_GUESS = (352, True)   # a phone's first run, before it has measured: 390 px wide, the most common size

_JS = """
export default function ({ data, setStateValue }) {
  const main = document.querySelector("[data-testid='stMainBlockContainer']");
  if (!main) return;
  let sent = data.seen.join();
  const measure = () => {
    const style = getComputedStyle(main);
    const px = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const width = px >= data.cap ? data.cap : Math.max(data.step, Math.floor(px / data.step) * data.step);
    return [width, window.innerWidth <= data.stack];
  };
  const report = () => {
    const now = measure();
    if (now[0] > 0 && now.join() !== sent) { sent = now.join(); setStateValue("screen", now); }
  };
  let timer = 0;
  const later = () => { clearTimeout(timer); timer = setTimeout(report, 200); };
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
    """The value is read at the top of the next run (ui.inputs); nothing to do when it arrives."""


def watch(cap: int, seen: tuple[int, bool]) -> None:
    """Mount the measuring script (in the sidebar: it draws nothing, and takes no room in the page)."""
    with st.sidebar:
        _measure(key=session.SCREEN, data={"cap": cap, "seen": list(seen), "step": STEP, "stack": STACK_PX},
                 default={"screen": None}, on_screen_change=_ignore, height=0)


def phone_agent() -> bool:
    """The browser says it is a phone (its User-Agent names 'Mobi', as phone browsers' do)."""
    try:
        return "Mobi" in (st.context.headers.get("User-Agent") or "")
    except Exception:            # no browser behind this run (AppTest, a bare script)
        return False
