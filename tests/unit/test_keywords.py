"""The keyword index: BM25 as SQLite FTS5 computes it (FTS5 is the oracle, on the same terms), the same after
removals as an index built without the removed chunks, the same after a round trip through its file; a viewer's
search over the segments that never sees another owner's chunks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from benchmarks.knowledge import _synthetic_chunks
from knowledge_base.evaluation import load_questions
from knowledge_base.keywords import KeywordIndex
from knowledge_base.terms import tokenize

QUESTIONS = [tokenize(q["question"]) for q in load_questions()]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return [c.embed_text for c in _synthetic_chunks(600, np.random.default_rng(5))] + [
        "snmp-server community ios-xe 17.9.4 aes-256 ssh version 2", "ntp authentication md5 key rotation"]


def _fts5(texts: list[str], terms: list[str], limit: int) -> list[tuple[int, float]]:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE VIRTUAL TABLE t USING fts5(terms, tokenize = \"unicode61 remove_diacritics 0 tokenchars '.+-'\")")
    con.executemany("INSERT INTO t (rowid, terms) VALUES (?, ?)", [(i, " ".join(tokenize(x))) for i, x in enumerate(texts)])
    query = " OR ".join(f'"{t}"' for t in dict.fromkeys(terms))
    return [(int(r), float(s)) for r, s in con.execute(
        "SELECT rowid, -bm25(t) FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (query, limit))]


def _same(ours: list[tuple[int, float]], oracle: list[tuple[int, float]]) -> None:
    """The same scores in the same order; ids may differ only among equal scores."""
    assert np.allclose([s for _, s in ours], [s for _, s in oracle], rtol=1e-5)
    theirs = dict(oracle)
    assert all(abs(score - theirs[i]) <= 1e-5 * score for i, score in ours if i in theirs)
    assert len({i for i, _ in ours} & set(theirs)) >= len(ours) - 2


def test_scores_are_fts5_bm25(texts: list[str]) -> None:
    index = KeywordIndex().added([(i, text) for i, text in enumerate(texts)])
    for terms in [*QUESTIONS, ["ios-xe", "17.9.4"], ["no-such-term"]]:
        _same(index.search(terms, 50), _fts5(texts, terms, 50))
    assert index.search(["aes-256"], 5)[0][0] == len(texts) - 2  # a term with inner dashes and digits is one term


def test_removal_and_a_round_trip_through_the_file_give_the_index_built_without(texts: list[str],
                                                                               tmp_path: Path) -> None:
    built = KeywordIndex()
    for at in range(0, len(texts), 100):  # added in batches, as ingestion does
        built = built.added([(i, texts[i]) for i in range(at, min(at + 100, len(texts)))])
    gone = set(range(0, len(texts), 3))
    kept = [i for i in range(len(texts)) if i not in gone]
    trimmed = built.removed(sorted(gone))
    fresh = KeywordIndex().added([(i, texts[i]) for i in kept])
    trimmed.save(tmp_path / "k.npz")
    loaded = KeywordIndex.load(tmp_path / "k.npz")
    assert built.size == len(texts) and trimmed.size == loaded.size == len(kept) == len(loaded.ids)
    for terms in QUESTIONS:
        expected = fresh.search(terms, 50)
        assert trimmed.search(terms, 50) == expected == loaded.search(terms, 50)
        assert not {i for i, _ in expected} & gone
    assert built.search(QUESTIONS[0], 50) != trimmed.search(QUESTIONS[0], 50)  # the removal did change something


def test_an_owner_finds_only_their_own_chunks_and_the_shared_ones(tmp_path: Path) -> None:
    """Segments per owner: a viewer searches the shared documents and their own uploads, never anyone else's."""
    from foundation.database import open_database
    from knowledge_base.index import Corpus
    from knowledge_base.segments import SHARED, SegmentFiles, built_segment

    def vec(seed: int) -> np.ndarray:
        v = np.random.default_rng(seed).normal(size=8).astype(np.float32)
        return v / np.linalg.norm(v)

    segments = {SHARED: built_segment([(1, "ospf md5 keys on router-1", vec(1))], 8),
                "alice": built_segment([(2, "ospf md5 keys", vec(2)), (3, "bgp timers", vec(3))], 8),
                "bob": built_segment([(4, "ospf keys of bob", vec(4))], 8)}
    corpus = Corpus(1, segments, open_database(f"sqlite:///{tmp_path / 'kb.sqlite'}"))
    assert {i for i, _ in corpus.keyword_search(["ospf"], 10, viewer="alice")} == {1, 2}
    assert {i for i, _ in corpus.keyword_search(["ospf"], 10, viewer="carol")} == {1}
    assert {i for i, _ in corpus.dense(vec(4), 10, viewer="alice")} == {1, 2, 3}
    assert corpus.vector(4, viewer="alice") is None and corpus.vector(4, viewer="bob") is not None
    files = SegmentFiles(tmp_path)
    files.write(segments, segments, "stamp-1")
    loaded = files.read("stamp-1")
    assert loaded is not None and files.read("stamp-2") is None
    assert [i for i, _ in loaded["bob"].keywords.search(["ospf"], 10)] == [4]
    assert KeywordIndex().search(["ospf"], 10) == [] and segments["bob"].keywords.search([], 10) == []


def test_a_huge_word_or_title_costs_nothing_in_the_keyword_file(tmp_path: Path) -> None:
    """Terms longer than a word are not indexed, and the file keeps each term at its own length (a fixed-width string
    array made every term as wide as the longest: a 37 KB document grew the file to 480 MB)."""
    index = KeywordIndex().added([(1, "ospf md5 keys " + "x" * 1_000_000), (2, "bgp " + "y" * 65 + " timers")])
    assert set(index.postings) == {"ospf", "md5", "keys", "bgp", "timers"}
    index.save(tmp_path / "k.npz")
    assert (tmp_path / "k.npz").stat().st_size < 4_000
