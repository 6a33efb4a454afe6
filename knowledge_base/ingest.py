"""Ingestion: files -> loaders -> structure-aware chunks -> embeddings -> the knowledge index.

The Python API the UI and ``assess ingest`` both call. Per-file outcomes: chunks added, duplicates
skipped (by content hash — re-ingesting a file adds nothing), a previous version replaced (same file
name, new content), or a clear error; one bad file never stops the batch. Progress is reported per
file through a callback (and, for a chat upload, the chunks of each file embedded so far); a file not yet started
can be cancelled.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import numpy as np

from foundation.vocabulary.text import visible
from knowledge_base.embeddings import Embedder
from knowledge_base.index import KnowledgeIndex
from knowledge_base.loaders import IngestError, Parser, load_file
from knowledge_base.parsing import ParserWorker
from knowledge_base.service import SEED_CORPUS, Knowledge
from knowledge_base.splitter import Chunk, split_documents

log = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]
Embedded = Callable[[str, int, int], None]  # a file's name, its chunks embedded so far, its chunks to embed
Cancelled = Callable[[str], bool]  # asked before a file starts: whether its uploader cancelled it
MAX_CHUNKS_PER_FILE = 2_000  # ~1 MB of prose; more is a data dump, not a standard


@dataclass
class FileResult:
    name: str
    status: Literal["added", "replaced", "duplicate", "error", "cancelled"]
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
    shared document (or another user's) of the same file name; shared documents keep their file name. The file name
    is made plain first (no control or right-to-left characters, no path): ``/docs`` shows it as it is."""
    plain = visible(name.replace("/", "_").replace("\\", "_"), 120) or "document"
    return f"{owner}/{plain}" if owner else plain


@dataclass
class _Plan:
    """What adding one file will do, decided before its chunks are embedded (files are embedded together)."""

    name: str
    owner: str | None
    version: int = 0
    ingested_at: str = ""
    fresh: list[Chunk] = field(default_factory=list)
    duplicates: int = 0
    replaced: bool = False
    outcome: FileResult | None = None  # decided already (an error, nothing new): nothing to embed


def _plan(index: KnowledgeIndex, path: Path, name: str, owner: str | None, hashes: dict[str, str],
          parser: Parser) -> _Plan:
    """Load (PDF, Word and HTML in ``parser``'s worker), split and compare ``path`` with the chunks in ``hashes``
    (content hash -> source)."""
    plan = _Plan(name, owner, index.next_version(name), datetime.now(UTC).isoformat(timespec="seconds"))
    try:
        docs = load_file(path, name, parser)
        for doc in docs:  # who added which version when: citations name the version they quote
            doc.metadata.update({"uploaded_by": owner or "", "version": str(plan.version),
                                 "ingested_at": plan.ingested_at})
        chunks = split_documents(docs)
    except IngestError as exc:
        plan.outcome = FileResult(name, "error", message=str(exc))
        return plan
    except Exception as exc:  # splitting a hostile text (e.g. pathological markdown) must not end the batch
        log.exception("splitting %s failed", name)
        plan.outcome = FileResult(name, "error", message=f"{name}: could not be split into chunks ({type(exc).__name__})")
        return plan
    if not chunks:
        plan.outcome = FileResult(name, "error", message=f"{name}: no text could be extracted")
        return plan
    if len(chunks) > MAX_CHUNKS_PER_FILE:
        plan.outcome = FileResult(name, "error", message=f"{name}: {len(chunks):,} chunks is over the "
                                                          f"{MAX_CHUNKS_PER_FILE:,} limit for one document; split it")
        return plan
    # duplicates are judged against what this owner can see: another user's private copy is not a reason to skip
    known = {h: s for h, s in hashes.items() if "/" not in s or (owner and s.startswith(f"{owner}/"))}
    mine = {h for h, src in known.items() if src == name}
    if {c.content_hash for c in chunks} == mine:
        plan.outcome = FileResult(name, "duplicate", duplicates=len(chunks), message=f"{name}: already in the knowledge base")
        return plan
    plan.replaced = bool(mine)
    elsewhere = {h: s for h, s in known.items() if s != name}
    plan.fresh = [c for c in chunks if c.content_hash not in elsewhere]
    plan.duplicates = len(chunks) - len(plan.fresh)
    if plan.replaced and not plan.fresh:  # a "new version" that only repeats other documents would just delete this one
        others = sorted({elsewhere[c.content_hash] for c in chunks})
        plan.outcome = FileResult(name, "error", duplicates=len(chunks),
                                  message=f"{name}: the new content is already in {', '.join(others[:3])}; the "
                                          "previous version was kept")
    return plan


def _apply(index: KnowledgeIndex, plan: _Plan, vectors: np.ndarray) -> FileResult:
    """Write a planned file's chunks (embedded as ``vectors``) and its version; the file's outcome."""
    if plan.outcome is not None:
        return plan.outcome
    name, fresh, dupes = plan.name, plan.fresh, plan.duplicates
    if plan.replaced:  # a new version of a document with the same name replaces the old one
        index.remove_source(name)
    if fresh:
        index.add(fresh, vectors)
        index.record_version(name, plan.version, plan.owner, plan.ingested_at, len(fresh))
    status: Literal["added", "replaced", "duplicate"] = "replaced" if plan.replaced else ("added" if fresh else "duplicate")
    verb = {"added": "added", "replaced": "replaced the previous version with", "duplicate": "added no new"}[status]
    return FileResult(name, status, len(fresh), dupes,
                      f"{name}: {verb} {len(fresh)} chunk{'' if len(fresh) == 1 else 's'}"
                      + (f", {dupes} duplicate chunk{'' if dupes == 1 else 's'} skipped" if dupes else ""))


EMBED_STEP = 64  # the model's batch: progress is reported after each one


