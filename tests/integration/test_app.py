"""The real Chainlit app started with ``assess serve`` on a fresh data directory: first run builds the demo
data, then the chat page is served (browser behaviour is in test_browser.py)."""

from __future__ import annotations

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
