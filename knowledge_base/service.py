"""Process-wide knowledge base objects (index, retriever) for the configured data directory, and the
seed corpus that a fresh installation starts with."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from knowledge_base.embeddings import get_embedder
from knowledge_base.index import KnowledgeIndex
from knowledge_base.retrieval import HybridRetriever
from orchestration.config import get_settings

SEED_CORPUS = Path(__file__).resolve().parent / "corpus"
_lock = threading.Lock()
_open: dict[tuple[str, str | None], tuple[KnowledgeIndex, HybridRetriever]] = {}


def _database_url(directory: Path | None) -> str | None:
    """The chunks' database for an index folder: the settings' ``knowledge_url`` for the configured folder (the
    shared database when ``ASSESS_DATABASE_URL`` is set), else the folder's own SQLite file."""
    settings = get_settings()
    return settings.knowledge_url if directory is None or directory == settings.index_dir else None


def _get(directory: Path | None = None) -> tuple[KnowledgeIndex, HybridRetriever]:
    url = _database_url(directory)
    directory = directory or get_settings().index_dir
    key = (str(directory), url)
    with _lock:
        if key not in _open:
            embedder = get_embedder()
            index = KnowledgeIndex(directory, embedder.dimension, url)
            _open[key] = (index, HybridRetriever(index, embedder))
        return _open[key]


def get_index(directory: Path | None = None) -> KnowledgeIndex:
    return _get(directory)[0]


def get_retriever(directory: Path | None = None) -> HybridRetriever:
    return _get(directory)[1]


def _on_server(directory: Path | None) -> bool:
    url = _database_url(directory)
    return url is not None and not url.startswith("sqlite")


def index_exists(directory: Path | None = None) -> bool:
    if _on_server(directory):  # the shared tables are created by the first replica to open them
        return True
    return ((directory or get_settings().index_dir) / "chunks.sqlite").exists()


def index_has_chunks(directory: Path | None = None) -> bool:
    """Whether the knowledge index holds any chunk, read without loading the model."""
    if _on_server(directory):
        return KnowledgeIndex(directory or get_settings().index_dir, 0, _database_url(directory)).has_chunks()
    path = (directory or get_settings().index_dir) / "chunks.sqlite"
    if not path.exists():
        return False
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return con.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is not None
        finally:
            con.close()
    except sqlite3.Error:  # unreadable here: the full check below reports it
        return False


def reset() -> None:
    with _lock:
        _open.clear()

