"""Shared fixtures: every test gets its own data directory; the real bundled model is loaded once."""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assessment_engine.warehouse.build import build_demo_warehouse
from foundation.config import PROJECT_ROOT, get_settings, using_data_dir
from knowledge_base.ingest import ensure_seed_index
from orchestration.services import Services, build_services
from tests.catalog import BUNDLED

os.environ.setdefault("HF_HUB_OFFLINE", "1")
UPSTREAM_CASES = PROJECT_ROOT.parent / "shared" / "eval" / "upstream_cases.json"
OWN_CASES = PROJECT_ROOT / "evals" / "cases.json"
TEST_OUTPUT = PROJECT_ROOT / "test-output"
FIXTURES = Path(__file__).parent / "fixtures"  # shared by the tiers (tests/unit, tests/integration, tests/browser)
# The console script installed beside the interpreter running the tests (the venv need not be activated).
ASSESS = str(Path(sys.executable).with_name("assess"))


def _use_data_dir(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> None:
    monkeypatch.setenv("ASSESS_DATA_DIR", str(data_dir))


@pytest.fixture(autouse=True)
def isolated_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No test touches the real data directory."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    monkeypatch.delenv("ASSESS_DATABASE_URL", raising=False)  # tests choose their database themselves
    _use_data_dir(monkeypatch, data_dir)
    yield data_dir


@pytest.fixture(scope="session")
def first_services() -> Services:
    """The session's first services: every test's ``services`` share their router and frame reader (built from the
    bundled contracts, corpus and model, not from the data; 0.1 s a test otherwise)."""
    return build_services()


@pytest.fixture()
def services(request: pytest.FixtureRequest, first_services: Services) -> Iterator[Services]:
    """Services over the test's data directory — built after the fixture that chose it (``demo_warehouse``,
    ``writable_warehouse``, ``database_backend``), whatever the order of the test's arguments, and closed after the
    test. A test that changes the settings afterwards builds its own."""
    for chooser in ("writable_warehouse", "demo_warehouse", "database_backend", "trino_server"):
        if chooser in request.fixturenames:
            request.getfixturevalue(chooser)
    built = build_services(get_settings(), reuse=first_services)
    yield built
    built.close()


@pytest.fixture(scope="session")
def demo_warehouse_dir(tmp_path_factory: pytest.TempPathFactory, first_services: Services) -> Path:
    """The default demo data — warehouse (150 devices, 4 runs) and the seed knowledge base — built once
    per test session; read-only for tests (``writable_warehouse`` gives a private copy)."""
    data_dir = tmp_path_factory.mktemp("demo-data")
    build_demo_warehouse(data_dir / "warehouse.duckdb", BUNDLED)
    with using_data_dir(data_dir):
        ensure_seed_index(build_services(reuse=first_services).knowledge())
    # everything in the index file itself: copies (``writable_warehouse``) take the file, not a WAL still open here
    with sqlite3.connect(data_dir / "knowledge_index" / "chunks.sqlite") as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return data_dir


@pytest.fixture()
def demo_warehouse(demo_warehouse_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the settings at the shared demo warehouse."""
    _use_data_dir(monkeypatch, demo_warehouse_dir)
    yield demo_warehouse_dir / "warehouse.duckdb"


@pytest.fixture()
def writable_warehouse(demo_warehouse_dir: Path, isolated_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the demo data (warehouse and knowledge index) for tests that write."""
    target = isolated_data_dir / "warehouse.duckdb"
    shutil.copy(demo_warehouse_dir / "warehouse.duckdb", target)
    shutil.copytree(demo_warehouse_dir / "knowledge_index", isolated_data_dir / "knowledge_index",
                    ignore=shutil.ignore_patterns("*-wal", "*-shm"))  # checkpointed above; a copied -shm misleads
    _use_data_dir(monkeypatch, isolated_data_dir)
    return target


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server for the tests: ``ASSESS_TEST_POSTGRES_URL``, else a throwaway cluster started now and
    stopped at the end of the session."""
    from benchmarks.postgres import throwaway_cluster

    if os.environ.get("ASSESS_TEST_POSTGRES_URL"):
        yield os.environ["ASSESS_TEST_POSTGRES_URL"]
        return
    with throwaway_cluster(free_port()) as url:
        yield url


@pytest.fixture()
def postgres_url(postgres_server: str) -> str:
    """A new empty database on the test server (tests never share one)."""
    from benchmarks.postgres import fresh_database

    return fresh_database(postgres_server)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The product database's engine for this test (``ASSESS_DATABASE_URL``); for PostgreSQL a new database on the
    test server, set in the environment so that the processes a test starts use it too."""
    if request.param == "postgresql":
        monkeypatch.setenv("ASSESS_DATABASE_URL", request.getfixturevalue("postgres_url"))
    return str(request.param)


@pytest.fixture(scope="session")
def auth_app(demo_warehouse_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One app server with password auth (alice, bob) on a copy of the demo data, shared by the browser tests of
    isolation and of hostile uploads (a server start is about half a minute of this machine's two cores). Each test
    logs in afresh — a new browser context, a new thread — and asserts only on what its own users did there; tests
    that lock a user out (login throttling) keep servers of their own."""
    from tests.browser import running_app

    data = tmp_path_factory.mktemp("auth-data")
    shutil.copytree(demo_warehouse_dir, data, dirs_exist_ok=True)
    with running_app(data, ASSESS_AUTH_ENABLED="true", ASSESS_USERS="alice:wonderland,bob:builder") as url:
        yield url, data


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, for a module of browser tests."""
    from playwright.sync_api import sync_playwright

    from tests.browser import launch

    with sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


def free_port() -> int:
    """A free port on 127.0.0.1 that no other process of this test run was given: a server binds its port seconds
    after it is chosen, and meanwhile the kernel may offer the same free port to a parallel worker, whose health check
    would then reach the other's server (a login answered by a server without sign-in). The ports given are listed
    in a file of the run, under a lock."""
    import fcntl
    import tempfile

    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", str(os.getpid()))
    given = Path(tempfile.gettempdir()) / f"assess-test-ports-{run}"
    with given.open("a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        taken = set(fh.read().split())
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = int(s.getsockname()[1])
            if str(port) not in taken:
                fh.write(f"{port}\n")
                return port
