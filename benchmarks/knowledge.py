"""``assess bench kb``: which FAISS index the knowledge base needs. Exact inner-product search against
HNSW at growing sizes (random unit vectors of the model's dimension), with HNSW's recall@10 against
the exact answer, plus real ingestion throughput and query latency on the seed corpus."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from knowledge_base.embeddings import Embedder
from knowledge_base.segments import build_faiss
from knowledge_base.service import Knowledge


def _query_ms(index: Any, queries: np.ndarray) -> tuple[float, np.ndarray]:
    samples, found = [], []
    for q in queries:
        started = time.perf_counter()
        _, ids = index.search(q.reshape(1, -1), 10)
        samples.append((time.perf_counter() - started) * 1000)
        found.append(ids[0])
    return statistics.median(samples), np.array(found)


def _clustered(rng: np.random.Generator, n: int, dimension: int, centers: np.ndarray) -> np.ndarray:
    """Unit vectors around topic centers: sentence embeddings cluster by topic, uniform noise does not."""
    picks = centers[rng.integers(0, len(centers), n)]
    vectors = picks + 0.08 * rng.standard_normal((n, dimension)).astype(np.float32)
    unit: np.ndarray = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    return unit


def index_sizes(sizes: list[int], dimension: int = 384, report: Callable[[str], None] = print) -> list[dict[str, Any]]:
    rng = np.random.default_rng(7)
    centers = rng.standard_normal((400, dimension)).astype(np.float32)
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    queries = _clustered(rng, 200, dimension, centers)
    rows = []
    report(f"{'chunks':>8} {'flat ms':>9} {'hnsw ms':>9} {'hnsw recall@10':>15} {'hnsw build s':>13}")
    for n in sizes:
        vectors = _clustered(rng, n, dimension, centers)
        ids = np.arange(n, dtype=np.int64)
        flat = build_faiss(vectors, ids, dimension, "flat")
        started = time.perf_counter()
        hnsw = build_faiss(vectors, ids, dimension, "hnsw")
        build_s = time.perf_counter() - started
        flat_ms, exact = _query_ms(flat, queries)
        hnsw_ms, approx = _query_ms(hnsw, queries)
        recall = float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(exact, approx, strict=True)]))
        rows.append({"chunks": n, "flat_ms": round(flat_ms, 3), "hnsw_ms": round(hnsw_ms, 3),
                     "hnsw_recall_at_10": round(recall, 3), "hnsw_build_s": round(build_s, 1)})
        report(f"{n:>8,} {flat_ms:>9.3f} {hnsw_ms:>9.3f} {recall:>15.3f} {build_s:>13.1f}")
    return rows


@contextmanager
def _scratch_knowledge_base() -> Iterator[Knowledge]:
    """A throw-away data directory's knowledge base, with the model loaded and warm: ingestion is timed on
    embedding, not start-up."""
    from foundation.config import using_data_dir
    from orchestration.services import build_services

    with using_data_dir(Path(tempfile.mkdtemp(prefix="assess-kb-bench-"))) as data_dir:
        knowledge = build_services().knowledge()
        assert knowledge.directory.parent == data_dir
        knowledge.embedder().embed(["warm up", "the first encode initialises torch's thread pool"])
        yield knowledge


def _chunk_texts(folder: Path) -> list[str]:
    """The texts ingestion embeds for the files under ``folder``."""
    from knowledge_base.ingest import expand
    from knowledge_base.loaders import load_file
    from knowledge_base.splitter import split_documents

    return [c.embed_text for f in expand([folder]) for c in split_documents(load_file(f, f.name))]


def _encode_rate(embedder: Embedder, texts: list[str]) -> float:
    """Chunks per second of the model's ``encode`` alone on ``texts``, as ingestion calls it (the embedder's
    ``_encode``, without its question cache): the ceiling ingestion is compared with."""
    encode = getattr(embedder, "_encode", None)
    if encode is None or not texts:
        return float("nan")
    started = time.perf_counter()
    encode(texts)
    return len(texts) / (time.perf_counter() - started)


def corpus_throughput(report: Callable[[str], None] = print) -> dict[str, float]:
    """Ingest the seed corpus into a throw-away index and time it and the labelled queries."""
    from knowledge_base import service
    from knowledge_base.evaluation import evaluate, load_questions
    from knowledge_base.ingest import ingest_paths

    with _scratch_knowledge_base() as knowledge:
        result = ingest_paths(knowledge, [service.SEED_CORPUS])
        quality = evaluate(knowledge.retriever, load_questions())
    raw = _encode_rate(knowledge.embedder(), _chunk_texts(service.SEED_CORPUS))
    report(f"\nseed corpus: {result.chunks_added} chunks from {len(result.files)} files in {result.seconds:.2f} s "
           f"({result.chunks_per_second:.1f} chunks/s); the model alone encodes the same chunks at {raw:.1f} chunks/s "
           f"in this run: ingestion runs at {result.chunks_per_second / raw:.2f}x the model's speed")
    for mode, m in quality.items():
        report(f"  {mode:<7} recall@5 {m['recall_at_5']:.3f}  MRR {m['mrr']:.3f}  query median {m['latency_ms_median']} ms "
               f"p95 {m['latency_ms_p95']} ms")
    return {"chunks_per_second": round(result.chunks_per_second, 1), "raw_encode_chunks_per_second": round(raw, 1)}


def _synthetic_chunks(n: int, rng: np.random.Generator) -> list[Any]:
    """``n`` chunks whose words follow the seed corpus's vocabulary with a Zipf-like frequency (a few words in
    most chunks, most words in few), 60–120 words each, in 400 documents."""
    from knowledge_base import service
    from knowledge_base.splitter import Chunk
    from knowledge_base.terms import tokenize

    words = sorted({t for text in _chunk_texts(service.SEED_CORPUS) for t in tokenize(text)})
    weights = 1.0 / np.arange(1, len(words) + 1)
    weights /= weights.sum()
    rng.shuffle(words)
    out = []
    for i in range(n):
        text = " ".join(rng.choice(words, size=int(rng.integers(60, 121)), p=weights))
        source = f"synthetic-{i % 400:03d}.md"
        out.append(Chunk(chunk_id=f"syn-{i}", content=text, embed_text=text, content_hash=f"h{i}",
                         metadata={"source": source, "title": source, "topic": "", "domain": ""}))
    return out


def corpus_sweep(sizes: list[int], report: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Retrieval at growing corpus sizes, on the real index (SQLite chunks, keyword index, FAISS) with synthetic
    chunks and clustered vectors, and the real model for the questions: per question the whole search, and apart
    the query embedding (cache emptied first: cold asks), the keyword search and the vector search; beside it the
    in-memory rank_bm25 this index used before, on the same chunks and questions (the same-run baseline)."""
    from rank_bm25 import BM25Okapi

    from knowledge_base.evaluation import load_questions
    from knowledge_base.index import KnowledgeIndex
    from knowledge_base.retrieval import CANDIDATES, HybridRetriever
    from knowledge_base.terms import tokenize
    from orchestration.services import build_services

    embedder = build_services().embedder()
    forget: Callable[[], None] = getattr(embedder, "forget", lambda: None)  # the model keeps recent questions
    questions = [q["question"] for q in load_questions()]
    embedder.embed(["warm up the model"])
    rng = np.random.default_rng(11)
    centers = rng.standard_normal((400, embedder.dimension)).astype(np.float32)
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    rows = []
    report(f"\n{'chunks':>7} {'add/s':>7} {'first search ms':>16} {'total p50/p95 ms':>17} {'embed p50/p95':>14} "
           f"{'keyword p50/p95':>16} {'vector p50/p95':>15} {'rank_bm25 p50/p95':>18} {'rank_bm25 build ms':>19}")
    for n in sizes:
        chunks = _synthetic_chunks(n, rng)
        vectors = _clustered(rng, n, embedder.dimension, centers)
        folder = Path(tempfile.mkdtemp(prefix="assess-kb-sweep-"))
        index = KnowledgeIndex(folder, embedder.dimension)
        started = time.perf_counter()
        with index.batch():
            for at in range(0, n, 500):
                index.add(chunks[at:at + 500], vectors[at:at + 500])
        add_rate = n / (time.perf_counter() - started)
        reopened = HybridRetriever(KnowledgeIndex(folder, embedder.dimension), embedder)  # as a new process
        forget()
        started = time.perf_counter()
        reopened.search(questions[0])
        first_ms = (time.perf_counter() - started) * 1000
        total, embed, keyword, vector = [], [], [], []
        corpus = reopened.index.snapshot()
        for question in questions:
            forget()
            t0 = time.perf_counter()
            qvec = embedder.embed([question])
            t1 = time.perf_counter()
            reopened.index.keyword_search(tokenize(question), CANDIDATES * 4)
            t2 = time.perf_counter()
            corpus.dense(qvec[0], CANDIDATES)
            t3 = time.perf_counter()
            forget()
            reopened.search(question)
            t4 = time.perf_counter()
            embed.append((t1 - t0) * 1000)
            keyword.append((t2 - t1) * 1000)
            vector.append((t3 - t2) * 1000)
            total.append((t4 - t3) * 1000)
        started = time.perf_counter()
        bm25 = BM25Okapi([tokenize(c.embed_text) for c in chunks])
        bm25_build = (time.perf_counter() - started) * 1000
        baseline = []
        for question in questions:
            t0 = time.perf_counter()
            np.argsort(-bm25.get_scores(tokenize(question)))[: CANDIDATES * 4]
            baseline.append((time.perf_counter() - t0) * 1000)

        def pair(xs: list[float]) -> str:
            return f"{statistics.median(xs):.1f}/{float(np.percentile(xs, 95)):.1f}"

        row = {"chunks": n, "add_per_s": round(add_rate), "first_search_ms": round(first_ms, 1),
               "total_ms": pair(total), "embed_ms": pair(embed), "keyword_ms": pair(keyword), "vector_ms": pair(vector),
               "rank_bm25_ms": pair(baseline), "rank_bm25_build_ms": round(bm25_build)}
        rows.append(row)
        report(f"{n:>7,} {add_rate:>7.0f} {first_ms:>16.1f} {pair(total):>17} {pair(embed):>14} {pair(keyword):>16} "
               f"{pair(vector):>15} {pair(baseline):>18} {bm25_build:>19.0f}")
    return rows


