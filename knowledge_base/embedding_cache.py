"""Embeddings of fixed texts kept on disk between processes: the router's examples and the question-frame corpus are
embedded by every process that starts (each turn worker, each CLI call) and change only when their files do.

Keyed by the embedder's name and dimension and every text (SHA-256), so an edited corpus or another model never reads
a stale file. The cache is a convenience: any problem reading or writing it means the texts are embedded as before.
Where: ``ASSESS_CACHE_DIR``, else ``$XDG_CACHE_HOME/assessment-assistant``, else ``~/.cache/assessment-assistant``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

import numpy as np

from knowledge_base.embeddings import Embedder

log = logging.getLogger(__name__)


def cache_dir() -> Path:
    explicit = os.environ.get("ASSESS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "assessment-assistant"


def embed_fixed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """``embedder.embed(texts)``, read from the cache when these texts were embedded by this model before."""
    digest = hashlib.sha256(f"{embedder.name}\0{embedder.dimension}\0".encode())
    for text in texts:
        digest.update(text.encode("utf-8", "surrogatepass") + b"\0")
    path = cache_dir() / f"embeddings-{digest.hexdigest()[:32]}.npy"
    try:
        cached = np.load(path, allow_pickle=False)
        if cached.shape == (len(texts), embedder.dimension):
            return np.asarray(cached)
    except (OSError, ValueError):
        pass
    vectors = embedder.embed(texts)
    keep(path, lambda tmp: np.save(tmp, np.asarray(vectors)), "the texts are embedded again next time")
    return vectors


def keep(path: Path, write: Callable[[IO[bytes]], object], otherwise: str) -> None:
    """Write a cache file whole (a temporary file, then renamed: a concurrent reader never sees half of one); a file
    that cannot be written is logged with what happens ``otherwise``, never raised."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=path.suffix, delete=False) as tmp:
            write(tmp)
        os.replace(tmp.name, path)
    except OSError as exc:
        log.info("cache file %s not written (%s); %s", path.name, exc, otherwise)
