"""``assess bench kb``: which FAISS index the knowledge base needs. Exact inner-product search against
HNSW at growing sizes (random unit vectors of the model's dimension), with HNSW's recall@10 against
the exact answer, plus real ingestion throughput and query latency on the seed corpus."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from knowledge_base.index import build_faiss


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


def corpus_throughput(report: Callable[[str], None] = print) -> dict[str, float]:
    """Ingest the seed corpus into a throw-away index and time it and the labelled queries."""
    from knowledge_base import service
    from knowledge_base.evaluation import evaluate, load_questions
    from knowledge_base.ingest import ingest_paths
    from orchestration.config import using_data_dir

    with using_data_dir(Path(tempfile.mkdtemp(prefix="assess-kb-bench-"))):
        service.reset()
        try:
            service.get_retriever()  # load the model first: throughput is measured on embedding, not on start-up
            service.get_retriever().embedder.embed(["warm up", "the first encode initialises torch's thread pool"])
            result = ingest_paths([service.SEED_CORPUS])
            quality = evaluate(service.get_retriever(), load_questions())
        finally:
            service.reset()
    raw = raw_encode_rate()
    report(f"\nseed corpus: {result.chunks_added} chunks from {len(result.files)} files in {result.seconds:.2f} s "
           f"({result.chunks_per_second:.1f} chunks/s); the model alone encodes the same chunks at {raw:.1f} chunks/s "
           f"in this run: ingestion runs at {result.chunks_per_second / raw:.2f}x the model's speed")
    for mode, m in quality.items():
        report(f"  {mode:<7} recall@5 {m['recall_at_5']:.3f}  MRR {m['mrr']:.3f}  query median {m['latency_ms_median']} ms "
               f"p95 {m['latency_ms_p95']} ms")
    return {"chunks_per_second": round(result.chunks_per_second, 1), "raw_encode_chunks_per_second": round(raw, 1)}


def raw_encode_rate() -> float:
    """Chunks per second of ``SentenceTransformer.encode`` alone on the seed corpus's chunk texts (the texts
    ingestion embeds), batch size 64 as ingestion uses: the ceiling ingestion is compared with."""
    from knowledge_base import service
    from knowledge_base.embeddings import get_embedder
    from knowledge_base.ingest import expand
    from knowledge_base.loaders import load_file
    from knowledge_base.splitter import split_documents

    texts = [c.embed_text for f in expand([service.SEED_CORPUS]) for c in split_documents(load_file(f, f.name))]
    model = getattr(get_embedder(), "_model", None)
    if model is None or not texts:
        return float("nan")
    started = time.perf_counter()
    model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False, convert_to_numpy=True)
    return len(texts) / (time.perf_counter() - started)


def run(sizes: list[int], report: Callable[[str], None] = print) -> None:
    index_sizes(sizes, report=report)
    corpus_throughput(report)


