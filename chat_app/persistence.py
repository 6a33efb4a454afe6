"""Chat history for the UI: Chainlit's SQLAlchemy data layer on a SQLite file in the data directory.

Chainlit ships no SQLite DDL, so the schema is created here (the documented tables plus the columns
Chainlit 2.12 writes, e.g. ``autoCollapse`` and ``modes``). The project's own memory store keeps the
turns themselves; this file only holds what the Chainlit UI shows in its thread list and on resume. Element
bodies go to a storage client (``chat_app/storage.py``) so that resumed threads show them as live.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from chainlit.data.storage_clients.base import BaseStorageClient

SCHEMA = """
CREATE TABLE IF NOT EXISTS users ("id" TEXT PRIMARY KEY, "identifier" TEXT NOT NULL UNIQUE, "metadata" TEXT NOT NULL,
    "createdAt" TEXT);
CREATE TABLE IF NOT EXISTS threads ("id" TEXT PRIMARY KEY, "createdAt" TEXT, "name" TEXT, "userId" TEXT,
    "userIdentifier" TEXT, "tags" TEXT, "metadata" TEXT, FOREIGN KEY ("userId") REFERENCES users("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS steps ("id" TEXT PRIMARY KEY, "name" TEXT NOT NULL, "type" TEXT NOT NULL, "threadId" TEXT NOT NULL,
    "parentId" TEXT, "streaming" BOOLEAN NOT NULL, "waitForAnswer" BOOLEAN, "isError" BOOLEAN, "metadata" TEXT, "tags" TEXT,
    "input" TEXT, "output" TEXT, "createdAt" TEXT, "command" TEXT, "start" TEXT, "end" TEXT, "generation" TEXT,
    "showInput" TEXT, "language" TEXT, "indent" INT, "defaultOpen" BOOLEAN, "autoCollapse" BOOLEAN, "modes" TEXT,
    "icon" TEXT, FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS elements ("id" TEXT PRIMARY KEY, "threadId" TEXT, "type" TEXT, "url" TEXT, "chainlitKey" TEXT,
    "name" TEXT NOT NULL, "display" TEXT, "objectKey" TEXT, "size" TEXT, "page" INT, "language" TEXT, "forId" TEXT,
    "mime" TEXT, "props" TEXT, "autoPlay" BOOLEAN, "playerConfig" TEXT,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS feedbacks ("id" TEXT PRIMARY KEY, "forId" TEXT NOT NULL, "threadId" TEXT NOT NULL,
    "value" INT NOT NULL, "comment" TEXT, FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
"""


def ensure_schema(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    try:
        con.executescript(SCHEMA)
        con.execute("PRAGMA journal_mode=WAL")
    finally:
        con.close()
    return path


def make_data_layer(path: Path, storage: BaseStorageClient | None = None):  # type: ignore[no-untyped-def]
    """Threads, steps and elements in SQLite; element bodies (citations, charts, files) in ``storage``."""
    from chainlit.data.sql_alchemy import SQLAlchemyDataLayer

    return SQLAlchemyDataLayer(conninfo=f"sqlite+aiosqlite:///{ensure_schema(path)}", storage_provider=storage)
