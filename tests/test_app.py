"""The real Chainlit app started with ``assess serve`` on a fresh data directory: first run builds the demo
data, then the chat page is served (browser behaviour is in test_browser.py)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import ASSESS, free_port


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
