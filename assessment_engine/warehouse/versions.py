"""Published versions of the DuckDB warehouse, so that writing never disturbs anyone reading.

DuckDB lets one process write a file and nobody else open it meanwhile, so an upload cannot write into the
file the server's turns are reading. Instead a writer copies the current version, writes into the copy (nobody
reads it yet), checkpoints it and *publishes* it: ``warehouse.duckdb.current`` names the newest version and is
replaced atomically. Readers look at that pointer before each query and move to the new version for the next
turn; queries already running finish on the version they started with (its file stays readable after it is
unlinked). Writers — server uploads and the ``assess assess-configs`` CLI alike — take turns through an
exclusive file lock, so the CLI and a running server work at the same time.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb

from assessment_engine.ontology import Ontology
from assessment_engine.warehouse.migrate import migrate_open

LOCK_WAIT_SECONDS = 60.0


class WarehouseBusy(RuntimeError):
    """Another writer held the warehouse for longer than we wait; the message is for users."""


def pointer(path: Path) -> Path:
    return path.with_name(path.name + ".current")


def _version_files(path: Path) -> list[Path]:
    rx = re.compile(rf"^{re.escape(path.stem)}-v(\d+){re.escape(path.suffix)}$")
    return sorted((p for p in path.parent.glob(f"{path.stem}-v*{path.suffix}") if rx.match(p.name)),
                  key=lambda p: int(rx.match(p.name).group(1)))  # type: ignore[union-attr]


def current_file(path: Path) -> Path:
    """The published version of the warehouse at ``path`` (``path`` itself until a writer publishes one)."""
    marker = pointer(path)
    try:
        name = marker.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return path
    candidate = path.parent / name
    return candidate if name and candidate.exists() else path


def version_stamp(path: Path) -> str:
    """Changes whenever a new version is published or the file is rebuilt (cache keys use it)."""
    current = current_file(path)
    try:
        return f"{current.name}:{current.stat().st_mtime_ns}"
    except FileNotFoundError:
        return ""


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    lock_path = path.with_name(path.name + ".lock")
    with lock_path.open("a") as fh:
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise WarehouseBusy("another upload is still being written to the assessment warehouse; "
                                        "nothing was written, please try again") from None
                time.sleep(0.1)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@contextlib.contextmanager
def new_version(path: Path, ontology: Ontology) -> Iterator[duckdb.DuckDBPyConnection]:
    """A writable copy of the current version (with the columns of ``ontology``); published when the block ends
    without an exception."""
    with _exclusive(path):
        _sweep_staging(path)
        source = current_file(path)
        versions = _version_files(path)
        number = int(re.findall(r"-v(\d+)", versions[-1].name)[-1]) + 1 if versions else 1
        target = path.parent / f"{path.stem}-v{number:06d}{path.suffix}"
        staging = target.with_name(target.name + f".tmp{os.getpid()}")
        shutil.copyfile(source, staging)
        try:
            con = duckdb.connect(str(staging))
            try:
                migrate_open(con, staging, ontology)  # a version copied from an older file gains the current columns
                yield con
                con.execute("CHECKPOINT")
            finally:
                con.close()
            os.replace(staging, target)
            marker = pointer(path)
            tmp_marker = marker.with_name(marker.name + f".tmp{os.getpid()}")
            tmp_marker.write_text(target.name, encoding="utf-8")
            os.replace(tmp_marker, marker)
        finally:
            staging.unlink(missing_ok=True)
        for old in _version_files(path)[:-2]:  # readers of older ones keep their open file until they move on
            old.unlink(missing_ok=True)


def _sweep_staging(path: Path) -> None:
    """Staging copies and pointer files a writer killed mid-write left behind (each a full copy of the warehouse).
    Called under the writers' lock: no writer is running, so every one found is dead."""
    for leftover in [*path.parent.glob(f"{path.stem}-v*{path.suffix}.tmp*"), *path.parent.glob(f"{path.name}.current.tmp*")]:
        leftover.unlink(missing_ok=True)


def discard_versions(path: Path) -> None:
    """Forget published versions (the file at ``path`` was rebuilt from scratch)."""
    pointer(path).unlink(missing_ok=True)
    for old in _version_files(path):
        old.unlink(missing_ok=True)
