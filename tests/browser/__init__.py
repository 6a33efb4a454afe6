"""Shared pieces of the browser tests: the real app on a free port, Debian's Chromium, and page helpers."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import ASSESS, TEST_OUTPUT, free_port

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


# One turn worker per test server: still the worker pool of production (a process of its own that answers the turns),
# but one warm-up of the model instead of two on this 2-core machine, which also runs Chromium and pytest. The
# pool's concurrency is tested with two workers in tests/integration/test_turn_pool.py and tests/integration/test_faults.py.
TEST_SERVER_WORKERS = "1"


RUNNING: dict[str, subprocess.Popen[bytes]] = {}  # url -> server process, for tests that kill a server outright


def kill_app(url: str) -> None:
    """The server and every process it started, killed without a chance to finish anything (a power cut)."""
    proc = RUNNING[url]
    os.killpg(proc.pid, 9)
    proc.wait(timeout=30)


@contextmanager
def running_app(data_dir: Path, **env: str) -> Iterator[str]:
    env = {"ASSESS_TURN_WORKERS": TEST_SERVER_WORKERS, **env}
    port = free_port()
    log = (TEST_OUTPUT / f"app-{port}.log")
    TEST_OUTPUT.mkdir(exist_ok=True)
    proc = subprocess.Popen([ASSESS, "serve", "--host", "127.0.0.1", "--port", str(port)], stdout=log.open("w"),
                            stderr=subprocess.STDOUT, env={**os.environ, "ASSESS_DATA_DIR": str(data_dir), **env},
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/health", timeout=2).json() == {"status": "ok"}:
                    break
            except (httpx.HTTPError, ValueError):
                time.sleep(0.5)
        else:
            raise AssertionError(f"the app did not become healthy; log: {log.read_text()[-2000:]}")
        RUNNING[url] = proc
        yield url
    finally:
        RUNNING.pop(url, None)
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
            proc.wait(timeout=30)


@contextmanager
def demo_app(demo_warehouse_dir: Path, tmp_path_factory: Any, name: str) -> Iterator[tuple[str, Path]]:
    """The app on a private copy of the demo data (a module's server): its address and data directory."""
    import shutil

    data = tmp_path_factory.mktemp(name)
    shutil.copytree(demo_warehouse_dir, data, dirs_exist_ok=True)
    with running_app(data) as url:
        yield url, data


def launch(pw: Any) -> Any:
    return pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def open_chat(browser: Any, url: str, path: str = "/") -> Any:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url + path)
    page.wait_for_selector("#chat-input", timeout=60_000)
    page.wait_for_timeout(1500)  # let the websocket session connect before sending
    return page


def wait_for_answers(page: Any, more_than: int, timeout: int = 90_000) -> None:
    """Until the page shows more than ``more_than`` assistant messages. A function, not an expression: the page's CSP
    refuses eval, which Playwright uses to poll an expression string."""
    page.wait_for_function("n => document.querySelectorAll(\"[data-step-type='assistant_message']\").length > n",
                           arg=more_than, timeout=timeout)


def send(page: Any, text: str, timeout: int = 90_000) -> Any:
    before = page.locator("[data-step-type='assistant_message']").count()
    page.fill("#chat-input", text)
    page.click("#chat-submit")
    wait_for_answers(page, before, timeout)
    page.wait_for_timeout(1000)
    return page.locator("[data-step-type='assistant_message']").last


def shot(page: Any, name: str) -> None:
    TEST_OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(TEST_OUTPUT / f"{name}.png"), full_page=True)


def login(browser: Any, url: str, user: str, password: str) -> Any:
    """A new browser context logged in as ``user`` (password auth), on the chat page."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(url)
    page.fill("#email", user)
    page.fill("#password", password)
    page.keyboard.press("Enter")
    page.wait_for_selector("#chat-input", timeout=60_000)
    page.wait_for_timeout(1500)
    return page


def scripted_session(page: Any) -> None:
    """A session that touches every kind of content the page shows: a chart, a citation opened in the side panel,
    an export, and a reload of the thread."""
    send(page, "Show breakdown of configuration best practice deviations by severity, technology, and OS.")
    page.wait_for_selector(".js-plotly-plot", timeout=30_000)
    send(page, "How should I configure SNMP v3 according to our company standards?")
    page.locator("[data-step-type='assistant_message'] .element-link").first.click()
    page.wait_for_timeout(1000)
    send(page, "/export md")
    page.reload()
    page.wait_for_selector("#chat-input", timeout=60_000)
