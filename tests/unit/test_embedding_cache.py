"""The disk cache of fixed embeddings (router examples, question-frame corpus): same texts and model read the file,
other texts or another model never do, and a damaged file is embedded again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from knowledge_base.embedding_cache import embed_fixed
from knowledge_base.embeddings import HashingEmbedder


class Counting(HashingEmbedder):
    def __init__(self, dimension: int = 384) -> None:
        super().__init__(dimension)
        self.calls = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        return super().embed(texts)


def test_fixed_texts_are_embedded_once_and_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSESS_CACHE_DIR", str(tmp_path))
    model = Counting()
    first = embed_fixed(model, ["show ntp findings", "which devices fail"])
    second = embed_fixed(model, ["show ntp findings", "which devices fail"])
    assert model.calls == 1 and np.array_equal(first, second)
    embed_fixed(model, ["show ntp findings", "which devices fail", "a third question"])
    assert model.calls == 2  # other texts: another key
    other = Counting(dimension=128)
    assert embed_fixed(other, ["show ntp findings", "which devices fail"]).shape == (2, 128) and other.calls == 1


def test_a_damaged_cache_file_is_embedded_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSESS_CACHE_DIR", str(tmp_path))
    model = Counting()
    embed_fixed(model, ["snmp"])
    (cached,) = tmp_path.glob("embeddings-*.npy")
    cached.write_bytes(b"not numpy")
    assert embed_fixed(model, ["snmp"]).shape == (1, 384) and model.calls == 2


def test_an_unwritable_cache_directory_only_costs_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("ASSESS_CACHE_DIR", str(blocker / "cache"))  # a directory under a file cannot exist
    model = Counting()
    assert embed_fixed(model, ["aaa"]).shape == (1, 384)
    assert embed_fixed(model, ["aaa"]).shape == (1, 384) and model.calls == 2
