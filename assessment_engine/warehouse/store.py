"""Warehouse backends behind one query interface: embedded DuckDB (default), SQLite (benchmark
baseline) and Trino (``ASSESS_WAREHOUSE_BACKEND=trino``).

All SQL in the project is written once in DuckDB's dialect with ``?`` placeholders; other
backends receive it transpiled by sqlglot. Readers open DuckDB read-only with external access
disabled and the configuration locked, so even a statement that slipped past the SQL guard could
not write, attach or read files.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import duckdb

from assessment_engine.ontology import Ontology
from assessment_engine.warehouse.migrate import migrate, missing_columns
from assessment_engine.warehouse.versions import current_file, version_stamp
from foundation.config import Settings

log = logging.getLogger(__name__)

# Every read-only DuckDB connection in a process must use the same configuration (DuckDB refuses a
# second configuration of an open file), so this is the one reader configuration.
READER_CONFIG: dict[str, str | bool | int | float | list[str]] = {"enable_external_access": False,
                                                               "lock_configuration": True}


def connect_reader(path: Path) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(path), read_only=True, config=READER_CONFIG)


class WarehouseUnavailable(RuntimeError):
    """The warehouse cannot be reached or has not been built; the message is for users."""


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


class Warehouse(Protocol):
    dialect: str

    def query(self, sql: str, params: Sequence[Any] = ()) -> QueryResult: ...


@lru_cache(maxsize=256)
def transpile(sql: str, dialect: str) -> str:
    """DuckDB-dialect SQL rewritten for ``dialect`` (cached: the tools reuse a handful of statements)."""
    if dialect == "duckdb":
        return sql
    import sqlglot  # imported for another engine only: the embedded one and the upload command never need it

    return sqlglot.transpile(sql, read="duckdb", write=dialect)[0]


class RecordingWarehouse:
    """A warehouse that lists every statement run through it, as the engine receives it (the trace shows a tool
    call's SQL, so the cost of a turn on a remote engine can be read off it). Thread-safe: ``query_all`` runs a
    tool's statements on several threads."""

    def __init__(self, inner: Warehouse) -> None:
        self.inner, self.dialect = inner, inner.dialect
        self._lock = threading.Lock()
        self.statements: list[str] = []
        self.params: list[list[Any]] = []

    def query(self, sql: str, params: Sequence[Any] = ()) -> QueryResult:
        with self._lock:  # a statement and its parameters stay side by side
            self.statements.append(transpile(sql, self.dialect))
            self.params.append(list(params))
        return self.inner.query(sql, params)


class DuckDBWarehouse:
    """Reads the published version of the warehouse (``versions.py``): before each query it looks whether a
    newer version was published and opens it for the queries that follow. A turn that runs across a publication
    may read both versions; a new version only adds an upload's own collection, so what a turn reads about its
    collection is the same in both."""

    dialect = "duckdb"

    def __init__(self, path: Path, timeout: float = 20.0) -> None:
        if not path.exists():
            raise WarehouseUnavailable(f"no assessment warehouse at {path}; run 'assess demo build' or 'make run'")
        self.path, self.timeout = path, timeout
        self._lock = threading.Lock()
        self._stamp = ""
        self._file: Path | None = None
        self._retired: list[duckdb.DuckDBPyConnection] = []
        self._con = self._open()

    def _open(self) -> duckdb.DuckDBPyConnection:
        current = current_file(self.path)
        if current == self._file:
            # rebuilt in place (``assess demo build``): DuckDB hands out the instance it has open for a path, so the
            # old file's connections go first — a query still running on them fails, as a rebuild under it would
            for old in [self._con, *self._retired]:
                old.close()
            self._retired = []
        self._file = current
        try:
            con = connect_reader(current)
        except duckdb.Error as exc:
            raise WarehouseUnavailable(f"the assessment warehouse at {self.path} cannot be opened: "
                                       f"{str(exc)[:300]}") from None
        self._stamp = version_stamp(self.path)
        return con

    def connection(self) -> duckdb.DuckDBPyConnection:
        """The connection to the newest published version (opened when one was published since the last call)."""
        with self._lock:
            if version_stamp(self.path) != self._stamp:
                fresh = self._open()
                # the previous connection may still serve a running query: closed one publication later
                for old in self._retired:
                    old.close()
                self._retired, self._con = [self._con], fresh
            return self._con

    def query(self, sql: str, params: Sequence[Any] = ()) -> QueryResult:
        cur = self.connection().cursor()  # one cursor per call: safe across the UI's worker threads
        watchdog = threading.Timer(self.timeout, cur.interrupt)  # DuckDB has no statement timeout of its own
        watchdog.daemon = True
        watchdog.start()
        try:
            cur.execute(sql, list(params))
            columns = [d[0] for d in cur.description or []]
            return QueryResult(columns, cur.fetchall())
        except duckdb.InterruptException:
            raise WarehouseUnavailable(f"the query ran longer than {self.timeout:g} s and was stopped; narrow the "
                                       "question (a site, a device type or a severity)") from None
        finally:
            watchdog.cancel()
            cur.close()

    def close(self) -> None:
        with self._lock:
            for con in [self._con, *self._retired]:
                con.close()
            self._retired = []


class SQLiteWarehouse:
    """Baseline for the benchmark: the same tables and queries on SQLite."""

    dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)

    def query(self, sql: str, params: Sequence[Any] = ()) -> QueryResult:
        with self._lock:
            cur = self._con.execute(transpile(sql, self.dialect), list(params))
            return QueryResult([d[0] for d in cur.description or []], cur.fetchall())

    def close(self) -> None:
        self._con.close()


