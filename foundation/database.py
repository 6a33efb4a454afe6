"""One database URL for what the product remembers: a SQLite file (the embedded default) or PostgreSQL (several
replicas share it), behind the few operations the memory store needs.

The store writes portable SQL with ``?`` placeholders; a connection here runs it on either engine. What differs
is kept in this module: how a connection is opened (SQLite: a new connection per operation, WAL, waiting for a
writer; PostgreSQL: psycopg 3 connections pooled by SQLAlchemy, one pool per URL kept by the ``Databases`` of the process's
services, renewed after a fork), how
a writer takes its lock (SQLite ``BEGIN IMMEDIATE`` locks the file; PostgreSQL a transaction-scoped advisory
lock on the name given, so writers to different conversations never wait for each other), and which errors
mean "this database cannot be used" (``DatabaseUnavailable``, worded for users, the URL's password hidden).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine, make_url


class DatabaseUnavailable(RuntimeError):
    def __init__(self, where: str, reason: str, remedy: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where, self.reason, self.remedy = where, reason, remedy


class Connection(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...
    def script(self, sql: str) -> None: ...
    def begin_exclusive(self, name: str) -> None: ...
    def rollback(self) -> None: ...
    def close(self) -> None: ...


class _SQLite:
    """A sqlite3 connection in autocommit mode; transactions are begun explicitly."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.con.execute(sql, tuple(params))

    def script(self, sql: str) -> None:
        for statement in _statements(sql):
            self.con.execute(statement)

    def begin_exclusive(self, name: str) -> None:
        self.con.execute("BEGIN IMMEDIATE")  # one writer for the file; ``name`` needs no lock of its own

    def rollback(self) -> None:
        if self.con.in_transaction:
            self.con.execute("ROLLBACK")

    def close(self) -> None:
        self.con.close()


class _Postgres:
    """A pooled psycopg 3 connection in autocommit mode; ``?`` placeholders become ``%s``."""

    def __init__(self, con: Any) -> None:
        self.con = con

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.con.cursor().execute(sql.replace("?", "%s"), tuple(params))

    def script(self, sql: str) -> None:
        for statement in _statements(sql):
            self.execute(statement)

    def begin_exclusive(self, name: str) -> None:
        self.execute("BEGIN")
        self.execute("SELECT pg_advisory_xact_lock(?)", (zlib.crc32(name.encode()),))

    def rollback(self) -> None:
        self.execute("ROLLBACK")

    def close(self) -> None:
        self.con.close()  # back to the pool


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


@dataclass
class Database:
    url: str  # as given, the password included: never shown (``where`` hides it)
    dialect: str
    where: str
    path: Path | None = None
    engine: Engine | None = None
    _readers: threading.local = field(default_factory=threading.local, repr=False, compare=False)

    def connect(self) -> Connection:
        try:
            if self.path is not None:
                return _SQLite(_sqlite_connection(self.path))
            assert self.engine is not None
            return _Postgres(self.engine.raw_connection())
        except Exception as exc:
            raise self.unavailable(exc) or exc from None

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection for reads. On SQLite each thread keeps one (opening one costs about a millisecond, as much
        as a keyword search; in WAL mode every statement still sees the last commit of any writer)."""
        if self.path is not None:
            kept = getattr(self._readers, "con", None)
            if kept is None or self._readers.pid != os.getpid():  # never a connection inherited through fork
                kept = self._readers.con = self.connect()
                self._readers.pid = os.getpid()
            yield kept
            return
        con = self.connect()
        try:
            yield con
        finally:
            con.close()

    @contextmanager
    def writing(self, lock: str) -> Iterator[Connection]:
        """One transaction, committed when the block ends and rolled back when it raises; writers that give the
        same ``lock`` name wait for each other (on SQLite every writer does)."""
        con = self.connect()
        try:
            con.begin_exclusive(lock)
            yield con
            con.execute("COMMIT")
        except BaseException:
            con.rollback()
            raise
        finally:
            con.close()

    def unavailable(self, exc: BaseException) -> DatabaseUnavailable | None:
        """``exc`` as "this database cannot be used" for users (a corrupt file, no permission, a server that does
        not answer or refuses the credentials), or None for any other error."""
        if isinstance(exc, DatabaseUnavailable):
            return exc
        if isinstance(exc, sqlite3.DatabaseError | OSError):
            return DatabaseUnavailable(self.where, str(exc)[:120], "move the file aside to start a fresh one")
        if type(exc).__module__.startswith(("psycopg", "sqlalchemy")):
            return DatabaseUnavailable(self.where, (str(exc).splitlines() or [""])[0][:160],
                                       "check ASSESS_DATABASE_URL and that the server runs")
        return None


def _sqlite_connection(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path, timeout=60, isolation_level=None, check_same_thread=False)
    con.execute("PRAGMA busy_timeout=60000")
    for attempt in range(1, 41):
        # switching a new file to WAL needs the database to itself; SQLite answers "locked" at once
        # (no busy wait) while another process migrates it, so wait here instead
        try:
            con.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == 40:
                con.close()
                raise
            time.sleep(0.05 * attempt)
    con.execute("PRAGMA synchronous=NORMAL")
    return con


class Databases:
    """The databases one owner opens — the services of a process: one connection pool per PostgreSQL URL, made on
    first use and kept with the owner (a forked process opens its own), and the stores already brought up to date in
    them. ``open_database`` without one makes a pool of its own (a test, a one-off command)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._engines: dict[tuple[str, int], Engine] = {}
        self.migrated: set[str] = set()  # the stores migrated by this owner, by identity (``MemoryStore``)

    def engine(self, url: str) -> Engine:
        key = (url, os.getpid())
        with self.lock:
            if key not in self._engines:
                parsed = make_url(url).set(drivername="postgresql+psycopg")
                engine = create_engine(parsed, pool_size=5, max_overflow=10, pool_pre_ping=True)
                event.listen(engine, "connect", _autocommit)
                self._engines[key] = engine
            return self._engines[key]


def _autocommit(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.autocommit = True  # transactions are begun explicitly, as on SQLite


def open_database(url: str, databases: Databases | None = None) -> Database:
    """The database at ``url``: ``sqlite:///path`` or ``postgresql://user:password@host:port/name``; on PostgreSQL
    through the pool ``databases`` keeps for it (without: a pool of its own)."""
    parsed = make_url(url)
    where = parsed.render_as_string(hide_password=True)
    if parsed.get_backend_name() == "sqlite":
        if not parsed.database:
            raise DatabaseUnavailable(where, "a SQLite URL needs a file path", "use sqlite:///path/to/file")
        return Database(url, "sqlite", parsed.database, path=Path(parsed.database))
    if parsed.get_backend_name() == "postgresql":
        return Database(url, "postgresql", where, engine=(databases or Databases()).engine(url))
    raise DatabaseUnavailable(where, f"the engine {parsed.get_backend_name()!r} is not supported",
                              "use a sqlite:/// or postgresql:// URL")
