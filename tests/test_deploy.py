"""Two replicas behind HAProxy (deploy/replicas.py), driven through the proxy in headless Chromium.

One browser session, loopback only: the page opens through HAProxy, which pins it to one replica
with its SRV cookie; a slider move lands in the URL; the CSV and .npz downloads (files the serving
replica keeps in memory under /media/) come back through the proxy; then that replica is killed
(SIGKILL, a crash). The frontend reconnects through HAProxy to the other replica, the page keeps its
view and works there: a slider move runs on the new replica, a reload restores the view from the
URL, and the download works again.

What Streamlit does after such a failover (1.67; see deploy/README.md): the reconnected page keeps
what it drew and does not run the script by itself (the frontend asks the server to resume its old
session, which the other process does not have, so a new empty one is made). The next action runs
it on the new replica; the app reads a new session's controls from the URL.

Skipped without Chromium, Playwright or haproxy, unless REQUIRE_BROWSER=1 (CI), where that fails.
Two quick checks without a browser: the generated HAProxy configs pass `haproxy -c`, and the
committed compose config is the template's current rendering.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

from conftest import require
from deploy import replicas
from harness import browser as bs

SEQ = "seq_len"
ARTIFACTS = bs.ARTIFACTS / "deploy"


@pytest.fixture(scope="module", autouse=True)
def haproxy():
    require(None if replicas.haproxy_path() else "haproxy is not installed (apt-get install -y haproxy)")


@pytest.fixture
def cluster():
    """Two replicas and HAProxy on free loopback ports; stopped by their PIDs whatever happens."""
    run_dir = Path(tempfile.mkdtemp(prefix="lab-deploy-"))  # short: the stats socket's path
    port, *ports = bs.free_ports(3)
    lab = replicas.Cluster(2, port=port, replica_ports=ports, run_dir=run_dir)
    try:
        yield lab.start(timeout=60)
    finally:
        lab.stop()
        shutil.rmtree(ARTIFACTS / "logs", ignore_errors=True)
        (ARTIFACTS / "logs").mkdir(parents=True, exist_ok=True)
        for log in run_dir.glob("*.log"):
            shutil.copy(log, ARTIFACTS / "logs" / log.name)
        shutil.rmtree(run_dir, ignore_errors=True)


# --------------------------------------------------------------------------------------- helpers
def affinity(context) -> str | None:
    """The replica HAProxy's SRV cookie names in the browser."""
    return next((c["value"] for c in context.cookies() if c["name"] == replicas.COOKIE), None)


def connection_state(page) -> str:
    return page.locator("[data-testid='stApp']").get_attribute("data-test-connection-state") or ""


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def download(page, label: str, base: str) -> bytes:
    """Click a download button; the file must come through the proxy (its /media/ URL)."""
    with page.expect_download(timeout=30_000) as info:
        page.get_by_role("button", name=label).click()
    assert info.value.url.startswith(base + "/media/"), info.value.url
    return Path(info.value.path()).read_bytes()


def csv_rows(data: bytes) -> list[list[str]]:
    """The rows of the CSV export's first matrix (X on the Inputs page), header first."""
    lines = data.decode().splitlines()
    assert lines[0] == "# X", lines[:2]
    block = lines[1 : lines.index("")] if "" in lines else lines[1:]
    return [line.split(",") for line in block]


def assert_view(page, seq_len: int) -> None:
    """The page shows seq_len tokens: slider, URL, the X chart's rows; no exception element."""
    assert page.locator("[data-testid='stException']").count() == 0, page.locator(
        "[data-testid='stException']"
    ).all_inner_texts()
    assert bs.slider_value(page, SEQ) == seq_len
    assert query(page).get(SEQ) == str(seq_len)
    rows = [shape[0] for shape in bs.chart_shapes(page).values()]
    assert rows and rows[0] == seq_len, rows


def settle_after(page, runs, action) -> None:
    before = runs.finished
    action()
    bs.settle(page, runs, before, timeout=60)


# ---------------------------------------------------------------------------------- the configs
def test_compose_config_is_the_template_rendered():
    assert replicas.COMPOSE_CONFIG.read_text() == replicas.render_compose(), (
        "regenerate it: python deploy/replicas.py config --compose > deploy/haproxy-compose.cfg"
    )


