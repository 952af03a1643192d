"""Measure the tagger against a judged gold set: per-topic precision, recall and F1.

A gold file is JSON Lines (optionally gzip): one paper per line in the ingest format (`id`,
`title`, `abstract`, `categories`, ...) plus `labels` — topic slug -> "yes" | "borderline" |
"no", judged by reading — and `split` ("dev" or "test"). A topic counts as predicted when it
is among the tags the paper would be stored with, roll-ups included. Borderline pairs are
left out of every figure; they are counted apart.

A paper drawn by a sampling design (`scripts/independent_pool.py`) also carries `weights`:
topic -> the number of the month's papers it stands for (1 / its inclusion probability).
Precision and recall then weigh each judged pair by it, so they estimate the figures over the
whole month, not over the pool; the counts stay counts of judged pairs.
"""

from __future__ import annotations

import gzip
import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from digests.errors import UsageError
from digests.topics.tagger import TagEvidence, Tagger

LABELS = ("yes", "borderline", "no")


class GoldError(UsageError, ValueError):
    """The gold file is unusable; the message names the line."""


@dataclass(frozen=True)
class GoldPaper:
    arxiv_id: str
    title: str
    abstract: str
    categories: tuple[str, ...]
    split: str
    labels: dict[str, str]
    published: str = ""  # the listing day, "YYYY-MM-DD", when the file gives it
    weights: dict[str, float] = field(default_factory=dict)  # topic -> papers it stands for


@dataclass
class TopicScore:
    slug: str
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    true_negatives: int = 0
    borderline: int = 0
    # The same three, each pair weighed by the papers it stands for (1 without a design).
    weighted_true_positives: float = 0.0
    weighted_false_positives: float = 0.0
    weighted_false_negatives: float = 0.0

    @property
    def judged(self) -> int:
        return (
            self.true_positives + self.false_positives + self.false_negatives + self.true_negatives
        )

    @property
    def precision(self) -> float | None:
        predicted = self.weighted_true_positives + self.weighted_false_positives
        return self.weighted_true_positives / predicted if predicted else None

    @property
    def recall(self) -> float | None:
        relevant = self.weighted_true_positives + self.weighted_false_negatives
        return self.weighted_true_positives / relevant if relevant else None

    def count(self, label: str, predicted: bool, weight: float = 1.0) -> None:
        """One judged pair: its label and whether the tagger tagged the topic."""
        if label == "borderline":
            self.borderline += 1
        elif label == "yes" and predicted:
            self.true_positives += 1
            self.weighted_true_positives += weight
        elif label == "yes":
            self.false_negatives += 1
            self.weighted_false_negatives += weight
        elif predicted:
            self.false_positives += 1
            self.weighted_false_positives += weight
        else:
            self.true_negatives += 1

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class TaggingError:
    """A judged pair the tagger got wrong, with what it saw."""

    arxiv_id: str
    title: str
    kind: str  # "false positive" | "false negative"
    score: float  # the tag's score, or the model's probability / rules' score when untagged
    evidence: TagEvidence


