"""``assess bench replicas``: 20 concurrent chat sessions against one replica of the app, then dealt round robin
over two replicas, in the same run, both on the shared deployment of docs/DEPLOY.md — one PostgreSQL (conversation
memory, chat history, knowledge base), one warehouse file, one elements folder, one app secret.

The comparison keeps the machine's turn capacity equal: one replica with two turn workers against two replicas with
one each (and, separately, two replicas with two each); the embedded default (one replica on SQLite) is the
baseline. On one host both share its cores, so the
figure says what a second replica costs or gains here — the coordination through PostgreSQL, a second server
process — not what a second machine would add. Without ``--database-url`` a throwaway PostgreSQL 15 cluster is
started (Debian's binaries) and stopped at the end."""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from assessment_engine.warehouse.build import build_demo_warehouse
from benchmarks.chat import burst, free_port, serve, warm
from benchmarks.postgres import fresh_database, throwaway_cluster
from orchestration.services import build_services


def _folder(label: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in label)


@contextmanager
def _database(url: str | None) -> Iterator[str]:
    if url:
        yield url
        return
    with throwaway_cluster(free_port()) as server:
        yield server


CONFIGURATIONS = [  # label, turn workers per replica, on PostgreSQL (else the embedded SQLite files)
    ("1 replica x 2 workers, SQLite", [2], False),
    ("1 replica x 2 workers", [2], True),
    ("2 replicas x 1 worker", [1, 1], True),
    ("2 replicas x 2 workers", [2, 2], True),
]


def replicas(sessions: int = 20, questions: int = 5, timeout: float = 120, database_url: str | None = None,
             report: Callable[[str], None] = print) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="assess-replicas-"))
    try:
        build_demo_warehouse(root / "warehouse.duckdb", build_services().catalog)
        results: dict[str, Any] = {}
        with _database(database_url) as server:
            for label, workers, shared_database in CONFIGURATIONS:
                shared = {"CHAINLIT_AUTH_SECRET": secrets.token_urlsafe(48),
                          "ASSESS_WAREHOUSE_FILE": str(root / "warehouse.duckdb"),
                          "ASSESS_ELEMENTS_DIR": str(root / _folder(label) / "elements")}
                if shared_database:
                    shared["ASSESS_DATABASE_URL"] = fresh_database(server)
                with ExitStack() as stack:
                    servers = [stack.enter_context(serve(root / _folder(label) / f"replica-{i}",
                                                         {**shared, "ASSESS_TURN_WORKERS": str(n)}, timeout=timeout * 2))
                               for i, n in enumerate(workers)]
                    for replica in servers:
                        warm(replica, timeout)
                    report(f"{label}: ready")
                    results[label] = burst(servers, sessions, questions, timeout, f"{sessions} sessions", report)
        return results
    finally:
        shutil.rmtree(root, ignore_errors=True)
