"""A channel's taste, learnt from its votes: a linear model over the tagger's text features.

arxiv-sanity-lite trains a linear SVM per user over TF-IDF features of the papers they tagged
and ranks new papers by its decision value. This is the same idea without scikit-learn (a
training-only extra the running bot may not import): terms from `paper_terms` (words, word
pairs, title words, the primary category), weighted log(1 + tf) · idf over the voted papers and
scaled to unit length, and an L2-regularised logistic regression fitted by full-batch gradient
descent in NumPy. A few hundred voted papers train in milliseconds, so the model is trained
when a digest is composed and never stored.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from digests.messages.digest import DigestPaper
from digests.topics.text_features import paper_terms

STEPS = 300
LEARNING_RATE = 2.0
L2 = 1e-3


@dataclass(frozen=True)
class PaperModel:
    vocabulary: dict[str, int]
    idf: np.ndarray
    weights: np.ndarray
    bias: float

    def score(self, paper: DigestPaper) -> float:
        """The decision value: above 0 the channel would rather read it, below 0 not."""
        row = _vector(_terms(paper), self.vocabulary, self.idf)
        return float(row @ self.weights + self.bias)


def train(examples: Sequence[tuple[DigestPaper, bool]]) -> PaperModel | None:
    """A model from (paper, liked) examples; None without both likes and dislikes."""
    labels = np.array([1.0 if liked else 0.0 for _, liked in examples])
    if labels.size == 0 or labels.min() == labels.max():
        return None
    documents = [_terms(paper) for paper, _ in examples]
    frequency = Counter(term for terms in documents for term in set(terms))
    vocabulary = {term: index for index, term in enumerate(sorted(frequency))}
    count = len(documents)
    idf = np.array([math.log((1 + count) / (1 + frequency[t])) + 1.0 for t in vocabulary])
    matrix = np.vstack([_vector(terms, vocabulary, idf) for terms in documents])
    weights, bias = _fit(matrix, labels)
    return PaperModel(vocabulary, idf, weights, bias)


def _fit(matrix: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, float]:
    """Logistic regression, each class weighted by the other's share so that a channel that
    mostly likes (or mostly dislikes) still learns from the rarer votes."""
    positive = labels.mean()
    sample_weight = np.where(labels == 1.0, 1.0 - positive, positive) * 2.0
    weights = np.zeros(matrix.shape[1])
    bias = 0.0
    for _ in range(STEPS):
        predicted = 1.0 / (1.0 + np.exp(-(matrix @ weights + bias)))
        error = (predicted - labels) * sample_weight
        weights -= LEARNING_RATE * (matrix.T @ error / len(labels) + L2 * weights)
        bias -= LEARNING_RATE * float(error.mean())
    return weights, bias


def _terms(paper: DigestPaper) -> list[str]:
    return paper_terms(paper.title, paper.abstract, [paper.primary_category])


def _vector(terms: list[str], vocabulary: dict[str, int], idf: np.ndarray) -> np.ndarray:
    row = np.zeros(len(vocabulary))
    for term, times in Counter(terms).items():
        if (index := vocabulary.get(term)) is not None:
            row[index] = math.log1p(times) * idf[index]
    norm = np.linalg.norm(row)
    return row / norm if norm else row
