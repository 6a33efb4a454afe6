"""Retrieval evaluation (``assess kb eval``): recall@5 and MRR of dense-only, BM25-only and hybrid
retrieval on the labelled set ``knowledge_base/eval/retrieval_eval.json``, plus query latency and
ingestion throughput, all in the same run."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

from knowledge_base.retrieval import HybridRetriever, Mode

EVAL_FILE = Path(__file__).resolve().parent / "eval" / "retrieval_eval.json"


def load_questions(path: Path = EVAL_FILE) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text(encoding="utf-8"))["questions"])


def evaluate(retriever: HybridRetriever, questions: list[dict[str, Any]], k: int = 5) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    modes: tuple[Mode, ...] = ("dense", "bm25", "hybrid")
    forget = getattr(retriever.embedder, "forget", lambda: None)  # latency of a new question, not a cached vector
    for mode in modes:
        hits, reciprocal, latencies = 0, 0.0, []
        for q in questions:
            forget()
            started = time.perf_counter()
            results = retriever.search(q["question"], k=k, mode=mode)
            latencies.append((time.perf_counter() - started) * 1000)
            sources = [r.metadata["source"] for r in results]
            expected = set(q["expected_sources"])
            first = next((i for i, s in enumerate(sources) if s in expected), None)
            hits += first is not None
            reciprocal += 1.0 / (first + 1) if first is not None else 0.0
        out[mode] = {"recall_at_5": round(hits / len(questions), 3), "mrr": round(reciprocal / len(questions), 3),
                     "latency_ms_median": round(statistics.median(latencies), 1),
                     "latency_ms_p95": round(sorted(latencies)[int(0.95 * (len(latencies) - 1))], 1)}
    return out
