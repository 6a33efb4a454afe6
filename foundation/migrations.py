"""One way every store with a schema changes it: an ordered list of steps, each applied once per database and
recorded in a table of the store's own, inside one exclusive transaction — so processes and replicas that start
together apply each step once, and a step that fails leaves the database as it was.

A new column or table is a new step at the end of the store's list (never an edit of an applied one): the memory
store (``orchestration/memory/store.py``), the knowledge index (``knowledge_base/index.py``) and the chat history
(``chat_app/persistence.py``) each keep theirs. (The assessment warehouse is read-only for turns and versioned by
file; its columns follow the ontology instead: ``assessment_engine/warehouse/migrate.py``.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from foundation.database import Connection

Step = Callable[[Connection], None]
_TABLE = re.compile(r"^[a-z_][a-z0-9_]*$")


def script(sql: str) -> Step:
    """A step that runs the statements of ``sql``."""
    return lambda con: con.script(sql)


def apply(con: Connection, steps: Sequence[Step], table: str) -> list[int]:
    """Run the steps not yet recorded in ``table`` (step n is version n), in order, on ``con`` — which the caller has
    opened with ``begin_exclusive`` and commits; the versions applied now."""
    if not _TABLE.match(table):
        raise ValueError(f"not a table name: {table!r}")
    con.execute(f"CREATE TABLE IF NOT EXISTS {table} (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    done = {int(r[0]) for r in con.execute(f"SELECT version FROM {table}").fetchall()}
    applied = []
    for version, step in enumerate(steps, start=1):
        if version not in done:
            step(con)
            con.execute(f"INSERT INTO {table} (version, applied_at) VALUES (?, ?)",
                        (version, datetime.now(UTC).isoformat(timespec="seconds")))
            applied.append(version)
    return applied


def version(con: Connection, table: str) -> int:
    """The last step applied (0 for a database none was applied to)."""
    if not _TABLE.match(table):
        raise ValueError(f"not a table name: {table!r}")
    return int(con.execute(f"SELECT MAX(version) FROM {table}").fetchone()[0] or 0)
