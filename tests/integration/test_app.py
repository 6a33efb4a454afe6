"""The real Chainlit app started with ``assess serve`` on a fresh data directory: first run builds the demo
data, then the chat page is served (browser behaviour is in tests/browser); importing the app's module starts
nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.browser import running_app


@pytest.fixture()
def app_url(isolated_data_dir: Path) -> Iterator[str]:
    with running_app(isolated_data_dir) as url:
        yield url


def test_app_serves_the_chat_page(app_url: str) -> None:
    page = httpx.get(app_url, timeout=10)
    assert page.status_code == 200 and "<title>Assessment Assistant</title>" in page.text


def test_importing_the_app_starts_no_turn_worker(isolated_data_dir: Path) -> None:
    """The turn workers start with the app (its startup), not when its module is imported: a test that imported it
    once started two workers on its own data directory, and the pool tests after it ran on an empty warehouse."""
    code = ("import multiprocessing, chat_app.app as app; "
            "print(len(multiprocessing.active_children()), app.turn_pool())")
    env = {k: v for k, v in os.environ.items() if k != "CHAINLIT_APP_ROOT"}  # as a test or a tool imports it
    out = subprocess.run([sys.executable, "-c", code], env={**env, "ASSESS_TURN_WORKERS": "2",
                                                            "ASSESS_DATA_DIR": str(isolated_data_dir)},
                         capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split()[-2:] == ["0", "None"]
