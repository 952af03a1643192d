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

STEPS = 200
LEARNING_RATE = 2.0
L2 = 1e-3
# As arxiv-sanity-lite's TfidfVectorizer: terms in fewer than MIN_DF voted papers say nothing
# about the channel's taste (most word pairs occur once), and the vocabulary is capped.
MIN_DF = 2
MAX_FEATURES = 5_000


@dataclass(frozen=True)
class ChannelFeedback:
    """What a channel's votes change in its digests and alerts."""

    hidden: frozenset[tuple[str, str]] = frozenset()  # (arXiv id, topic slug) voted off-topic
    model: PaperModel | None = None
    votes: int = 0  # the votes the model learnt from

    @property
    def note(self) -> str:
        return f"Ranked by this channel's {self.votes:,} votes" if self.model else ""


@dataclass(frozen=True)
class PaperModel:
    vocabulary: dict[str, int]
    idf: np.ndarray
    weights: np.ndarray
    bias: float

    def score(self, paper: DigestPaper) -> float:
        """The decision value: above 0 the channel would rather read it, below 0 not."""
        indices, values = _sparse(_terms(paper), self.vocabulary, self.idf)
        return float(values @ self.weights[indices] + self.bias)


def train(examples: Sequence[tuple[DigestPaper, bool]]) -> PaperModel | None:
    """A model from (paper, liked) examples; None without both likes and dislikes."""
    labels = np.array([1.0 if liked else 0.0 for _, liked in examples])
    if labels.size == 0 or labels.min() == labels.max():
        return None
    documents = [_terms(paper) for paper, _ in examples]
    frequency = Counter(term for terms in documents for term in set(terms))
    shared = [(count, term) for term, count in frequency.items() if count >= MIN_DF]
    kept = sorted(term for _, term in sorted(shared, reverse=True)[:MAX_FEATURES])
    vocabulary = {term: index for index, term in enumerate(kept)}
    count = len(documents)
    idf = np.array([math.log((1 + count) / (1 + frequency[t])) + 1.0 for t in kept])
    matrix = np.zeros((count, len(kept)))
    for row, terms in enumerate(documents):
        indices, values = _sparse(terms, vocabulary, idf)
        matrix[row, indices] = values
    weights, bias = _fit(matrix, labels)
    return PaperModel(vocabulary, idf, weights, bias)


def _fit(matrix: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, float]:
    """Logistic regression, each class weighted by the other's share so that a channel that
    mostly likes (or mostly dislikes) still learns from the rarer votes.

    Gradient descent from zero keeps the weights a combination of the papers' rows
    (w = Xᵀα), so the steps run on α against the papers' Gram matrix XXᵀ: the same iterates,
    at n² per step instead of n × vocabulary, since a channel votes on far fewer papers than
    its papers have terms.
    """
    count = len(labels)
    positive = labels.mean()
    sample_weight = np.where(labels == 1.0, 1.0 - positive, positive) * 2.0
    gram = matrix @ matrix.T
    alpha = np.zeros(count)
    bias = 0.0
    for _ in range(STEPS):
        predicted = 1.0 / (1.0 + np.exp(-(gram @ alpha + bias)))
        error = (predicted - labels) * sample_weight
        alpha = alpha * (1.0 - LEARNING_RATE * L2) - LEARNING_RATE * error / count
        bias -= LEARNING_RATE * float(error.mean())
    return matrix.T @ alpha, bias


def _terms(paper: DigestPaper) -> list[str]:
    return paper_terms(paper.title, paper.abstract, [paper.primary_category])


def _sparse(
    terms: list[str], vocabulary: dict[str, int], idf: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The paper's known terms: their indices and unit-length weights."""
    known = [(vocabulary[t], times) for t, times in Counter(terms).items() if t in vocabulary]
    indices = np.array([index for index, _ in known], dtype=np.intp)
    values = np.log1p(np.array([times for _, times in known], dtype=float)) * idf[indices]
    norm = np.linalg.norm(values)
    return indices, values / norm if norm else values
