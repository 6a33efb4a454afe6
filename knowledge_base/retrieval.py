"""Hybrid retrieval: dense (FAISS over the bundled embeddings) and keyword BM25 (the index's inverted index,
``keywords.KeywordIndex``), fused with reciprocal rank fusion, with metadata filters and a 0–1 ``relevance_score``
on every chunk.

relevance_score = ½ · fused rank score (normalized to the best possible) + ½ · cosine similarity,
so a top-ranked chunk that is semantically far from the query still shows a modest score.
Chunks with no lexical overlap and cosine below ``MIN_COSINE`` are dropped rather than returned.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from foundation.database import DatabaseUnavailable
from knowledge_base.embeddings import Embedder
from knowledge_base.index import Corpus, KnowledgeIndex
from knowledge_base.terms import tokenize

RRF_K = 60
CANDIDATES = 50
MIN_COSINE = 0.25
ATTEMPTS = 5
MAX_PER_SOURCE = 3  # keep room in the top k for a second document (a policy next to its procedure)
# … in the first places only: below them, the best document's next section comes before weaker documents ("from where
# can asa management be reached": the firewall standard's fourth section, "Management access", is the answer)
CAPPED_PLACES = 5
Mode = Literal["hybrid", "dense", "bm25"]
__all__ = ["HybridRetriever", "RetrievedChunk", "tokenize"]
@dataclass(frozen=True)
class RetrievedChunk:
    content: str
    metadata: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"content": self.content, "metadata": self.metadata}


class HybridRetriever:
    def __init__(self, index: KnowledgeIndex, embedder: Embedder) -> None:
        self.index, self.embedder = index, embedder
        self.last_latency_ms = 0.0

    def search(self, query: str, k: int = 5, mode: Mode = "hybrid", domain: str | None = None,
               topics: list[str] | None = None, viewer: str | None = None,
               sources: list[str] | None = None) -> list[RetrievedChunk]:
        """Top chunks for ``query``. Documents a user uploaded (``uploaded_by``) are found only for that
        user (``viewer``); shared documents (no uploader: the seed corpus, ``assess ingest``) for everyone.
        ``sources``: only these documents (a conversation restricted to some)."""
        started = time.perf_counter()
        corpus = self.index.snapshot()
        if not corpus.size or not query.strip():
            return []
        vector = self.embedder.embed([query])[0]
        for _ in range(ATTEMPTS):  # another writer changed the corpus while it was searched: search the new version
            found = self._ranked(corpus, vector, tokenize(query), k, mode, domain, topics, viewer, sources)
            if found is not None:
                self.last_latency_ms = (time.perf_counter() - started) * 1000
                return found
            corpus = self.index.snapshot()
        # said, not answered as "nothing relevant": the knowledge agent reports it as a partial answer
        raise DatabaseUnavailable(self.index.db.where, f"the knowledge base changed during each of {ATTEMPTS} "
                                  "searches in a row (documents are being added)", "ask again in a moment")

    @staticmethod
    def _ranked(corpus: Corpus, vector: np.ndarray, tokens: list[str], k: int, mode: Mode, domain: str | None,
                topics: list[str] | None, viewer: str | None,
                sources: list[str] | None = None) -> list[RetrievedChunk] | None:
        """The search on one corpus version; None when the corpus moved on before its chunks were read."""
        filtered = bool(domain or topics or sources)
        # chosen documents may rank anywhere in the whole corpus: all of it is a candidate (a few thousand vectors)
        wide = corpus.size if sources else max(CANDIDATES, k) * (4 if filtered else 1)
        # the shared documents and the viewer's own uploads only (segments: other users' chunks are not searched)
        nearest = corpus.dense(vector, wide, viewer)
        cosine = dict(nearest)
        dense = [i for i, _ in nearest]
        hits = corpus.keyword_search(tokens, corpus.size if sources else CANDIDATES * 4, viewer)
        if filtered:  # domain and topic are in the chunks' metadata: read every candidate first
            rows = corpus.rows([*dense, *(cid for cid, _ in hits)])
            if rows is None:
                return None

            def fits(cid: int) -> bool:
                meta = rows[cid].metadata if cid in rows else {}
                return cid in rows and (domain is None or meta.get("domain") == domain) and \
                    (not topics or meta.get("topic") in topics) and (not sources or rows[cid].source in sources)

            dense, hits = [i for i in dense if fits(i)], [(cid, score) for cid, score in hits if fits(cid)]
        dense_rank, lexical = dense[:CANDIDATES], dict(hits)
        lexical_rank = list(lexical)[:CANDIDATES]
        chunks = corpus.rows([*dense_rank, *lexical_rank])
        if chunks is None:
            return None
        missing = [i for i in lexical_rank if i not in cosine]
        for i in missing:  # cosine for lexical-only candidates, so every chunk gets a comparable score
            found = corpus.vector(i, viewer)
            cosine[i] = float(found @ vector) if found is not None else 0.0
        if mode == "dense":
            ranked = dense_rank
        elif mode == "bm25":
            ranked = lexical_rank
        else:
            fused: dict[int, float] = {}
            for ranking in (dense_rank, lexical_rank):
                for r, cid in enumerate(ranking):
                    fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + r + 1)
            ranked = sorted(fused, key=lambda c: -fused[c])
        positions = [{cid: i for i, cid in enumerate(r)} for r in (dense_rank, lexical_rank)]
        best = 2.0 / (RRF_K + 1)
        top_bm25 = max(lexical.values(), default=0.0) or 1.0
        out: list[RetrievedChunk] = []
        per_source: dict[str, int] = {}
        held: list[tuple[int, int]] = []  # (rank, chunk id) over the cap while the first places fill
        order = list(enumerate(ranked))
        while order:
            rank, cid = order.pop(0)
            cos = cosine.get(cid, 0.0)
            if cid not in chunks or (cid not in lexical and cos < MIN_COSINE):
                continue
            chunk = chunks[cid]
            if per_source.get(chunk.source, 0) >= MAX_PER_SOURCE and len(out) < CAPPED_PLACES:
                held.append((rank, cid))
                continue
            if held and len(out) >= CAPPED_PLACES and (rank, cid) not in held:
                # the first places are filled: what the cap held back competes again, in its own rank order
                order = sorted([*held, (rank, cid), *order])
                held = []
                continue
            if per_source.get(chunk.source, 0) >= MAX_PER_SOURCE + 1:
                continue
            per_source[chunk.source] = per_source.get(chunk.source, 0) + 1
            fused_score = sum(1.0 / (RRF_K + pos[cid] + 1) for pos in positions if cid in pos)
            relevance = 0.5 * min(fused_score / best, 1.0) + 0.5 * min(max(cos, 0.0), 1.0)
            meta = {k: v for k, v in chunk.metadata.items() if k in (
                "source", "title", "topic", "domain", "timestamp", "chunk_id", "page", "section", "document_id",
                "effective_date", "expires", "version")}
            meta.update({"relevance_score": round(relevance, 3), "dense_score": round(cos, 3),
                         "bm25_score": round(lexical.get(cid, 0.0) / top_bm25, 3), "rank": rank + 1})
            out.append(RetrievedChunk(chunk.content, meta))
            if len(out) == k:
                break
        return out
