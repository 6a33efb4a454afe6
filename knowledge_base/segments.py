"""The knowledge base's search structures, one *segment* per owner: the shared documents (the seed corpus and
``assess ingest``) in one, each user's uploads in one of their own. A segment is a FAISS index and a keyword index
over the same chunks.

Keeping owners apart does three things: a change rewrites only its owner's segment files (one user's upload never
rewrites another's, nor the shared corpus: what an upload writes is its own share); a search looks only at the
shared segment and the viewer's own (no over-fetching to filter out other users' chunks); and BM25's statistics of
one segment never depend on another's documents.

Files (derived data, rebuilt from the database whenever they are missing or stale): ``segments/<name>.faiss`` and
``segments/<name>.npz`` per segment, and ``segments.json`` naming the segments and the database and corpus version
they were written at; it is written last, so a crash between files leaves it stale and the next reader rebuilds.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from knowledge_base.keywords import KeywordIndex

HNSW_THRESHOLD = 50_000
SHARED = ""  # the shared documents' owner key (a user name is never empty)
MANIFEST = "segments.json"


def _kind(chunks: int) -> str:
    return "hnsw" if chunks >= HNSW_THRESHOLD else "flat"


def build_faiss(vectors: np.ndarray, ids: np.ndarray, dimension: int, kind: str = "auto") -> Any:
    """Below ``HNSW_THRESHOLD`` chunks an exact inner-product index (exact, removable); above it HNSW, which keeps
    queries under a millisecond (``assess bench kb`` measures both)."""
    use_hnsw = kind == "hnsw" or (kind == "auto" and _kind(len(ids)) == "hnsw")
    inner: Any
    if use_hnsw:
        inner = faiss.IndexHNSWFlat(dimension, 32, faiss.METRIC_INNER_PRODUCT)
        inner.hnsw.efConstruction = 200
        inner.hnsw.efSearch = 128
    else:
        inner = faiss.IndexFlatIP(dimension)
    index = faiss.IndexIDMap2(inner)
    if len(ids):
        index.add_with_ids(vectors, ids)
    return index


@dataclass(frozen=True)
class Segment:
    faiss: Any
    keywords: KeywordIndex

    @property
    def size(self) -> int:
        return int(self.faiss.ntotal)

    def ids(self) -> set[int]:
        return set(faiss.vector_to_array(self.faiss.id_map).tolist())

    def dense(self, vector: np.ndarray, n: int) -> list[tuple[int, float]]:
        """The ``n`` chunks nearest to ``vector`` with their cosine (the vectors are normalised), best first."""
        if not self.size:
            return []
        scores, ids = self.faiss.search(vector.reshape(1, -1).astype(np.float32), min(n, self.size))
        return [(int(i), float(s)) for s, i in zip(scores[0], ids[0], strict=True) if i != -1]

    def vector(self, row_id: int) -> np.ndarray | None:
        try:
            return np.asarray(self.faiss.reconstruct(int(row_id)))
        except RuntimeError:  # not in this segment
            return None

    def changed(self, added: Sequence[tuple[int, str, np.ndarray]], removed: Sequence[int], dimension: int) -> Segment | None:
        """This segment after a change (``added``: chunk id, keyword text, vector), or None when the FAISS kind
        must change or an HNSW index cannot remove (the caller rebuilds the segment from the database)."""
        if _kind(self.size + len(added) - len(removed)) != _kind(self.size):
            return None
        mine = [i for i in removed if i in self.keywords.id_set]
        if mine:
            try:
                self.faiss.remove_ids(np.array(mine, dtype=np.int64))
            except RuntimeError:
                return None
        if added:
            self.faiss.add_with_ids(np.vstack([v for _, _, v in added]).astype(np.float32),
                                    np.array([i for i, _, _ in added], dtype=np.int64))
        keywords = self.keywords.removed(mine) if mine else self.keywords
        return Segment(self.faiss, keywords.added([(i, text) for i, text, _ in added]))


def empty_segment(dimension: int) -> Segment:
    return Segment(build_faiss(np.zeros((0, dimension), dtype=np.float32), np.zeros(0, dtype=np.int64), dimension),
                   KeywordIndex())


def built_segment(rows: Sequence[tuple[int, str, np.ndarray]], dimension: int) -> Segment:
    """A segment of ``rows`` (chunk id, keyword text, vector)."""
    vectors = np.vstack([v for _, _, v in rows]).astype(np.float32) if rows else np.zeros((0, dimension), np.float32)
    ids = np.array([i for i, _, _ in rows], dtype=np.int64)
    return Segment(build_faiss(vectors, ids, dimension), KeywordIndex().added([(i, text) for i, text, _ in rows]))


def file_name(owner: str) -> str:
    """A segment's file name: ``shared``, or a hash of the user name (a name is never a path)."""
    return "shared" if owner == SHARED else "u-" + hashlib.sha256(owner.encode()).hexdigest()[:20]


class SegmentFiles:
    """The cached segment files in ``directory``, written and read only as a whole through the manifest."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory / "segments"
        self.manifest = directory / MANIFEST

    def write(self, segments: dict[str, Segment], changed: Iterable[str], stamp: str) -> int:
        """Write the ``changed`` segments (a segment no longer there: its files removed), then the manifest; the bytes
        written."""
        self.directory.mkdir(parents=True, exist_ok=True)
        written = 0
        for owner in set(changed):
            base = self.directory / file_name(owner)
            segment = segments.get(owner)
            if segment is None:
                for suffix in (".faiss", ".npz"):
                    base.with_suffix(suffix).unlink(missing_ok=True)
                continue
            tmp = base.with_suffix(f".faiss.tmp{os.getpid()}")
            faiss.write_index(segment.faiss, str(tmp))
            written += tmp.stat().st_size
            os.replace(tmp, base.with_suffix(".faiss"))
            tmp = base.with_suffix(f".npz.tmp{os.getpid()}")
            segment.keywords.save(tmp)
            written += tmp.stat().st_size
            os.replace(tmp, base.with_suffix(".npz"))
        body = json.dumps({"stamp": stamp, "owners": sorted(segments)}).encode()
        tmp = self.manifest.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(body)
        os.replace(tmp, self.manifest)
        return written + len(body)

    def read(self, stamp: str) -> dict[str, Segment] | None:
        """The segments written at ``stamp``, or None when the files are missing, stale or unreadable."""
        try:
            manifest = json.loads(self.manifest.read_text())
            if manifest.get("stamp") != stamp:
                return None
            out = {}
            for owner in manifest["owners"]:
                base = self.directory / file_name(owner)
                out[owner] = Segment(faiss.read_index(str(base.with_suffix(".faiss"))),
                                     KeywordIndex.load(base.with_suffix(".npz")))
            return out
        except (OSError, ValueError, KeyError, RuntimeError):
            return None

    def sweep(self) -> None:
        """Remove the files of the layout before segments and what writers that died left (``*.tmp<pid>``)."""
        for old in ("index.faiss", "index.version", "keywords-shared.npz", "keywords-uploads.npz"):
            (self.manifest.parent / old).unlink(missing_ok=True)
        for leftover in [*self.directory.glob("*.tmp*"), *self.manifest.parent.glob("segments.tmp*")]:
            if not _alive(leftover.name.rsplit(".tmp", 1)[-1]):
                leftover.unlink(missing_ok=True)


def _alive(pid: str) -> bool:
    """Whether the process that names a temporary file still runs (on this host: the index folder is local)."""
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True
