"""The question-frame reader fitted from its corpus (scikit-learn, at build time or on a first start without the
cache): a reader restored from the cache reads as the fitted one, and the numpy reader the product runs reads every
corpus question as scikit-learn does. Fitting takes about fifteen seconds, so these are not in the unit tier."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestration.services import Services


def test_a_reader_restored_from_the_cache_reads_every_question_as_the_fitted_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, services: Services) -> None:
    from foundation.config import get_settings
    from orchestration.nlu.frame import FrameReader, load_corpus

    monkeypatch.setenv("ASSESS_CACHE_DIR", str(tmp_path))
    questions = load_corpus(get_settings().frames_corpus)
    fitted = FrameReader(questions, services.embedder())
    assert len(list(tmp_path.glob("frame-reader-*.npz"))) == 1  # kept for the next process
    restored = FrameReader(questions, services.embedder())
    for q in questions:
        a, b = fitted.read(q.question), restored.read(q.question)
        assert a[:3] == b[:3] and abs(a[3] - b[3]) < 1e-9 and abs(a[4] - b[4]) < 1e-9, q.question
    other = [q for q in questions if q.split == "train"][1:]  # another corpus is another file, never the stale one
    FrameReader(other + [q for q in questions if q.split != "train"], services.embedder())
    assert len(list(tmp_path.glob("frame-reader-*.npz"))) == 2


def test_the_numpy_reader_reads_every_corpus_question_as_scikit_learn_does(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch, services: Services) -> None:
    """The quality gate of reading without scikit-learn: on every question of the corpus (trained on or held out)
    the same features and the same class probabilities as scikit-learn's own transform and predict_proba."""
    import numpy as np

    from foundation.config import get_settings
    from orchestration.nlu.frame import FrameReader, _plain, cue_vector, fit, load_corpus

    monkeypatch.setenv("ASSESS_CACHE_DIR", str(tmp_path))
    questions = load_corpus(get_settings().frames_corpus)
    train = [q for q in questions if q.split == "train"]
    texts = [_plain(q.question) for q in train]
    labels = {"ask": [q.frame.ask for q in train], "subject": [q.frame.subject for q in train],
              "cannot": [q.frame.cannot or "-" for q in train]}
    fitted = fit(texts, labels, services.embedder())
    reader = FrameReader(questions, services.embedder())
    plain = [_plain(q.question) for q in questions]
    words, chars = fitted.words.transform(plain).toarray(), fitted.chars.transform(plain).toarray()
    models = {"ask": reader._ask, "subject": reader._subject, "cannot": reader._cannot}
    for i, text in enumerate(plain):
        ours = reader.features(text)
        for block, theirs in ((ours.words, words[i]), (ours.chars, chars[i])):
            dense = np.zeros_like(theirs)
            dense[block[0]] = block[1]
            assert np.allclose(dense, theirs, atol=1e-12), text
        row = np.hstack([ours.dense, words[i], chars[i], cue_vector(text) * 1.5])[None, :]
        for name, model in fitted.models.items():
            assert list(models[name].classes_) == list(model.classes_)
            assert np.allclose(models[name].proba(ours), model.predict_proba(row)[0], atol=1e-9), (name, text)
