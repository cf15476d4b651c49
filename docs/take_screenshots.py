"""Screenshots for the README: every page at 1280×800, and two on a phone (390×844 at 3× pixels, touch).

    python docs/take_screenshots.py [folder] [name ...]

Starts the app on a free local port, opens each page in Debian's headless Chromium, saves
<folder>/<name>.png (default docs/screenshots; all names unless some are given), and stops the server.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = {  # file name -> (path and query of the view, pixels to scroll)
    "inputs": ("/", 0),
    "qkv": ("/qkv", 0),
    "scores": ("/scores?cell=0,2", 0),
    "softmax": ("/softmax?preset=day33", 0),
    "heads": ("/heads?seq_len=6", 0),
    "output": ("/output", 250),
    "exercise": ("/exercise?preset=day33", 0),
    "experiments": ("/experiments", 600),
    "presenter": ("/softmax?present=1&cell=0,2", 0),
    "heads-64": ("/heads?seq_len=64&d_model=128&heads=16", 0),
    "trained-softmax": ("/softmax?preset=trained-previous", 0),  # trains the block once, server-wide
    "learn": ("/learn", 0),  # ... so the Learn page shows its replay
    "model": ("/model?preset=trained-induction", 500),
    "model-64": ("/model?layers=4&heads=16&d_model=128&seq_len=64", 0),
    "learn-induction": ("/learn?preset=trained-induction", 600),
    "learn-induction-heads": ("/learn?preset=trained-induction", 1250),
    "model-text": ("/model?preset=trained-text", 500),
}
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1"
)
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "has_touch": True,
    "is_mobile": True,
    "user_agent": IPHONE,
}
PHONE_SHOTS = {  # file name -> (path and query, what to scroll to the top or None)
    "phone-scores": ("/scores?preset=day33&seq_len=6&cell=5,3", ".st-key-scores_maps"),
    "phone-heads": ("/heads?seq_len=8", "[data-testid='stVegaLiteChart']:has-text('head 0')"),
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    args = sys.argv[1:]
    wanted = {a for a in args if a in SHOTS or a in PHONE_SHOTS}  # none named: every shot
    folders = [a for a in args if a not in wanted]
    out = Path(folders[0]) if folders else OUT
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "streamlit_app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        out.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(
                tempfile.mkdtemp(),
                executable_path="/usr/bin/chromium",
                headless=True,
                args=FLAGS,
                viewport={"width": 1280, "height": 800},
            )
            page = ctx.new_page()
            page.goto(f"http://127.0.0.1:{port}/")  # the server's first session
            page.wait_for_selector("[data-testid='stVegaLiteChart'] svg", timeout=60000)
            for name, (path, scroll) in SHOTS.items():
                if wanted and name not in wanted:
                    continue
                page = ctx.new_page()
                page.goto(f"http://127.0.0.1:{port}{path}")
                page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
                page.wait_for_selector("[data-testid='stVegaLiteChart'] svg", timeout=60000)
                if name.startswith("learn-induction"):
                    train = page.get_by_role("button", name="Train")
                    if train.count():
                        train.click()
                    page.wait_for_selector(".st-key-learn_grid [data-testid='attention-map-scrub']", timeout=120000)
                    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
                if name == "exercise":
                    page.get_by_role("button", name="Reveal now (lecturer)").click()
                    page.wait_for_timeout(1500)
                    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
                    page.get_by_text("You revealed without choosing a prediction.").evaluate(
                        "e => e.scrollIntoView({block: 'start'})"
                    )
                page.wait_for_timeout(1000)
                if scroll:
                    page.mouse.move(800, 400)
                    page.mouse.wheel(0, scroll)
                    page.mouse.move(5, 795)  # no chart toolbar under the pointer
                page.wait_for_timeout(1000)
                page.screenshot(path=str(out / f"{name}.png"))
                print("saved", out / f"{name}.png")
                page.close()
            ctx.close()
            phone = p.chromium.launch_persistent_context(
                tempfile.mkdtemp(), executable_path="/usr/bin/chromium", headless=True, args=FLAGS, **PHONE
            )
            for name, (path, top) in PHONE_SHOTS.items():
                if wanted and name not in wanted:
                    continue
                page = phone.new_page()
                page.goto(f"http://127.0.0.1:{port}{path}")
                page.wait_for_selector("[data-testid='stVegaLiteChart'] svg", timeout=60000)
                page.wait_for_timeout(1500)  # a first visit is measured: one more run
                page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
                page.wait_for_timeout(1500)
                if top:
                    page.locator(top).first.evaluate(  # below Streamlit's fixed header
                        "e => { e.scrollIntoView({block: 'start'}); "
                        "document.querySelector(\"[data-testid='stMain']\").scrollBy(0, -70); }"
                    )
                    page.wait_for_timeout(800)
                page.screenshot(path=str(out / f"{name}.png"))
                print("saved", out / f"{name}.png")
                page.close()
            phone.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
