"""Shared fixtures: every test gets its own data directory; the real bundled model is loaded once."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestration.config import PROJECT_ROOT, get_settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
UPSTREAM_CASES = PROJECT_ROOT.parent / "shared" / "eval" / "upstream_cases.json"
OWN_CASES = PROJECT_ROOT / "evals" / "cases.json"
TEST_OUTPUT = PROJECT_ROOT / "test-output"
# The console script installed beside the interpreter running the tests (the venv need not be activated).
ASSESS = str(Path(sys.executable).with_name("assess"))


@pytest.fixture(autouse=True)
def isolated_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No test touches the real data directory."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    monkeypatch.setenv("ASSESS_DATA_DIR", str(data_dir))
    get_settings.cache_clear()
    yield data_dir
    get_settings.cache_clear()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