@dataclass
class Evaluation:
    topics: list[TopicScore]
    errors: list[TaggingError] = field(default_factory=list)

    def macro(self, name: str) -> float | None:
        values = [getattr(t, name) for t in self.topics if getattr(t, name) is not None]
        return sum(values) / len(values) if values else None

    def to_json(self) -> dict:
        return {
            "topics": [
                {
                    "slug": t.slug,
                    "precision": _round(t.precision),
                    "recall": _round(t.recall),
                    "f1": _round(t.f1),
                    "judged": t.judged,
                    "positives": t.true_positives + t.false_negatives,
                    "true_positives": t.true_positives,
                    "false_positives": t.false_positives,
                    "false_negatives": t.false_negatives,
                    "borderline": t.borderline,
                }
                for t in self.topics
            ],
            "macro": {name: _round(self.macro(name)) for name in ("precision", "recall", "f1")},
            "errors": [
                {
                    "id": e.arxiv_id,
                    "title": e.title,
                    "topic": e.evidence.slug,
                    "kind": e.kind,
                    "score": e.score,
                    "rules_score": e.evidence.rules_score,
                    "evidence": e.evidence.evidence,
                    "probability": e.evidence.probability,
                    "threshold": e.evidence.threshold,
                    "terms": [[term, round(weight, 3)] for term, weight in e.evidence.terms],
                }
                for e in self.errors
            ],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def load_gold(path: str | Path) -> list[GoldPaper]:
    """Read a gold file; raises `GoldError` naming the first bad line."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as lines:
            rows = [(number, line) for number, line in enumerate(lines, 1) if line.strip()]
        return [_gold_paper(line, number) for number, line in rows]
    except OSError as exc:
        raise GoldError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except GoldError as exc:
        raise GoldError(f"{path}: {exc}") from None


def _gold_paper(line: str, number: int) -> GoldPaper:
    try:
        row = json.loads(line)
    except ValueError:
        raise GoldError(f"line {number}: not JSON") from None
    labels = row.get("labels") if isinstance(row, dict) else None
    if not isinstance(labels, dict) or not isinstance(row.get("id"), str):
        raise GoldError(f"line {number}: needs an 'id' and a 'labels' object")
    bad = [f"{k}={v!r}" for k, v in labels.items() if v not in LABELS]
    if bad:
        raise GoldError(f"line {number}: labels must be yes/borderline/no, not {bad[0]}")
    categories = row.get("categories") or []
    if isinstance(categories, str):
        categories = categories.split()
    weights = row.get("weights") or {}
    if not isinstance(weights, dict) or not all(
        isinstance(w, int | float) and w >= 1 for w in weights.values()
    ):
        raise GoldError(f"line {number}: 'weights' must map topics to numbers of at least 1")
    return GoldPaper(
        arxiv_id=row["id"],
        title=str(row.get("title") or ""),
        abstract=str(row.get("abstract") or ""),
        categories=tuple(str(c) for c in categories),
        split=str(row.get("split") or ""),
        labels=dict(labels),
        published=str(row.get("published") or "")[:10],
        weights={k: float(v) for k, v in weights.items()},
    )


def evaluate(
    tagger: Tagger,
    papers: Iterable[GoldPaper],
    *,
    split: str | None = None,
    topics: Sequence[str] | None = None,
    worst: int = 20,
) -> Evaluation:
    """Score `tagger` on the judged pairs of `papers` (of `split`, when given).

    `worst` errors are kept: the most confident false positives and the false negatives the
    tagger was furthest from, in turn.
    """
    known = {topic.slug for topic in tagger.catalog.topics}
    scores: dict[str, TopicScore] = {}
    wrong: list[tuple[float, GoldPaper, str, str, float]] = []
    for paper in papers:
        if split is not None and paper.split != split:
            continue
        tags = {t.slug: t.score for t in tagger.tag(paper.title, paper.abstract, paper.categories)}
        for slug, label in paper.labels.items():
            if slug not in known or (topics is not None and slug not in topics):
                continue
            score = scores.setdefault(slug, TopicScore(slug))
            predicted = slug in tags
            score.count(label, predicted, paper.weights.get(slug, 1.0))
            if label == "yes" and not predicted:
                wrong.append((0.0, paper, slug, "false negative", 0.0))
            elif label == "no" and predicted:
                wrong.append((-tags[slug], paper, slug, "false positive", tags[slug]))
    order = {topic.slug: n for n, topic in enumerate(tagger.catalog.topics)}
    evaluation = Evaluation(sorted(scores.values(), key=lambda s: order[s.slug]))
    evaluation.errors = _worst_errors(tagger, wrong, worst)
    return evaluation


def _worst_errors(
    tagger: Tagger, wrong: list[tuple[float, GoldPaper, str, str, float]], limit: int
) -> list[TaggingError]:
    explained = []
    for _, paper, slug, kind, score in wrong:
        if kind == "false negative":
            evidence = tagger.explain(paper.title, paper.abstract, paper.categories, slug)
            score = evidence.probability or evidence.rules_score or 0.0
        else:
            evidence = None
        explained.append((paper, slug, kind, score, evidence))
    positives = sorted((e for e in explained if e[2] == "false positive"), key=lambda e: -e[3])
    negatives = sorted((e for e in explained if e[2] == "false negative"), key=lambda e: e[3])
    picked = []
    for pair in itertools.zip_longest(positives, negatives):
        picked += [e for e in pair if e is not None]
    errors = []
    for paper, slug, kind, score, evidence in picked[:limit]:
        if evidence is None:
            evidence = tagger.explain(paper.title, paper.abstract, paper.categories, slug)
        errors.append(TaggingError(paper.arxiv_id, paper.title, kind, round(score, 4), evidence))
    return errors


def evaluate_by_month(
    tagger: Tagger, papers: Iterable[GoldPaper], *, split: str | None = None
) -> dict[str, Evaluation]:
    """One evaluation per listing month ("YYYY-MM", or "undated"), oldest first: drift shows
    as figures that fall month by month on papers newer than the tagger learnt from."""
    months: dict[str, list[GoldPaper]] = {}
    for paper in papers:
        if split is None or paper.split == split:
            months.setdefault(paper.published[:7] or "undated", []).append(paper)
    return {month: evaluate(tagger, months[month], worst=0) for month in sorted(months)}