class TrinoWarehouse:
    """The same queries against Trino through the official ``trino`` client."""

    dialect = "trino"

    def __init__(self, settings: Settings) -> None:
        import trino

        self._where = f"{settings.trino_host}:{settings.trino_port}"
        connect: Callable[..., Any] = trino.dbapi.connect  # the client library is untyped
        self._connect: Callable[[], Any] = lambda: connect(
            host=settings.trino_host, port=settings.trino_port, user=settings.trino_user,
            catalog=settings.trino_catalog, schema=settings.trino_schema, http_scheme=settings.trino_http_scheme,
            legacy_prepared_statements=False,
            session_properties={"query_max_run_time": f"{int(settings.query_timeout_seconds)}s"})

    def query(self, sql: str, params: Sequence[Any] = ()) -> QueryResult:
        import trino

        try:
            con = self._connect()
            cur = con.cursor()
            cur.execute(transpile(sql, self.dialect), list(params) or None)
            rows = [tuple(r) for r in cur.fetchall()]
            return QueryResult([d[0] for d in cur.description or []], rows)
        except (trino.exceptions.Error, OSError) as exc:
            raise WarehouseUnavailable(f"Trino at {self._where} is not reachable or refused the query: "
                                       f"{str(exc)[:300]}") from None

    def close(self) -> None:
        return None


def open_warehouse(settings: Settings, ontology: Ontology) -> Warehouse:
    """A reader of the configured warehouse. A DuckDB file built before the ontology's newest columns is brought up
    to date first (``migrate``): its reader looks, and only when columns are missing does a writer open it."""
    if settings.warehouse_backend == "trino":
        return TrinoWarehouse(settings)
    reader = DuckDBWarehouse(settings.warehouse_path, settings.query_timeout_seconds)
    if not missing_columns(reader.connection(), ontology):
        return reader
    reader.close()  # DuckDB opens a file one way per process: the reader goes before the writer comes
    try:
        migrate(current_file(settings.warehouse_path), ontology)
    except (duckdb.IOException, duckdb.ConnectionException) as exc:  # held by another process, which migrates it
        log.warning("the warehouse at %s could not be migrated here: %s", settings.warehouse_path, exc)
    return DuckDBWarehouse(settings.warehouse_path, settings.query_timeout_seconds)


class Warehouses:
    """The warehouse readers one owner keeps — the services of a process: one per backend and path, opened on first
    use and closed with the owner."""

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology
        self._lock = threading.Lock()
        self._open: dict[tuple[str, str], Warehouse] = {}

    def get(self, settings: Settings) -> Warehouse:
        key = (settings.warehouse_backend, str(settings.warehouse_path))
        with self._lock:
            if key not in self._open:
                self._open[key] = open_warehouse(settings, self.ontology)
            return self._open[key]

    def close(self) -> None:
        with self._lock:
            for warehouse in self._open.values():
                close = getattr(warehouse, "close", None)
                if close:
                    close()
            self._open.clear()


STATEMENT_THREADS = 4


def query_all(w: Warehouse, statements: Mapping[str, tuple[str, Sequence[Any]]]) -> dict[str, QueryResult]:
    """The independent statements of one tool call, run at the same time: name → result (the first error, in
    the order given, is raised as a serial run would raise it). DuckDB runs a statement outside the interpreter
    lock, and most of a small statement's time is planning, so one thread per statement spreads a tool call over
    the cores (the analysis of one site: 61 → 33 ms on 2 cores); a remote engine overlaps the round trips. The
    threads are the call's own (starting them costs tens of microseconds), so nothing outlives it or a fork."""
    with ThreadPoolExecutor(min(STATEMENT_THREADS, len(statements)) or 1,
                            thread_name_prefix="warehouse-statement") as pool:
        futures = {name: pool.submit(w.query, sql, params) for name, (sql, params) in statements.items()}
        return {name: future.result() for name, future in futures.items()}
