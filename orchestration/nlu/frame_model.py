"""The fitted question-frame reader applied with numpy alone: its TF-IDF vocabularies and logistic-regression
coefficients, as stored after the fit (``frame.py``), turned into class probabilities.

scikit-learn fits the reader (once; the fitted numbers are kept on disk) but is not needed to apply it: importing it
and SciPy cost every turn worker 78 MB of memory and its fork server 1.3 s of start-up, for what is a dot product.
The analyzers below are scikit-learn's own (``TfidfVectorizer`` with ``analyzer="word"``, ``ngram_range=(1, 2)``,
``token_pattern=r"(?u)\\b\\w+\\b"``; ``analyzer="char_wb"``, ``ngram_range=(2, 4)``; ``sublinear_tf``, l2 norm) and
``LogisticRegression.predict_proba`` (softmax, or the logistic function for two classes);
``tests/unit/test_question_frame.py`` checks features and probabilities against scikit-learn on every corpus question.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

import numpy as np

_TOKEN = re.compile(r"(?u)\b\w+\b")
_SPACES = re.compile(r"\s\s+")


def word_ngrams(text: str) -> list[str]:
    """Words and word pairs of the lower-cased text."""
    tokens = _TOKEN.findall(text.lower())
    return tokens + [" ".join(tokens[i:i + 2]) for i in range(len(tokens) - 1)]


def char_wb_ngrams(text: str, low: int = 2, high: int = 4) -> list[str]:
    """Character n-grams inside each word padded with a space (a word shorter than n counted once)."""
    out: list[str] = []
    for word in _SPACES.sub(" ", text.lower()).split():
        w = f" {word} "
        for n in range(low, high + 1):
            offset = 0
            out.append(w[offset:offset + n])
            while offset + n < len(w):
                offset += 1
                out.append(w[offset:offset + n])
            if offset == 0:
                break
    return out


class Tfidf:
    """One vectorizer's vocabulary and idf weights: a text's sparse, l2-normalised, sublinear tf-idf."""

    def __init__(self, terms: np.ndarray, idf: np.ndarray, analyzer: Callable[[str], list[str]]) -> None:
        self.index = {str(t): i for i, t in enumerate(terms)}
        self.idf = np.asarray(idf, dtype=np.float64)
        self.analyzer = analyzer

    def __len__(self) -> int:
        return len(self.index)

    def weights(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(column, value) of the text's non-zero features."""
        counts = Counter(t for t in self.analyzer(text) if t in self.index)
        columns = np.fromiter((self.index[t] for t in counts), dtype=np.intp, count=len(counts))
        values = (np.log(np.fromiter(counts.values(), dtype=np.float64, count=len(counts))) + 1.0) * self.idf[columns]
        norm = float(np.sqrt(values @ values))
        return columns, values / norm if norm > 0 else values


class Features:
    """A question's features as the reader was fitted on them: [embedding × 2, word tf-idf, char tf-idf, cues ×
    1.5], kept as blocks (the n-gram blocks sparse)."""

    def __init__(self, dense: np.ndarray, words: tuple[np.ndarray, np.ndarray], chars: tuple[np.ndarray, np.ndarray],
                 cues: np.ndarray) -> None:
        self.dense, self.words, self.chars, self.cues = dense * 2.0, words, chars, cues * 1.5


class Linear:
    """A fitted logistic regression's coefficients over the feature blocks."""

    def __init__(self, coef: np.ndarray, intercept: np.ndarray, classes: np.ndarray, sizes: tuple[int, int, int]) -> None:
        dense, words, chars = sizes
        self.classes_ = np.asarray(classes).astype(object)
        self.intercept = np.asarray(intercept, dtype=np.float64)
        self.dense = coef[:, :dense]
        self.words = coef[:, dense:dense + words]
        self.chars = coef[:, dense + words:dense + words + chars]
        self.cues = coef[:, dense + words + chars:]

    def proba(self, x: Features) -> np.ndarray:
        z = (self.dense @ x.dense + self.words[:, x.words[0]] @ x.words[1] + self.chars[:, x.chars[0]] @ x.chars[1]
             + self.cues @ x.cues + self.intercept)
        if len(self.classes_) <= 2:
            p = 1.0 / (1.0 + np.exp(-z[0]))
            return np.array([1.0 - p, p])
        e = np.exp(z - z.max())
        return np.asarray(e / e.sum())
