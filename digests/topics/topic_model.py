"""The learned tagging tier: per-topic linear models over TF-IDF terms, with calibrated scores.

`digestbot train` (the `train` extra, scikit-learn) builds the artefact
`digests/data/topic_model.json.gz` from real arXiv papers and every judged paper; this
module only reads it, with NumPy. For each modelled topic it holds a weight per vocabulary term
and a bias, giving the topic's decision value; a Platt calibration that turns the decision
value into the probability that the topic is right; the threshold chosen in cross-validation;
and gates: broader modelled topics whose probability must reach a level of their own. A
topic's model is used only while the topic's rules are the ones it was trained with
(`rules_hash`): an operator's TOPICS_FILE that redefines a topic gets that topic's rules
alone, never a model trained for something else.

Artefact layout (JSON, gzip): format, vocabulary (terms in column order), idf (base64
little-endian float32), weights (base64 float16, vocabulary x topics, row-major), and per
topic: slug, rules_hash, bias, platt [a, b], threshold, gates [[slug, level], ...], and
"candidates": "evidence" for a topic decided only where the rules find evidence for it.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import itertools
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from digests.errors import ConfigurationError
from digests.topics.text_features import category_terms, paper_word_bytes

FORMAT = 2
Words = tuple[list[bytes], list[bytes], Sequence[str]]  # title words, abstract words, categories
SHIPPED = "topic_model.json.gz"
CHUNK = 256  # papers scored together (see `probabilities_many`)


class ModelError(ConfigurationError, ValueError):
    """The artefact is missing or unreadable; the message is one line."""


@dataclass(frozen=True)
class TopicCalibration:
    slug: str
    rules_hash: str
    bias: float
    platt: tuple[float, float]  # probability = 1 / (1 + exp(-(a * decision value + b)))
    threshold: float
    # (broader topic, level): this topic is only tagged when that topic's probability
    # reaches the level too.
    gates: tuple[tuple[str, float], ...] = ()
    # True: the model decides the topic on every paper of its field; False: only where the
    # rules find evidence for it (a candidate stage whose recall was measured, see training).
    everywhere: bool = True


class TopicModel:
    """Scores papers for the topics it was trained on; loaded once, read-only afterwards."""

    def __init__(
        self,
        vocabulary: Sequence[str],
        idf: np.ndarray,
        weights: np.ndarray,
        topics: Sequence[TopicCalibration],
        *,
        digest: str = "",
    ) -> None:
        if weights.shape != (len(vocabulary), len(topics)) or idf.shape != (len(vocabulary),):
            raise ModelError("topic model: vocabulary, idf and weights do not match in size")
        self._index_vocabulary(vocabulary)
        self._idf = idf.astype(np.float32)
        # Stored in half precision, held in single: products of float32 need no conversion,
        # which makes tagging a third faster for 4 bytes a weight (11 MB for 56 topics).
        self._weights = weights.astype(np.float32)
        self.topics = tuple(topics)
        self.column = {topic.slug: number for number, topic in enumerate(self.topics)}
        self._bias = np.array([t.bias for t in self.topics], dtype=np.float32)
        self._platt = np.array([t.platt for t in self.topics], dtype=np.float32).reshape(-1, 2)
        for topic in self.topics:
            unknown = [slug for slug, _ in topic.gates if slug not in self.column]
            if unknown:
                raise ModelError(f"topic model: {topic.slug} is gated on unknown {unknown[0]}")
        self.digest = digest  # sha256 of the artefact's bytes: part of the tagger version

    @classmethod
    @functools.cache
    def shipped(cls) -> TopicModel:
        """The artefact shipped with digestbot, loaded once per process."""
        return cls.load()

    @classmethod
    def load(cls, path: str | Path | None = None) -> TopicModel:
        """The shipped artefact, or the one at `path`."""
        try:
            if path is None:
                data = (resources.files("digests") / "data" / SHIPPED).read_bytes()
            else:
                data = Path(path).read_bytes()
            document = json.loads(gzip.decompress(data))
        except (OSError, ValueError, EOFError) as exc:
            raise ModelError(f"topic model {path or SHIPPED}: cannot read: {exc}") from None
        if document.get("format") != FORMAT:
            raise ModelError(f"topic model: format {document.get('format')!r}, need {FORMAT}")
        vocabulary = document["vocabulary"]
        idf = np.frombuffer(base64.b64decode(document["idf"]), dtype="<f4")
        weights = np.frombuffer(base64.b64decode(document["weights"]), dtype="<f2")
        topics = [
            TopicCalibration(
                t["slug"],
                t["rules_hash"],
                t["bias"],
                tuple(t["platt"]),
                t["threshold"],
                tuple((slug, level) for slug, level in t.get("gates", ())),
                t.get("candidates", "field") == "field",
            )
            for t in document["topics"]
        ]
        weights = weights.reshape(len(vocabulary), len(topics))
        return cls(
            vocabulary,
            idf,
            weights,
            topics,
            digest=hashlib.sha256(data).hexdigest(),
        )

    def vector(self, title: str, abstract: str, categories: Sequence[str] | str) -> _Vector:
        """The paper's TF-IDF vector (sublinear term frequency, unit length)."""
        words = paper_word_bytes(title, abstract)
        _, columns, values, _ = self._tf_idf([(*words, categories)])
        return _Vector(columns, values)

    def probabilities_many(self, papers: Sequence[Words]) -> np.ndarray:
        """Calibrated probabilities of every modelled topic (columns) for each paper (rows),
        given each paper's title words, abstract words (`text_words`) and categories."""
        decisions = np.zeros((len(papers), len(self.topics)), dtype=np.float32)
        # In chunks: the terms x topics products of a chunk stay in the CPU's cache, where a
        # batch of 2,000 papers' would take a hundred megabytes (three times slower).
        for start in range(0, len(papers), CHUNK):
            rows, columns, values, starts = self._tf_idf(papers[start : start + CHUNK])
            if len(rows):
                # Gathered and scaled in one buffer: two fewer temporaries of the chunk's size.
                products = np.take(self._weights, columns, axis=0)
                np.multiply(products, values[:, None], out=products)
                decisions[start + rows[starts]] = np.add.reduceat(products, starts, axis=0)
        logits = self._platt[:, 0] * (decisions + self._bias) + self._platt[:, 1]
        return 1.0 / (1.0 + np.exp(-logits))

    def _tf_idf(self, papers: Sequence[Words]) -> tuple[np.ndarray, ...]:
        """The papers' TF-IDF vectors as (row, column, value) triples sorted by row and
        column, and where each row starts. Every step runs on the whole batch at once."""
        rows, columns = self._occurrences(papers)
        width = len(self._idf)
        keys, counts = np.unique(rows * width + columns, return_counts=True)
        rows, columns = keys // width, keys % width
        values = (1.0 + np.log(counts, dtype=np.float32)) * self._idf[columns]
        starts = np.flatnonzero(np.concatenate(([True], rows[1:] != rows[:-1])))[: len(rows)]
        if len(rows):
            norms = np.sqrt(np.add.reduceat(values * values, starts))
            values /= np.repeat(norms, np.diff(np.append(starts, len(rows))))
        return rows, columns, values, starts

    def _occurrences(self, papers: Sequence[Words]) -> tuple[np.ndarray, np.ndarray]:
        """(paper, column) for every occurrence of a vocabulary term of `paper_terms`.

        No string is built per term: all the batch's words are looked up in one pass, and
        word pairs and title words are found through word numbers.
        """
        sections = [words for title, abstract, _ in papers for words in (title, abstract)]
        lengths = np.fromiter(map(len, sections), dtype=np.intp, count=len(sections))
        words = itertools.chain.from_iterable(sections)
        ids = np.fromiter(
            map(self._words.get, words, itertools.repeat(-1)), dtype=np.intp, count=lengths.sum()
        )
        section = np.repeat(np.arange(len(sections), dtype=np.intp), lengths)
        paper = section // 2
        in_title = section % 2 == 0
        # Only pairs whose words can open and close a vocabulary pair are looked up.
        same = (section[:-1] == section[1:]) & self._opens[ids[:-1]] & self._closes[ids[1:]]
        pair_rows, pairs = self._pair_columns(
            (ids[:-1] * self._word_count + ids[1:])[same], paper[:-1][same], len(papers)
        )
        others = [
            (number, self._others.get(term, -1))
            for number, (_, _, categories) in enumerate(papers)
            for term in category_terms(categories)
        ]
        extra = np.array(others, dtype=np.intp).reshape(-1, 2)
        rows = np.concatenate((paper, paper[in_title], pair_rows, extra[:, 0]))
        columns = np.concatenate(
            (self._unigram[ids], self._title[ids[in_title]], pairs, extra[:, 1])
        )
        known = columns >= 0
        return rows[known], columns[known]

    def _index_vocabulary(self, vocabulary: Sequence[str]) -> None:
        """Word numbers for every word the vocabulary uses, and column maps keyed on them."""
        # One compressed string, not 50,000: the terms are only read back to explain a score.
        self._terms = zlib.compress("\n".join(vocabulary).encode())
        words: dict[str, int] = {}
        for term in vocabulary:
            if ":" in term:
                kind, text = term.split(":", 1)
                if kind == "t":
                    words.setdefault(text, len(words))
            else:
                for word in term.split(" "):
                    words.setdefault(word, len(words))
        self._words = {word.encode(): number for word, number in words.items()}
        self._word_count = max(len(words), 1)
        self._unigram = np.full(len(words) + 1, -1, dtype=np.intp)  # [-1] is "unknown word"
        self._title = np.full(len(words) + 1, -1, dtype=np.intp)
        self._others: dict[str, int] = {}
        pairs: dict[int, int] = {}
        for column, term in enumerate(vocabulary):
            if term.startswith("t:"):
                self._title[words[term[2:]]] = column
            elif ":" in term:
                self._others[term] = column
            elif " " in term:
                first, second = term.split(" ")
                pairs[words[first] * self._word_count + words[second]] = column
            else:
                self._unigram[words[term]] = column
        # Sorted keys for np.searchsorted, ending in a key no pair has, so every search lands.
        keys = sorted(pairs)
        self._pair_keys = np.array([*keys, np.iinfo(np.int64).max], dtype=np.int64)
        self._pair_values = np.array([*(pairs[key] for key in keys), -1], dtype=np.int32)
        # [-1] stands for an unknown word, which neither opens nor closes a pair.
        self._opens = np.zeros(len(words) + 1, dtype=bool)
        self._closes = np.zeros(len(words) + 1, dtype=bool)
        for key in pairs:
            self._opens[key // self._word_count] = True
            self._closes[key % self._word_count] = True

    def _pair_columns(
        self, keys: np.ndarray, rows: np.ndarray, papers: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The rows and columns of the word pairs `keys` (of papers `rows`), in another order;
        -1 where the pair is not in the vocabulary."""
        # Sorted first, the keys are found four times faster (each search starts near the last
        # one's place); the order does not matter, as `_tf_idf` sorts the terms anyway.
        ordered = np.sort(keys * papers + rows)
        keys, rows = np.divmod(ordered, papers)
        at = np.searchsorted(self._pair_keys, keys)
        return rows, np.where(self._pair_keys[at] == keys, self._pair_values[at], -1)

    @functools.cached_property
    def vocabulary(self) -> list[str]:
        """Every term, by column."""
        return zlib.decompress(self._terms).decode().split("\n")

    def top_terms(self, vector: _Vector, column: int, limit: int = 5) -> list[tuple[str, float]]:
        """The paper's terms that pushed topic `column` most, for explanations."""
        if not len(vector.ids):
            return []
        contributions = vector.values * self._weights[vector.ids, column]
        order = np.argsort(-np.abs(contributions))[:limit]
        terms = self.vocabulary
        return [(terms[vector.ids[i]], float(contributions[i])) for i in order]


@dataclass(frozen=True, slots=True)
class _Vector:
    ids: np.ndarray
    values: np.ndarray


def encode(
    vocabulary: Sequence[str],
    idf: np.ndarray,
    weights: np.ndarray,
    topics: Sequence[TopicCalibration],
) -> bytes:
    """The artefact's bytes; the same inputs always give the same bytes."""
    document = {
        "format": FORMAT,
        "vocabulary": list(vocabulary),
        "idf": base64.b64encode(np.asarray(idf, dtype="<f4").tobytes()).decode(),
        "weights": base64.b64encode(np.asarray(weights, dtype="<f2").tobytes()).decode(),
        "topics": [
            {
                "slug": t.slug,
                "rules_hash": t.rules_hash,
                "bias": round(float(t.bias), 6),
                "platt": [round(float(value), 6) for value in t.platt],
                "threshold": round(float(t.threshold), 4),
                "gates": [[slug, round(float(level), 4)] for slug, level in t.gates],
                **({} if t.everywhere else {"candidates": "evidence"}),
            }
            for t in topics
        ],
    }
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
    return gzip.compress(text, compresslevel=9, mtime=0)