def many_files_throughput(files: int, report: Callable[[str], None] = print) -> dict[str, float]:
    """Ingest ``files`` documents (the seed corpus's, each made distinct by a variant line in every paragraph) in
    one call, against the model alone encoding the same chunk texts in the same run."""
    from knowledge_base import service
    from knowledge_base.ingest import expand, ingest_paths

    seeds = [f.read_text() for f in expand([service.SEED_CORPUS]) if f.suffix == ".md"]
    folder = Path(tempfile.mkdtemp(prefix="assess-kb-files-"))
    for i in range(files):
        text = seeds[i % len(seeds)].replace("\n\n", f"\n\nVariant {i} of this note, kept by site team {i % 37}.\n\n")
        (folder / f"note-{i:04d}.md").write_text(text)
    texts = _chunk_texts(folder)
    with _scratch_knowledge_base() as knowledge:
        result = ingest_paths(knowledge, [folder])
    raw = _encode_rate(knowledge.embedder(), texts)
    report(f"\n{files} files: {result.chunks_added} chunks in {result.seconds:.1f} s ({result.chunks_per_second:.1f} "
           f"chunks/s); the model alone encodes the same {len(texts)} chunk texts at {raw:.1f} chunks/s in this run: "
           f"{result.chunks_per_second / raw:.2f}x")
    return {"chunks_per_second": round(result.chunks_per_second, 1), "raw_encode_chunks_per_second": round(raw, 1)}


def run(sizes: list[int], report: Callable[[str], None] = print, corpus: list[int] | None = None,
        files: int = 0) -> None:
    index_sizes(sizes, report=report)
    corpus_sweep(corpus if corpus is not None else [100, 1000, 10000, 50000], report)
    if files:
        many_files_throughput(files, report)
    corpus_throughput(report)


