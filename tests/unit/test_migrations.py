"""Every store with a schema changes it one way (foundation/migrations.py): ordered steps, each applied once and
recorded in the store's own table, all or nothing. The memory store, the knowledge index and the chat history use
it; a database from before the pattern is brought up to date without losing a row."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chat_app.persistence import MIGRATIONS_TABLE as CHAT_TABLE
from chat_app.persistence import ensure_schema
from chat_app.persistence import steps as chat_steps
from foundation import migrations
from foundation.database import Connection, open_database
from knowledge_base.index import DIALECT, SCHEMA, KnowledgeIndex
from knowledge_base.index import MIGRATIONS_TABLE as KNOWLEDGE_TABLE
from knowledge_base.index import steps as knowledge_steps
from orchestration.memory.store import MIGRATIONS, MIGRATIONS_TABLE, MemoryStore


def _versions(path: Path, table: str) -> list[int]:
    with sqlite3.connect(path) as con:
        return [r[0] for r in con.execute(f"SELECT version FROM {table} ORDER BY version")]


def test_each_step_runs_once_and_a_failing_step_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'store.sqlite'}")
    ran: list[str] = []

    def second(con: Connection) -> None:
        ran.append("second")
        con.execute("INSERT INTO t VALUES (2)")

    steps = [migrations.script("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)"), second]
    with db.writing("test") as con:
        assert migrations.apply(con, steps, "test_migrations") == [1, 2]
    with db.writing("test") as con:
        assert migrations.apply(con, steps, "test_migrations") == []  # nothing twice
    assert ran == ["second"]

    def broken(con: Connection) -> None:
        con.execute("INSERT INTO t (x) VALUES (3)")
        raise RuntimeError("step 4 fails")

    with pytest.raises(RuntimeError, match="step 4 fails"), db.writing("test") as con:
        migrations.apply(con, [*steps, migrations.script("ALTER TABLE t ADD COLUMN y TEXT"), broken],
                         "test_migrations")
    with db.reading() as con:  # step 3 was rolled back with step 4: neither is recorded, no row 3, no column y
        assert migrations.version(con, "test_migrations") == 2
        assert con.execute("SELECT * FROM t ORDER BY x").fetchall() == [(1,), (2,)]
    with pytest.raises(ValueError, match="not a table name"), db.writing("test") as con:
        migrations.apply(con, steps, "t; DROP TABLE t")


def test_every_store_records_its_steps_in_a_table_of_its_own(tmp_path: Path) -> None:
    memory = MemoryStore(path=tmp_path / "memory.sqlite", quota_bytes=1_000_000)
    assert memory.schema_version() == len(MIGRATIONS)
    assert _versions(tmp_path / "memory.sqlite", MIGRATIONS_TABLE) == list(range(1, len(MIGRATIONS) + 1))
    KnowledgeIndex(tmp_path / "kb", dimension=8)
    assert _versions(tmp_path / "kb" / "chunks.sqlite", KNOWLEDGE_TABLE) == list(
        range(1, len(knowledge_steps("sqlite")) + 1))
    ensure_schema(f"sqlite:///{tmp_path / 'chainlit.sqlite'}")
    assert _versions(tmp_path / "chainlit.sqlite", CHAT_TABLE) == list(range(1, len(chat_steps("sqlite")) + 1))


def test_a_knowledge_index_from_before_the_pattern_keeps_its_rows_and_loses_its_retired_tables(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    with sqlite3.connect(folder / "chunks.sqlite") as con:  # what the index wrote before: no migrations table
        con.executescript(SCHEMA.format(**DIALECT["sqlite"]) + ";\nCREATE TABLE chunk_terms (term TEXT);")
        con.execute("INSERT INTO documents VALUES ('old.md', 1, 'alice', '2026-11-01', 3)")
    KnowledgeIndex(folder, dimension=8)
    with sqlite3.connect(folder / "chunks.sqlite") as con:
        assert con.execute("SELECT source, chunks FROM documents").fetchall() == [("old.md", 3)]
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "chunk_terms" not in tables and KNOWLEDGE_TABLE in tables