def test_generated_configs_pass_haproxy_check(tmp_path):
    if replicas.haproxy_path() is None:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail("REQUIRE_BROWSER=1 but haproxy is not installed", pytrace=False)
        pytest.skip("haproxy is not installed (apt-get install -y haproxy)")
    local = tmp_path / "haproxy.cfg"
    local.write_text(
        replicas.render_local("0.0.0.0", 8500, [("r1", 8501), ("r2", 8502), ("r3", 8503)], tmp_path / "haproxy.sock")
    )
    replicas.check_config(local)
    # The compose config reads the cookie key from the environment and refuses to load without it.
    replicas.check_config(replicas.COMPOSE_CONFIG, env={**os.environ, replicas.SECRET_ENV: "0" * 64})
    with pytest.raises(RuntimeError, match="dynamic-cookie-key"):
        replicas.check_config(
            replicas.COMPOSE_CONFIG, env={k: v for k, v in os.environ.items() if k != replicas.SECRET_ENV}
        )


# ------------------------------------------------------------------------------------------ browser
@pytest.mark.browser
def test_each_replicas_queue_workers_have_ids_of_their_own(cluster):
    """Two processes' workers under one executor id would each take back, on starting, the jobs the other had begun:
    each replica's ATTENTION_LAB_REPLICA is its own (services/jobrunner.py names its workers from it)."""
    names = []
    for proc in cluster.replicas:
        env = dict(
            line.split("=", 1) for line in Path(f"/proc/{proc.pid}/environ").read_text().split("\0") if "=" in line
        )
        names.append(env.get("ATTENTION_LAB_REPLICA"))
    assert (
        all(names) and len(set(names)) == 2 and all(n.endswith(f"-{p.name}") for n, p in zip(names, cluster.replicas))
    )


def test_two_replicas_sticky_downloads_and_failover(playwright, cluster):
    with bs.chromium(playwright, accept_downloads=True) as context:
        bs.instrument(context)
        page = context.new_page()
        runs = bs.Runs(page)
        page_errors: list[str] = []
        sockets: list[str] = []
        page.on("pageerror", lambda exc: page_errors.append(str(exc)))
        page.on("websocket", lambda ws: sockets.append(ws.url))

        page.goto(cluster.url + "/")
        runs.wait_for(page, 1, timeout=60)
        bs.wait_ready(page, timeout=60)
        served = affinity(context)
        assert served in ("r1", "r2"), context.cookies()
        other = "r2" if served == "r1" else "r1"
        stats = cluster.stats()
        assert int(stats[served]["scur"]) >= 1 and stats[other]["scur"] == "0", (
            "the page's websocket is on the replica its cookie names"
        )

        thumb = bs.slider(page, SEQ)
        settle_after(page, runs, lambda: (thumb.focus(), thumb.press("ArrowRight")))
        assert_view(page, 5)

        # Downloads: made by the replica that holds the session, fetched by the browser over HTTP.
        bs.open_expander(page, runs, bs.EXPORTS)
        rows = csv_rows(download(page, "Matrices (CSV)", cluster.url))
        assert len(rows) == 1 + 5 and len(rows[0]) == 1 + 16, rows
        assert [row[0] for row in rows[1:5]] == ["AI", "builds", "neural", "models"]
        trace = np.load(io.BytesIO(download(page, "Whole trace (.npz)", cluster.url)))
        assert trace["x"].shape == (5, 16) and list(trace["labels"][:4]) == ["AI", "builds", "neural", "models"]

        # The replica dies. HAProxy sends the reconnecting frontend to the other one.
        cluster.kill(served)
        deadline = time.monotonic() + 30
        while not (len(sockets) >= 2 and connection_state(page) == "CONNECTED"):
            assert time.monotonic() < deadline, f"no reconnect within 30 s ({connection_state(page)})"
            page.wait_for_timeout(100)
        assert affinity(context) == other
        cluster.wait_status(served, "DOWN", timeout=10)
        assert int(cluster.stats()[other]["scur"]) >= 1
        assert_view(page, 5)  # the drawn view is kept, the controls too

        # The first action runs the script on the new replica, in a new session. The app reads a
        # new session's controls from the URL (seq_len=5); a frontend that sent its own slider value
        # would give 6. Either way slider, URL and charts agree, and nothing breaks.
        settle_after(page, runs, lambda: (thumb.focus(), thumb.press("ArrowRight")))
        now = bs.slider_value(page, SEQ)
        assert now in (5, 6)
        assert_view(page, now)
        page.screenshot(path=str(ARTIFACTS / "after-failover.png"), full_page=True)

        before = runs.finished  # a reload: a new session, its view from the URL
        page.reload()
        runs.wait_for(page, before + 1, timeout=60)
        bs.wait_ready(page, timeout=60)
        assert affinity(context) == other
        assert_view(page, now)
        bs.open_expander(page, runs, bs.EXPORTS)
        rows = csv_rows(download(page, "Matrices (CSV)", cluster.url))
        assert len(rows) == 1 + now, rows
        assert not page_errors, page_errors
