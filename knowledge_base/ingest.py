"""Ingestion: files -> loaders -> structure-aware chunks -> embeddings -> the knowledge index.

The Python API the UI and ``assess ingest`` both call. Per-file outcomes: chunks added, duplicates
skipped (by content hash — re-ingesting a file adds nothing), a previous version replaced (same file
name, new content), or a clear error; one bad file never stops the batch. Progress is reported per
file through a callback.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from knowledge_base.loaders import IngestError, load_file
from knowledge_base.service import SEED_CORPUS, get_index, index_has_chunks
from knowledge_base.splitter import split_documents

log = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]
MAX_CHUNKS_PER_FILE = 2_000  # ~1 MB of prose; more is a data dump, not a standard


@dataclass
class FileResult:
    name: str
    status: Literal["added", "replaced", "duplicate", "error"]
    chunks_added: int = 0
    duplicates: int = 0
    message: str = ""


@dataclass
class IngestReport:
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def chunks_added(self) -> int:
        return sum(f.chunks_added for f in self.files)

    @property
    def duplicates_skipped(self) -> int:
        return sum(f.duplicates for f in self.files)

    @property
    def errors(self) -> list[FileResult]:
        return [f for f in self.files if f.status == "error"]

    @property
    def chunks_per_second(self) -> float:
        return self.chunks_added / self.seconds if self.seconds else 0.0


def expand(paths: Iterable[Path]) -> list[Path]:
    """Files named directly, plus every file under named folders (unsupported ones are reported later). Links
    are not followed inside a folder: a link to /etc/passwd in an ingested folder must not become knowledge."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            root = path.resolve()
            out += sorted(p for p in path.rglob("*") if not p.is_symlink() and p.is_file() and not p.name.startswith(".")
                          and root in p.resolve().parents)
        else:
            out.append(path)
    return out


def owned_name(name: str, owner: str | None) -> str:
    """The stored name of a document: a user's upload is ``<owner>/<file name>``, so it can never replace a
    shared document (or another user's) of the same file name; shared documents keep their file name."""
    return f"{owner}/{name}" if owner else name


def ingest_file(path: Path, display_name: str | None = None, owner: str | None = None) -> FileResult:
    """Add one file. ``owner``: the user who uploaded it — only they retrieve it; None: shared with everyone."""
    from knowledge_base.embeddings import get_embedder

    name = owned_name(display_name or path.name, owner)
    index = get_index()
    version, ingested_at = index.next_version(name), datetime.now(UTC).isoformat(timespec="seconds")
    try:
        docs = load_file(path, name)
        for doc in docs:  # who added which version when: citations name the version they quote
            doc.metadata.update({"uploaded_by": owner or "", "version": str(version), "ingested_at": ingested_at})
        chunks = split_documents(docs)
    except IngestError as exc:
        return FileResult(name, "error", message=str(exc))
    except Exception as exc:  # splitting a hostile text (e.g. pathological markdown) must not end the batch
        log.exception("splitting %s failed", name)
        return FileResult(name, "error", message=f"{name}: could not be split into chunks ({type(exc).__name__})")
    if not chunks:
        return FileResult(name, "error", message=f"{name}: no text could be extracted")
    if len(chunks) > MAX_CHUNKS_PER_FILE:
        return FileResult(name, "error", message=f"{name}: {len(chunks):,} chunks is over the {MAX_CHUNKS_PER_FILE:,} "
                                                 "limit for one document; split it")
    # duplicates are judged against what this owner can see: another user's private copy is not a reason to skip
    known = {h: s for h, s in index.known_hashes().items() if "/" not in s or (owner and s.startswith(f"{owner}/"))}
    mine = {h for h, src in known.items() if src == name}
    new_hashes = {c.content_hash for c in chunks}
    if new_hashes == mine:
        return FileResult(name, "duplicate", duplicates=len(chunks), message=f"{name}: already in the knowledge base")
    replaced = bool(mine)
    elsewhere = {h: s for h, s in known.items() if s != name}
    fresh = [c for c in chunks if c.content_hash not in elsewhere]
    if replaced and not fresh:  # a "new version" that only repeats other documents would just delete this one
        others = sorted({elsewhere[c.content_hash] for c in chunks})
        return FileResult(name, "error", duplicates=len(chunks),
                          message=f"{name}: the new content is already in {', '.join(others[:3])}; the previous "
                                  "version was kept")
    if replaced:  # a new version of a document with the same name replaces the old one
        index.remove_source(name)
    dupes = len(chunks) - len(fresh)
    if fresh:
        index.add(fresh, get_embedder().embed([c.embed_text for c in fresh]))
        index.record_version(name, version, owner, ingested_at, len(fresh))
    status: Literal["added", "replaced", "duplicate"] = "replaced" if replaced else ("added" if fresh else "duplicate")
    verb = {"added": "added", "replaced": "replaced the previous version with", "duplicate": "added no new"}[status]
    return FileResult(name, status, len(fresh), dupes,
                      f"{name}: {verb} {len(fresh)} chunks" + (f", {dupes} duplicate chunks skipped" if dupes else ""))


def ingest_paths(paths: Iterable[Path], progress: Progress | None = None,
                 names: dict[Path, str] | None = None) -> IngestReport:
    files = expand(paths)
    report = IngestReport()
    started = time.perf_counter()
    for i, path in enumerate(files, start=1):
        name = (names or {}).get(path, path.name)
        if progress:
            progress(name, i, len(files))
        if not path.exists():
            report.files.append(FileResult(name, "error", message=f"{name}: no such file"))
            continue
        try:
            report.files.append(ingest_file(path, name))
        except Exception as exc:  # the batch goes on; the file gets a one-line reason
            log.exception("ingesting %s failed", name)
            report.files.append(FileResult(name, "error", message=f"{name}: could not be ingested "
                                                                 f"({type(exc).__name__})"))
    report.seconds = time.perf_counter() - started
    return report


def ensure_seed_index() -> int:
    """Ingest the seed corpus when the knowledge base is empty; returns chunks added. An index with chunks is seen
    from its SQLite file alone: ``assess serve`` checks this before it becomes the server, and loading the model
    here (6 s) would be thrown away."""
    if index_has_chunks():
        return 0
    if get_index().sources():
        return 0
    return ingest_paths([SEED_CORPUS]).chunks_added
