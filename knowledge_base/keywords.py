"""Keyword search: BM25 over an inverted index held in memory — for every term, the positions of the chunks that
hold it and how often — so a question scores only the chunks that share a term with it, not the whole corpus.

The ranking is SQLite FTS5's BM25 (k1 1.2, b 0.75, idf log((N − n + ½) / (n + ½)), at least 1e-6), which this index
replaced because FTS5 calls its ranking function once per matching row: 10 ms at 10,000 chunks when a question
holds common terms. The index is derived data, like the FAISS index: built from the chunks' terms, changed in
place of a rebuild when chunks are added or removed (a new object each time, so a search that holds the old one
is never disturbed), and written beside its segment's FAISS file (``segments.py``).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from knowledge_base.terms import tokenize

K1, B = 1.2, 0.75
_NO_IDS = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class KeywordIndex:
    ids: np.ndarray = field(default_factory=lambda: _NO_IDS)  # chunk id at each position
    lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))  # terms per chunk
    alive: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # False once a chunk is removed
    postings: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)  # term → positions, counts
    total_length: float = 0.0  # of the live chunks (BM25's average length)

    @property
    def size(self) -> int:
        return int(self.alive.sum())

    @cached_property
    def id_set(self) -> frozenset[int]:
        """The live chunks' ids."""
        return frozenset(self.ids[self.alive].tolist())

    def added(self, chunks: Sequence[tuple[int, str]]) -> KeywordIndex:
        """This index with ``(chunk id, text)`` chunks added (their terms cut by ``terms.tokenize``)."""
        if not chunks:
            return self
        start = len(self.ids)
        new: dict[str, tuple[list[int], list[int]]] = {}
        lengths = []
        for offset, (_, text) in enumerate(chunks):
            terms = tokenize(text)
            lengths.append(len(terms))
            for term, count in Counter(terms).items():
                positions, counts = new.setdefault(term, ([], []))
                positions.append(start + offset)
                counts.append(count)
        postings = dict(self.postings)
        for term, (positions, counts) in new.items():
            fresh = (np.array(positions, dtype=np.int32), np.array(counts, dtype=np.float32))
            old = postings.get(term)
            postings[term] = fresh if old is None else (np.concatenate([old[0], fresh[0]]),
                                                        np.concatenate([old[1], fresh[1]]))
        return KeywordIndex(np.concatenate([self.ids, np.array([c[0] for c in chunks], dtype=np.int64)]),
                            np.concatenate([self.lengths, np.array(lengths, dtype=np.float32)]),
                            np.concatenate([self.alive, np.ones(len(chunks), dtype=bool)]), postings,
                            self.total_length + float(sum(lengths)))

    def removed(self, chunk_ids: Iterable[int]) -> KeywordIndex:
        """This index without these chunks: their positions are marked dead (and dropped when it is written)."""
        gone = np.isin(self.ids, np.fromiter(chunk_ids, dtype=np.int64)) & self.alive
        if not gone.any():
            return self
        return replace(self, alive=self.alive & ~gone, total_length=self.total_length - float(self.lengths[gone].sum()))

    def search(self, terms: list[str], limit: int) -> list[tuple[int, float]]:
        """The best ``limit`` chunks holding any of ``terms`` with their BM25 scores, best first."""
        rows = self.size
        if not rows or not terms:
            return []
        average = self.total_length / rows
        hits, weights = [], []
        for term in dict.fromkeys(terms):
            found = self.postings.get(term)
            if found is None:
                continue
            live = self.alive[found[0]]
            positions, counts = found[0][live], found[1][live]
            if not len(positions):
                continue
            idf = math.log((rows - len(positions) + 0.5) / (len(positions) + 0.5))
            idf = idf if idf > 0 else 1e-6
            norm = K1 * (1 - B + B * self.lengths[positions] / average)
            hits.append(positions)
            weights.append(idf * counts * (K1 + 1) / (counts + norm))
        if not hits:
            return []
        scores = np.bincount(np.concatenate(hits), weights=np.concatenate(weights), minlength=len(self.ids))
        matched = np.flatnonzero(scores > 0)
        if len(matched) > limit:
            matched = matched[np.argpartition(-scores[matched], limit - 1)[:limit]]
        best = matched[np.argsort(-scores[matched], kind="stable")]
        return [(int(self.ids[p]), float(scores[p])) for p in best]

    def save(self, path: Path) -> None:
        """Write the live chunks' postings to ``path`` (.npz): one array per kind, the terms as one UTF-8 JSON list
        (a fixed-width string array costs every term the width of the longest)."""
        keep = self.alive
        position = np.cumsum(keep) - 1  # old position → position among the live ones
        terms, offsets, positions, counts = [], [0], [], []
        for term, (at, count) in self.postings.items():
            live = keep[at]
            if live.any():
                terms.append(term)
                positions.append(position[at[live]].astype(np.int32))
                counts.append(count[live])
                offsets.append(offsets[-1] + int(live.sum()))
        with path.open("wb") as out:
            np.savez(out, ids=self.ids[keep], lengths=self.lengths[keep],
                     terms=np.frombuffer(json.dumps(terms).encode(), dtype=np.uint8),
                     offsets=np.array(offsets, dtype=np.int64),
                     positions=np.concatenate(positions) if positions else np.zeros(0, dtype=np.int32),
                     counts=np.concatenate(counts) if counts else np.zeros(0, dtype=np.float32))

    @classmethod
    def load(cls, path: Path) -> KeywordIndex:
        with np.load(path, allow_pickle=False) as data:
            ids, lengths, offsets = data["ids"], data["lengths"], data["offsets"]
            terms = json.loads(data["terms"].tobytes().decode())
            positions, counts = data["positions"], data["counts"]
        bounds = offsets.tolist()
        postings = {term: (positions[a:b], counts[a:b]) for term, a, b in zip(terms, bounds[:-1], bounds[1:], strict=True)}
        return cls(ids, lengths, np.ones(len(ids), dtype=bool), postings, float(lengths.sum()))
