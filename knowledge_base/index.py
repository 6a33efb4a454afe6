"""The persisted knowledge index: chunk text, metadata and vectors in SQLite (plain, no pickle), and a
FAISS index built from those vectors and cached in ``index.faiss``.

SQLite is the source of truth; the FAISS file carries the version it was built from and is rebuilt
whenever it is missing or stale, so reloading is always safe — also while another process ingests.
Below ``HNSW_THRESHOLD`` chunks an exact inner-product index is used (exact, removable); above it,
HNSW keeps queries under a millisecond (``assess bench kb`` measures both).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from knowledge_base.splitter import Chunk

HNSW_THRESHOLD = 50_000

SCHEMA = """
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY, chunk_id TEXT UNIQUE NOT NULL, content_hash TEXT NOT NULL, source TEXT NOT NULL,
  content TEXT NOT NULL, embed_text TEXT NOT NULL, metadata TEXT NOT NULL, vector BLOB NOT NULL,
  added_at TEXT DEFAULT CURRENT_TIMESTAMP);
CREATE INDEX IF NOT EXISTS ix_chunks_source ON chunks(source);
CREATE INDEX IF NOT EXISTS ix_chunks_hash ON chunks(content_hash);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (source TEXT NOT NULL, version INTEGER NOT NULL, uploaded_by TEXT,
  ingested_at TEXT NOT NULL, chunks INTEGER NOT NULL, PRIMARY KEY (source, version));
