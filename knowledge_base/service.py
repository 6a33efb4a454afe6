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
_open: dict[str, tuple[KnowledgeIndex, HybridRetriever]] = {}


def _get(directory: Path | None = None) -> tuple[KnowledgeIndex, HybridRetriever]:
    directory = directory or get_settings().index_dir
    key = str(directory)
    with _lock:
        if key not in _open:
            embedder = get_embedder()
            index = KnowledgeIndex(directory, embedder.dimension)
            _open[key] = (index, HybridRetriever(index, embedder))
        return _open[key]


def get_index(directory: Path | None = None) -> KnowledgeIndex:
    return _get(directory)[0]


def get_retriever(directory: Path | None = None) -> HybridRetriever:
    return _get(directory)[1]


def index_exists(directory: Path | None = None) -> bool:
    return ((directory or get_settings().index_dir) / "chunks.sqlite").exists()


def index_has_chunks(directory: Path | None = None) -> bool:
    """Whether the knowledge index holds any chunk, read without loading the model."""
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

