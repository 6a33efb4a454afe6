"""Process-wide knowledge base objects (index, retriever) for the configured data directory, and the
seed corpus that a fresh installation starts with."""

from __future__ import annotations

import threading
from pathlib import Path

from knowledge_base.embeddings import get_embedder
from knowledge_base.index import KnowledgeIndex
from knowledge_base.retrieval import HybridRetriever
from orchestration.config import get_settings

SEED_CORPUS = Path(__file__).resolve().parent / "corpus"
_lock = threading.Lock()
_open: dict[str, tuple[KnowledgeIndex, HybridRetriever]] = {}


def _get() -> tuple[KnowledgeIndex, HybridRetriever]:
    directory = get_settings().index_dir
    key = str(directory)
    with _lock:
        if key not in _open:
            embedder = get_embedder()
            index = KnowledgeIndex(directory, embedder.dimension)
            _open[key] = (index, HybridRetriever(index, embedder))
        return _open[key]


def get_index() -> KnowledgeIndex:
    return _get()[0]


def get_retriever() -> HybridRetriever:
    return _get()[1]


def index_exists() -> bool:
    return (get_settings().index_dir / "chunks.sqlite").exists()


def reset() -> None:
    with _lock:
        _open.clear()


def ensure_seed_index() -> int:
    """Ingest the seed corpus when the knowledge base is empty; returns chunks added."""
    from knowledge_base.ingest import ingest_paths

    if get_index().sources():
        return 0
    return ingest_paths([SEED_CORPUS]).chunks_added