INSERT OR IGNORE INTO meta VALUES ('version', '0');
"""


@dataclass(frozen=True)
class StoredChunk:
    row_id: int
    chunk_id: str
    source: str
    content: str
    embed_text: str
    metadata: dict[str, Any]

    @property
    def uploaded_by(self) -> str | None:
        return uploader(self.source, self.metadata)


def uploader(source: str, metadata: dict[str, Any]) -> str | None:
    """The user who uploaded a document (only they retrieve it), None for a shared one.

    Kept under ``uploaded_by``, apart from a document's own front matter ``owner`` (the team responsible for a
    standard). Indexes written before that split stored the uploader as ``owner`` — recognisable by the
    ``user/name`` source an upload always has — and are read the same way without re-ingesting.
    """
    if "uploaded_by" in metadata:
        return metadata["uploaded_by"] or None
    return (metadata.get("owner") or None) if "/" in source else None


def build_faiss(vectors: np.ndarray, ids: np.ndarray, dimension: int, kind: str = "auto") -> Any:
    use_hnsw = kind == "hnsw" or (kind == "auto" and len(ids) >= HNSW_THRESHOLD)
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


class KnowledgeIndex:
    def __init__(self, directory: Path, dimension: int) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory, self.dimension = directory, dimension
        self.db_path, self.faiss_path = directory / "chunks.sqlite", directory / "index.faiss"
        self._lock = threading.Lock()
        with self._db() as con:
            con.executescript(SCHEMA)
        self._faiss: Any = None
        self._faiss_version = -1
        self._chunks: dict[int, StoredChunk] = {}

    def _db(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.db_path, timeout=30)
        con.execute("PRAGMA journal_mode=WAL")
        return con

    def version(self) -> int:
        with self._db() as con:
            return int(con.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0])

    def known_hashes(self) -> dict[str, str]:
        with self._db() as con:
            return dict(con.execute("SELECT content_hash, source FROM chunks").fetchall())

    def add(self, chunks: list[Chunk], vectors: np.ndarray) -> int:
        with self._lock, self._db() as con:
            for chunk, vector in zip(chunks, vectors, strict=True):
                con.execute("INSERT OR IGNORE INTO chunks (chunk_id, content_hash, source, content, embed_text, "
                            "metadata, vector) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (chunk.chunk_id, chunk.content_hash, chunk.metadata["source"], chunk.content,
                             chunk.embed_text, json.dumps(chunk.metadata), vector.astype(np.float32).tobytes()))
            con.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'version'")
        self._persist()
        return len(chunks)

    def next_version(self, source: str) -> int:
        with self._db() as con:
            row = con.execute("SELECT MAX(version) FROM documents WHERE source = ?", (source,)).fetchone()
        return int(row[0] or 0) + 1

    def record_version(self, source: str, version: int, uploaded_by: str | None, ingested_at: str, chunks: int) -> None:
        """The history of a document: every version with who added it and when (the chunks are the newest's)."""
        with self._lock, self._db() as con:
            con.execute("INSERT OR REPLACE INTO documents VALUES (?, ?, ?, ?, ?)",
                        (source, version, uploaded_by, ingested_at, chunks))

    def versions(self, source: str) -> list[dict[str, Any]]:
        with self._db() as con:
            rows = con.execute("SELECT version, uploaded_by, ingested_at, chunks FROM documents WHERE source = ? "
                               "ORDER BY version", (source,)).fetchall()
        return [{"version": v, "uploaded_by": u, "ingested_at": at, "chunks": n} for v, u, at, n in rows]

    def remove_source(self, source: str) -> int:
        with self._lock, self._db() as con:
            n = con.execute("DELETE FROM chunks WHERE source = ?", (source,)).rowcount
            if n:
                con.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'version'")
        if n:
            self._persist()
        return n

    def sources(self) -> list[dict[str, Any]]:
        with self._db() as con:
            rows = con.execute("SELECT source, COUNT(*), MIN(metadata), MIN(added_at) FROM chunks GROUP BY source "
                               "ORDER BY source").fetchall()
        out = []
        for source, n, meta_json, added in rows:
            meta = json.loads(meta_json)
            out.append({"source": source, "chunks": n, "title": meta.get("title", ""), "topic": meta.get("topic", ""),
                        "domain": meta.get("domain", ""), "added_at": added, "version": meta.get("version", ""),
                        "uploaded_by": uploader(source, meta)})
        return out

    def _persist(self) -> None:
        """Rebuild the FAISS cache from SQLite and replace the file atomically."""
        version = self.version()
        index, chunks = self._build()
        tmp = self.faiss_path.with_suffix(f".tmp{os.getpid()}")
        faiss.write_index(index, str(tmp))
        os.replace(tmp, self.faiss_path)
        (self.directory / "index.version").write_text(str(version))
        with self._lock:
            self._faiss, self._faiss_version, self._chunks = index, version, chunks

    def _build(self) -> tuple[Any, dict[int, StoredChunk]]:
        with self._db() as con:
            rows = con.execute("SELECT id, chunk_id, source, content, embed_text, metadata, vector FROM chunks").fetchall()
        chunks = {r[0]: StoredChunk(r[0], r[1], r[2], r[3], r[4], json.loads(r[5])) for r in rows}
        vectors = np.frombuffer(b"".join(r[6] for r in rows), dtype=np.float32).reshape(len(rows), self.dimension) \
            if rows else np.zeros((0, self.dimension), dtype=np.float32)
        return build_faiss(vectors, np.array([r[0] for r in rows], dtype=np.int64), self.dimension), chunks

    def snapshot(self) -> tuple[Any, dict[int, StoredChunk], int]:
        """The FAISS index and chunks for the current version, (re)loaded when another writer changed them."""
        version = self.version()
        with self._lock:
            if self._faiss is not None and self._faiss_version == version:
                return self._faiss, self._chunks, version
        stamp = self.directory / "index.version"
        if self.faiss_path.exists() and stamp.exists() and stamp.read_text().strip() == str(version):
            index = faiss.read_index(str(self.faiss_path))
            with self._db() as con:
                rows = con.execute("SELECT id, chunk_id, source, content, embed_text, metadata FROM chunks").fetchall()
            chunks = {r[0]: StoredChunk(r[0], r[1], r[2], r[3], r[4], json.loads(r[5])) for r in rows}
        else:
            index, chunks = self._build()
        with self._lock:
            self._faiss, self._faiss_version, self._chunks = index, version, chunks
        return index, chunks, version
