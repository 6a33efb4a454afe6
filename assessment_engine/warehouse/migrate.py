"""In-place migration of warehouses built before collections existed: the columns the ontology declares
but the file lacks are appended (their tables keep every row), and existing assessments and assets become
the fleet collection. A reader that finds columns missing has it run before it reads (``store.open_warehouse``)."""

from __future__ import annotations

import logging
from pathlib import Path

import duckdb

from assessment_engine.ontology import Ontology

log = logging.getLogger(__name__)
DEFAULTS = {("assessments", "collection"): "'fleet'", ("assets", "collection"): "'fleet'"}


def missing_columns(con: duckdb.DuckDBPyConnection, ontology: Ontology) -> list[tuple[str, str, str]]:
    """(table, column, type) the ontology declares and the database lacks, in declaration order."""
    present = {(t, c) for t, c in con.execute(
        "SELECT table_name, column_name FROM information_schema.columns").fetchall()}
    tables = {t for t, _ in present}
    return [(name, col, spec.type) for name, table in ontology.tables.items() if name in tables
            for col, spec in table.columns.items() if (name, col) not in present]


def migrate(path: Path, ontology: Ontology) -> list[str]:
    """Add what ``ontology`` declares and the file lacks; returns the columns added (empty when it is current)."""
    con = duckdb.connect(str(path))
    try:
        return migrate_open(con, path, ontology)
    finally:
        con.close()


def migrate_open(con: duckdb.DuckDBPyConnection, path: Path, ontology: Ontology) -> list[str]:
    """``migrate`` on a connection the caller holds (a writer's new version: one open of the file, not two)."""
    added = []
    for table, column, kind in missing_columns(con, ontology):
        default = DEFAULTS.get((table, column))
        con.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}" + (f" DEFAULT {default}" if default else ""))
        if default:
            con.execute(f"UPDATE {table} SET {column} = {default} WHERE {column} IS NULL")
        added.append(f"{table}.{column}")
    if added:
        con.execute("CHECKPOINT")
        log.info("migrated %s: added %s", path, ", ".join(added))
    return added
