"""The turn workers' fork server: what it imports once for every worker, and its early start.

Workers fork from a fork server (``turn_pool.py``). Its imports — the embedding runtime, FAISS, the graph — take
most of a cold start (8–10 s on the 2-core machine with torch and sentence-transformers; ONNX Runtime takes a
fraction of it). Started as soon as Chainlit loads the app, it
imports them on one core while the server imports Chainlit's and its own modules on the other; the pool then
forks its workers from it.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os

from foundation.config import Settings

# (not scikit-learn and SciPy: the question-frame reader is applied with numpy, ``nlu/frame_model.py``)
PRELOAD = ["faiss", "duckdb", "orchestration.graph", "orchestration.runtime", "orchestration.turn_pool",
           "knowledge_base.service"]


def preload(settings: Settings) -> list[str]:
    """The fork server's imports: the embedding runtime the workers will load (ONNX Runtime and the tokenizers take
    0.2 CPU-s; torch and sentence-transformers 6.8), then FAISS and the graph."""
    return (["onnxruntime", "tokenizers"] if settings.embeds_with_onnx else ["sentence_transformers"]) + PRELOAD


def start(settings: Settings) -> None:
    """Start the fork server (if it is not running) with its imports; returns at once, the imports go on."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # inherited by the fork server; why: knowledge_base/__init__.py
    multiprocessing.get_context("forkserver").set_forkserver_preload(preload(settings))
    multiprocessing.forkserver.ensure_running()