def _embed(embedder: Embedder, plans: list[_Plan], embedded: Embedded | None) -> np.ndarray:
    """The fresh chunks of ``plans`` embedded in order, each file's share reported as the model's batches finish."""
    chunks = [c for p in plans for c in p.fresh]
    if not chunks:
        return np.zeros((0, 0), dtype=np.float32)
    if embedded is None:
        return embedder.embed([c.embed_text for c in chunks])
    parts, first = [], 0
    spans = []  # (plan, index of its first chunk)
    for plan in plans:
        spans.append((plan, first))
        first += len(plan.fresh)
    for start in range(0, len(chunks), EMBED_STEP):
        parts.append(embedder.embed([c.embed_text for c in chunks[start:start + EMBED_STEP]]))
        done = min(start + EMBED_STEP, len(chunks))
        for plan, begin in spans:
            if plan.fresh and begin < done and begin + len(plan.fresh) > start:  # this batch held some of its chunks
                embedded(plan.name, min(done - begin, len(plan.fresh)), len(plan.fresh))
    return np.vstack(parts)


def ingest_file(knowledge: Knowledge, path: Path, display_name: str | None = None,
                owner: str | None = None) -> FileResult:
    """Add one file. ``owner``: the user who uploaded it — only they retrieve it; None: shared with everyone."""
    return ingest_paths(knowledge, [path], names={path: display_name or path.name}, owner=owner).files[0]


def ingest_paths(knowledge: Knowledge, paths: Iterable[Path], progress: Progress | None = None,
                 names: dict[Path, str] | None = None, owner: str | None = None,
                 embedded: Embedded | None = None, cancelled: Cancelled | None = None) -> IngestReport:
    """Add files and folders, their new chunks embedded together. ``names``: the file names to store them under
    (a chat upload's original name); ``owner``: the user who uploaded them (as in ``ingest_file``); ``embedded``
    hears how far each file's embedding is; a file ``cancelled`` says so before it starts is not added."""
    files = expand(paths)
    report = IngestReport()
    started = time.perf_counter()
    # the segment files are written once, after the last file; parsers run in one worker for the whole batch
    with knowledge.index.batch(), ParserWorker(*knowledge.parse_limits) as parser:
        _ingest_each(knowledge, files, report, progress, names, owner, parser, embedded, cancelled)
    report.seconds = time.perf_counter() - started
    return report


EMBED_BATCH = 256  # chunks embedded together across files: the model's batches stay full (64 each)


def _ingest_each(knowledge: Knowledge, files: list[Path], report: IngestReport, progress: Progress | None,
                 names: dict[Path, str] | None, owner: str | None, parser: Parser,
                 embedded: Embedded | None = None, cancelled: Cancelled | None = None) -> None:
    """Plan each file against the chunks known so far (including the group's planned ones), embed a group's new
    chunks in one call, then write each file of the group in order; one bad file never stops the rest. A cancel is
    honoured only before a file is planned: later files of its group compare against its planned chunks."""
    index = knowledge.index
    hashes = index.known_hashes()
    group: list[_Plan] = []

    def flush() -> None:
        todo = [p for p in group if p.outcome is None]
        try:
            vectors = _embed(knowledge.embedder(), todo, embedded)
        except Exception as exc:  # the model failed for this group: each of its files says so
            log.exception("embedding failed")
            for p in todo:
                p.outcome = FileResult(p.name, "error", message=f"{p.name}: could not be embedded ({type(exc).__name__})")
            vectors = np.zeros((0, 0), dtype=np.float32)
        at = 0
        for p in group:
            rows = vectors[at:at + len(p.fresh)] if p.outcome is None else vectors[:0]
            at += len(p.fresh) if p.outcome is None else 0
            try:
                report.files.append(_apply(index, p, rows))
            except Exception as exc:  # the batch goes on; the file gets a one-line reason
                log.exception("ingesting %s failed", p.name)
                report.files.append(FileResult(p.name, "error", message=f"{p.name}: could not be ingested "
                                                                         f"({type(exc).__name__})"))
        group.clear()

    for i, path in enumerate(files, start=1):
        name = owned_name((names or {}).get(path, path.name), owner)
        if cancelled and cancelled(name):
            group.append(_Plan(name, None, outcome=FileResult(name, "cancelled", message=f"{name}: cancelled — not added")))
            continue
        if progress:
            progress(name, i, len(files))
        if any(p.name == name for p in group):  # its version number depends on the earlier file being written
            flush()
        if not path.exists():
            group.append(_Plan(name, None, outcome=FileResult(name, "error", message=f"{name}: no such file")))
            continue
        try:
            plan = _plan(index, path, name, owner, hashes, parser)
        except Exception as exc:
            log.exception("ingesting %s failed", name)
            plan = _Plan(name, None, outcome=FileResult(name, "error", message=f"{name}: could not be ingested "
                                                                                f"({type(exc).__name__})"))
        group.append(plan)
        if plan.outcome is None:  # later files of this call compare against this one as if it were written
            if plan.replaced:
                hashes = {h: s for h, s in hashes.items() if s != name}
            hashes.update({c.content_hash: name for c in plan.fresh})
        if sum(len(p.fresh) for p in group if p.outcome is None) >= EMBED_BATCH:
            flush()
    flush()


def ensure_seed_index(knowledge: Knowledge) -> int:
    """Ingest the seed corpus when the knowledge base is empty; returns chunks added. An index with chunks is seen
    from its SQLite file alone: ``assess serve`` checks this before it becomes the server, and loading the model
    here (6 s) would be thrown away."""
    if knowledge.has_chunks():
        return 0
    if knowledge.index.sources():
        return 0
    return ingest_paths(knowledge, [SEED_CORPUS]).chunks_added
