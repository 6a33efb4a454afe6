"""The real Chainlit app started with ``assess serve``: served over HTTP and driven in headless Chromium."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import ASSESS, TEST_OUTPUT, free_port

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture()
def app_url(isolated_data_dir: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([ASSESS, "serve", "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "ASSESS_DATA_DIR": str(isolated_data_dir)}, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/health", timeout=2).json() == {"status": "ok"}:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            raise AssertionError("the app did not become healthy in 90 s")
        yield url
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


def test_app_serves_the_chat_page(app_url: str) -> None:
    page = httpx.get(app_url, timeout=10)
    assert page.status_code == 200 and "<title>Assessment Assistant</title>" in page.text


@pytest.mark.browser
def test_question_shows_steps_and_answer_in_the_browser(app_url: str) -> None:
    from playwright.sync_api import sync_playwright

    TEST_OUTPUT.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(app_url)
            page.wait_for_selector("#chat-input", timeout=30_000)
            page.wait_for_timeout(1500)  # let the websocket session connect before sending
            page.fill("#chat-input", "What do the SLIC findings for DataCenter-1 mean given our internal policies?")
            page.click("#chat-submit")
            answer = page.locator("[data-step-type='assistant_message']").last
            answer.wait_for(timeout=60_000)
            page.wait_for_selector("text=Assessment graph", timeout=30_000)
            text = answer.inner_text()
            assert "SLIC" in text and "Sources" in text
            page.screenshot(path=str(TEST_OUTPUT / "smoke-answer.png"), full_page=True)
        finally:
            browser.close()
