"""One knowledge base — the index of a folder (or of the shared database), the retriever over it and the model that
embeds for both — and the seed corpus a fresh installation starts with.

``Services.knowledge()`` opens the configured one once per services; nothing here is kept by the module.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from foundation.database import Databases
from knowledge_base.embeddings import Embedder
from knowledge_base.index import KnowledgeIndex
from knowledge_base.retrieval import HybridRetriever

SEED_CORPUS = Path(__file__).resolve().parent / "corpus"


class Knowledge:
    """The knowledge base in ``directory`` with its chunks at ``url`` (the shared database when
    ``ASSESS_DATABASE_URL`` is set; None: the folder's own SQLite file). ``embedder`` is asked for the model on
    first use: listing or removing documents never loads it."""

    def __init__(self, directory: Path, url: str | None, embedder: Callable[[], Embedder],
                 parse_limits: tuple[float, int], databases: Databases | None = None) -> None:
        self.directory, self.url, self._embedder, self.databases = directory, url, embedder, databases
        self.parse_limits = parse_limits  # a document parser's seconds and megabytes (``ParserWorker``)
        self._lock = threading.Lock()
        self._opened: tuple[KnowledgeIndex, HybridRetriever] | None = None

    def embedder(self) -> Embedder:
        return self._embedder()

    def _open(self) -> tuple[KnowledgeIndex, HybridRetriever]:
        embedder = self.embedder()
        with self._lock:
            if self._opened is None:
                index = KnowledgeIndex(self.directory, embedder.dimension, self.url, self.databases)
                self._opened = (index, HybridRetriever(index, embedder))
            return self._opened

    @property
    def index(self) -> KnowledgeIndex:
        return self._open()[0]

    @property
    def retriever(self) -> HybridRetriever:
        return self._open()[1]

    def _on_server(self) -> bool:
        return self.url is not None and not self.url.startswith("sqlite")

    def exists(self) -> bool:
        """Whether an index has been built here (on a database server: the first replica creates the tables)."""
        return self._on_server() or (self.directory / "chunks.sqlite").exists()

    def has_chunks(self) -> bool:
        """Whether the index holds any chunk, read without loading the model."""
        if self._on_server():
            return KnowledgeIndex(self.directory, 0, self.url, self.databases).has_chunks()
        path = self.directory / "chunks.sqlite"
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


def seed_vocabulary() -> list[str]:
    """The words of the bundled documents (plain words of five letters or more): real words, never a typo to correct."""
    words: set[str] = set()
    for path in sorted(SEED_CORPUS.glob("*.md")):
        words.update(w.lower() for w in re.findall(r"\b[A-Za-z]{5,}\b", path.read_text(encoding="utf-8")))
    return sorted(words)
