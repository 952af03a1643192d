"""Train the learned tagging tier (`digestbot train`, the `train` extra: scikit-learn).

Reads real arXiv papers (for the vocabulary and idf) and judged gold files (for labels): the
gold set `tests/data/gold/gold.jsonl.gz` plus any further judged lines, such as a reviewed
`digestbot feedback export`. For every topic judged often enough it fits a logistic regression
over the TF-IDF terms of `digests.topics.text_features` (balanced classes), then, from 5-fold
cross-validated decision values on the training papers the rules propose:
- a Platt calibration, so that a score of 0.9 is right about nine times in ten;
- the threshold (and the broader topics' gates) with the best F-beta on those papers, counting
  the positives the rules never propose as misses.

Forward in time (`--until`, `--choose`, `--report`): train on the papers listed up to a month,
choose each threshold again on the next month, and score the month after that, as the running
bot meets papers newer than what it learnt from.

The same corpus, gold files and catalog always give the same bytes: folds come from the ids,
the solver is deterministic and the artefact is written without timestamps. The running bot
never imports this module.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression

from digests.topics.catalog import Catalog
from digests.topics.evaluation import Evaluation, GoldPaper, evaluate, load_gold
from digests.topics.tagger import Tagger
from digests.topics.text_features import paper_terms, paper_word_bytes
from digests.topics.topic_model import TopicCalibration, TopicModel, encode

ROOT = Path(__file__).resolve().parents[2]  # the checkout, when run from one
CORPORA = [
    ROOT.parent / "shared/data/arxiv-real" / name
    for name in ("ai-2025.jsonl.gz", "ai-2026q1.jsonl.gz")
]
GOLD = ROOT / "tests/data/gold/gold.jsonl.gz"
# The blind readings of the independent pools (tests/data/gold/independent/), read after the
# gold set, so that for a paper judged in both their labels win.
INDEPENDENT = sorted((ROOT / "tests/data/gold/independent").glob("*.jsonl.gz"))
GOLDS = [GOLD, *INDEPENDENT]
OUT = ROOT / "digests/data/topic_model.json.gz"
MIN_DF = 3  # a term must occur in this many papers to enter the vocabulary
MAX_VOCABULARY = 50_000
MAX_DF = 0.3  # share of papers above which a term is too common to tell topics apart
MIN_POSITIVES = 20  # judged `yes` papers in the training rows a topic needs to get a model
MIN_CHOOSE_POSITIVES = 8  # judged `yes` papers of the choosing month to move a threshold
C = 4.0  # inverse regularisation strength
FOLDS = 5
# Thresholds maximise F-beta with this beta. 0.8 (precision a little heavier) was the recipe
# until papers of 2026 were judged; on February 2026, F1 thresholds were the variant that met
# both macro floors (docs/tagging.md).
BETA = 1.0
# Broader topics whose own tag a topic needs: its gate on them starts at their threshold. The
# RL for LLM Agents guide asks for RL training, so a paper the RL model does not tag is none,
# however agentic (docs/tagging.md, "How the recipe was chosen").
REQUIRED_PARENTS: dict[str, tuple[str, ...]] = {"rl-for-llm-agents": ("reinforcement-learning",)}
GATE_LEVELS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)  # probabilities a gate may require
MIN_GAIN = 0.003  # F-beta a gate must add to be kept
SURE_YES, SURE_NO = 0.9, 0.1  # self-training: probabilities taken as labels
# How much a label from an independent pool (tests/data/gold/independent/) counts in the fit
# beside one of the gold set: they are the readings of the month's whole field, drawn without
# the tagger, so they teach the model the papers its rules never proposed. Chosen on February
# 2026 among 1, 3 and 6 (docs/tagging.md).
INDEPENDENT_EMPHASIS = 3.0
# Topics the model decides only where the rules find evidence for them. Chosen on February
# 2026 with the recipe trained up to January: the topics whose F1 on February's independent
# pool was higher behind the rules than on every paper of the field, and whose rules proposed
# at least 98% of the pool's judged `yes` (weighed by the design), so the candidate stage loses
# (almost) nothing (docs/tagging.md). Every other learned topic is scored on every paper of
# its field.
EVIDENCE_ONLY = frozenset(
    {
        "rl-for-llm-agents",
        "llm-agents",
        "computer-vision",
        "agentic-rl",
        "group-relative-policy-optimization",
        "language-modeling",
        "llm-agent-training",
        "hallucination",
        "image-segmentation",
        "generative-models",
    }
)


class TrainingError(ValueError):
    """The inputs cannot give a model; the message is one line."""


@dataclass
class Fitted:
    calibration: TopicCalibration
    weights: np.ndarray
    report: dict


def load_corpus(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def vocabulary_and_idf(documents: list[tuple[str, str, list[str]]]) -> tuple[list[str], np.ndarray]:
    """Terms in at least MIN_DF documents (the most frequent MAX_VOCABULARY), and smooth idf."""
    frequency: dict[str, int] = {}
    for title, abstract, categories in documents:
        for term in set(paper_terms(title, abstract, categories)):
            frequency[term] = frequency.get(term, 0) + 1
    most = MAX_DF * len(documents)
    kept = [t for t, n in frequency.items() if MIN_DF <= n <= most]
    kept.sort(key=lambda t: (-frequency[t], t))
    vocabulary = sorted(kept[:MAX_VOCABULARY])
    counts = np.array([frequency[t] for t in vocabulary], dtype=np.float64)
    idf = np.log((1 + len(documents)) / (1 + counts)) + 1.0
    return vocabulary, idf.astype(np.float32)


def feature_matrix(model: TopicModel, papers: list[GoldPaper], width: int) -> sparse.csr_matrix:
    """Rows exactly as the running tagger computes them."""
    indptr, indices, values = [0], [], []
    for paper in papers:
        vector = model.vector(paper.title, paper.abstract, paper.categories)
        indices.extend(vector.ids.tolist())
        values.extend(vector.values.tolist())
        indptr.append(len(indices))
    return sparse.csr_matrix((values, indices, indptr), shape=(len(papers), width))


def fold_of(arxiv_id: str) -> int:
    return hashlib.sha256(f"fold:{arxiv_id}".encode()).digest()[0] % FOLDS


def classifier() -> LogisticRegression:
    return LogisticRegression(
        C=C, class_weight="balanced", solver="liblinear", max_iter=2000, random_state=0
    )


@dataclass
class FirstStage:
    """One topic's text model, and its decision values for every dev paper, out of fold."""

    rows: np.ndarray  # the dev papers judged yes or no for the topic
    labels: np.ndarray
    candidate: np.ndarray  # per dev paper: the rules propose the topic
    decisions: np.ndarray
    weights: np.ndarray
    bias: float


def first_stage(rows, labels, features, folds, candidate, emphasis=None) -> FirstStage:
    """`emphasis`: per row, how much its label counts in the fit (1 for every row by default)."""
    decisions = np.zeros(features.shape[0])
    for fold in range(FOLDS):
        inside = folds[rows] != fold
        held = np.flatnonzero(folds == fold)
        if labels[inside].min() == labels[inside].max() or not len(held):
            continue
        model = classifier().fit(
            features[rows[inside]],
            labels[inside],
            sample_weight=None if emphasis is None else emphasis[inside],
        )
        decisions[held] = model.decision_function(features[held])
    final = classifier().fit(features[rows], labels, sample_weight=emphasis)
    return FirstStage(
        rows,
        labels,
        candidate,
        decisions,
        final.coef_[0].astype(np.float32),
        float(final.intercept_[0]),
    )


def calibrate(stage: FirstStage) -> tuple[float, float, np.ndarray]:
    """Platt scaling on the dev papers the rules propose: (a, b) and the out-of-fold
    probability of the topic for every dev paper."""
    asked = stage.rows[stage.candidate[stage.rows]]
    labels = stage.labels[stage.candidate[stage.rows]]
    if labels.min() == labels.max():
        a, b = 1.0, 0.0
    else:
        fit = calibrator().fit(stage.decisions[asked].reshape(-1, 1), labels)
        a, b = float(fit.coef_[0][0]), float(fit.intercept_[0])
    return a, b, 1.0 / (1.0 + np.exp(-(a * stage.decisions + b)))


def second_stage(
    topic, broader: list[str], stages: dict, calibrated: dict, required: dict[str, float]
) -> Fitted:
    """The threshold and the gates, chosen together for the best dev F-beta.

    A gate is a broader modelled topic whose probability must reach a level of its own
    before this topic may be tagged: no RL for LLM Agents in a paper the RL model rules out.
    Starting from no gates (or the `required` levels), each broader topic's level is raised,
    one at a time, while that improves it by more than MIN_GAIN.
    """
    own = stages[topic.slug]
    a, b, probability = calibrated[topic.slug]
    levels = {slug: required.get(slug, 0.0) for slug in broader}
    rows, labels = own.rows, own.labels

    def score(trial: dict) -> tuple[float, dict]:
        allowed = own.candidate.copy()
        for slug, level in trial.items():
            allowed &= calibrated[slug][2] >= level
        return best_threshold(probability[rows], labels, allowed[rows])

    threshold, best = score(levels)
    improved = True
    while improved:
        improved = False
        for slug in broader:
            for level in GATE_LEVELS:
                if level < required.get(slug, 0.0):
                    continue
                trial_threshold, trial = score({**levels, slug: level})
                if trial["cv_f"] > best["cv_f"] + MIN_GAIN:
                    levels[slug], threshold, best, improved = level, trial_threshold, trial, True
    gates = tuple((slug, level) for slug, level in levels.items() if level > 0)
    calibration = TopicCalibration(
        topic.slug,
        topic.rules_hash(),
        own.bias,
        (a, b),
        threshold,
        gates,
        topic.slug not in EVIDENCE_ONLY,
    )
    report = {
        "slug": topic.slug,
        "dev_pairs": len(own.rows),
        "dev_positives": int(own.labels.sum()),
        "threshold": threshold,
        **best,
        "gates": [[slug, level] for slug, level in gates],
    }
    return Fitted(calibration, own.weights, report)


def calibrator() -> LogisticRegression:
    return LogisticRegression(C=100.0, solver="lbfgs")


def best_threshold(probabilities, labels, proposed, weights=None) -> tuple[float, dict]:
    """The probability threshold with the best F-beta on dev; unproposed positives are misses.
    `weights`: the papers each judged pair stands for, where a sampling design drew them."""
    if weights is None:
        weights = np.ones(len(labels))
    positives = weights[labels == 1].sum()
    best = (-1.0, 0.5, {})
    for threshold in np.round(np.arange(0.05, 0.951, 0.01), 2):
        predicted = proposed & (probabilities >= threshold)
        true = weights[predicted & (labels == 1)].sum()
        predicted_weight = weights[predicted].sum()
        precision = true / predicted_weight if predicted_weight else 0.0
        recall = true / positives if positives else 0.0
        score = _f_beta(precision, recall)
        if score > best[0] + 1e-9:
            scores = {"cv_precision": round(precision, 3), "cv_recall": round(recall, 3)}
            best = (score, float(threshold), {**scores, "cv_f": round(score, 4)})
    return best[1], best[2]


def _f_beta(precision: float, recall: float) -> float:
    if not precision + recall:
        return 0.0
    return (1 + BETA**2) * precision * recall / (BETA**2 * precision + recall)


def train(catalog: Catalog, dev: list[GoldPaper], vocabulary, idf, features) -> list[Fitted]:
    """A model per topic with enough judged `yes` papers among `dev`."""
    rules = Tagger(catalog, model=None)
    proposals = [_proposed(rules, p) for p in dev]
    folds = np.array([fold_of(p.arxiv_id) for p in dev])
    jobs = {}
    for topic in catalog.topics:
        rows = np.array(
            [i for i, p in enumerate(dev) if p.labels.get(topic.slug) in ("yes", "no")],
            dtype=np.intp,
        )
        labels = np.array([dev[i].labels[topic.slug] == "yes" for i in rows], dtype=np.int64)
        if labels.sum() >= MIN_POSITIVES:
            candidate = np.array([topic.slug in found for found in proposals])
            emphasis = np.array(
                [INDEPENDENT_EMPHASIS if topic.slug in dev[i].weights else 1.0 for i in rows]
            )
            jobs[topic.slug] = (rows, labels, features, folds, candidate, emphasis)
    # Topics are fitted independently (liblinear leaves the GIL), one thread per core; each
    # topic's fit is the same whichever thread runs it, so the bytes do not change.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = {slug: pool.submit(first_stage, *job) for slug, job in jobs.items()}
        stages: dict[str, FirstStage] = {slug: f.result() for slug, f in futures.items()}
    calibrated = {slug: calibrate(stage) for slug, stage in stages.items()}
    fitted: dict[str, Fitted] = {}
    # Topics that require a broader one's tag come after it, so its threshold is known.
    for topic in sorted(catalog.topics, key=lambda t: t.slug in REQUIRED_PARENTS):
        if topic.slug in stages:
            broader = [a for a in catalog.ancestors(topic.slug) if a in stages]
            required = {
                slug: fitted[slug].calibration.threshold
                for slug in REQUIRED_PARENTS.get(topic.slug, ())
                if slug in fitted
            }
            fitted[topic.slug] = second_stage(topic, broader, stages, calibrated, required)
    return [fitted[t.slug] for t in catalog.topics if t.slug in fitted]


def _proposed(rules: Tagger, paper: GoldPaper) -> set[str]:
    """Topics the rules propose for `paper`, counting descendants' evidence as the tagger does
    for modelled topics; where the tagger lets the model decide everywhere, every topic the
    paper's categories and excludes leave open, but for the EVIDENCE_ONLY ones."""
    found = set(rules.candidates(paper.title, paper.abstract, paper.categories))
    for slug in list(found):
        found.update(rules.catalog.ancestors(slug))
    if rules.everywhere:  # the model decides on every paper of the topic's field
        found |= rules.open_topics(paper.title, paper.abstract, paper.categories) - EVIDENCE_ONLY
    return found


def as_model(fitted: list[Fitted], vocabulary, idf) -> TopicModel:
    weights = np.stack([f.weights for f in fitted], axis=1)
    return TopicModel(vocabulary, idf, weights.astype(np.float16), [f.calibration for f in fitted])


def cross_validate(catalog: Catalog, dev: list[GoldPaper], vocabulary, idf, features) -> None:
    """Print the whole tagger's scores, each fold tagged by models trained without it."""
    folds = np.array([fold_of(p.arxiv_id) for p in dev])
    held_out: list[GoldPaper] = []
    totals: dict[str, list[int]] = {}
    for fold in range(FOLDS):
        train_rows = np.flatnonzero(folds != fold)
        subset = [dev[i] for i in train_rows]
        fitted = train(catalog, subset, vocabulary, idf, features[train_rows])
        tagger = Tagger(catalog, model=as_model(fitted, vocabulary, idf))
        held_out = [dev[i] for i in np.flatnonzero(folds == fold)]
        _count(evaluate(tagger, held_out, worst=0), totals)
    _print_totals(totals)


def _count(evaluation, totals: dict[str, list[int]]) -> None:
    for score in evaluation.topics:
        counts = totals.setdefault(score.slug, [0, 0, 0])
        counts[0] += score.true_positives
        counts[1] += score.false_positives
        counts[2] += score.false_negatives


def _print_totals(totals: dict[str, list[int]]) -> None:
    precisions, recalls = [], []
    for slug, (tp, fp, fn) in totals.items():
        precision = tp / (tp + fp) if tp + fp else float("nan")
        recall = tp / (tp + fn) if tp + fn else float("nan")
        precisions.append(precision)
        recalls.append(recall)
        print(f"{slug:40} P {precision:.3f}  R {recall:.3f}  (yes {tp + fn})")
    print(f"{'macro':40} P {np.nanmean(precisions):.3f}  R {np.nanmean(recalls):.3f}")


def judged_papers(paths: Sequence[Path]) -> list[GoldPaper]:
    """The papers of every gold file, by id; a later file's labels win topic by topic."""
    papers: dict[str, GoldPaper] = {}
    for path in paths:
        for paper in load_gold(path):
            known = papers.get(paper.arxiv_id)
            if known is not None:
                labels = {**known.labels, **paper.labels}
                weights = {k: v for k, v in known.weights.items() if k not in paper.labels}
                weights.update(paper.weights)
                paper = dataclasses.replace(known, labels=labels, weights=weights)
            papers[paper.arxiv_id] = paper
    return [papers[i] for i in sorted(papers)]


def month_of(paper: GoldPaper) -> str:
    return paper.published[:7]


def choose_thresholds(
    catalog: Catalog, built: Built, papers: list[GoldPaper]
) -> tuple[list[Fitted], list[dict]]:
    """The fitted topics with each threshold chosen again on `papers` (a later month), where
    the month has enough judged `yes` papers for the topic; the others keep theirs."""
    model = built.model()
    rules = Tagger(catalog, model=None)
    proposals = [_proposed(rules, p) for p in papers]
    words = [(*paper_word_bytes(p.title, p.abstract), p.categories) for p in papers]
    probabilities = model.probabilities_many(words)
    fitted, changes = [], []
    for column, f in enumerate(built.fitted):
        topic = f.calibration
        rows = [i for i, p in enumerate(papers) if p.labels.get(topic.slug) in ("yes", "no")]
        labels = np.array([papers[i].labels[topic.slug] == "yes" for i in rows])
        if labels.sum() < MIN_CHOOSE_POSITIVES:
            fitted.append(f)
            continue
        allowed = np.array([topic.slug in proposals[i] for i in rows])
        for slug, level in topic.gates:
            allowed &= probabilities[rows, model.column[slug]] >= level
        weights = np.array([papers[i].weights.get(topic.slug, 1.0) for i in rows])
        threshold, scores = best_threshold(probabilities[rows, column], labels, allowed, weights)
        changes.append({"slug": topic.slug, "from": topic.threshold, "to": threshold, **scores})
        calibration = dataclasses.replace(topic, threshold=threshold)
        fitted.append(dataclasses.replace(f, calibration=calibration))
    return fitted, changes


@dataclass
class Built:
    fitted: list[Fitted]
    vocabulary: list[str]
    idf: np.ndarray
    features: sparse.csr_matrix  # of the training papers

    def model(self) -> TopicModel:
        return as_model(self.fitted, self.vocabulary, self.idf)

    def artefact(self) -> bytes:
        weights = np.stack([f.weights for f in self.fitted], axis=1)
        return encode(self.vocabulary, self.idf, weights, [f.calibration for f in self.fitted])


def build(catalog: Catalog, corpus: list[dict], training: list[GoldPaper]) -> Built:
    """The learned tier for `training`, with the vocabulary of `corpus` and `training`."""
    documents = {p["id"]: (p["title"], p["abstract"], p["categories"]) for p in corpus}
    documents.update({p.arxiv_id: (p.title, p.abstract, list(p.categories)) for p in training})
    vocabulary, idf = vocabulary_and_idf([documents[i] for i in sorted(documents)])
    empty = np.zeros((len(vocabulary), 0), dtype=np.float32)
    features = feature_matrix(TopicModel(vocabulary, idf, empty, []), training, len(vocabulary))
    return Built(train(catalog, training, vocabulary, idf, features), vocabulary, idf, features)


def self_trained(
    catalog: Catalog, built: Built, training: list[GoldPaper], unjudged: list[dict]
) -> Built:
    """`built` refitted with its own confident calls on `unjudged` papers added as labels:
    a probability of at least SURE_YES is a `yes`, at most SURE_NO a `no`, for the topics the
    rules propose. Newer papers' words reach the model this way before anyone judges them.
    A paper judged for some topics (one family) is still unjudged for the others."""
    judged = {p.arxiv_id: p.labels for p in training}
    fresh = [
        GoldPaper(
            p["id"], p["title"], p["abstract"], tuple(p["categories"]), "", {}, p["published"]
        )
        for p in unjudged
    ]
    model = built.model()
    rules = Tagger(catalog, model=None)
    words = [(*paper_word_bytes(p.title, p.abstract), p.categories) for p in fresh]
    probabilities = model.probabilities_many(words) if fresh else np.zeros((0, 0))
    pseudo, rows = [], []
    for n, paper in enumerate(fresh):
        proposed = _proposed(rules, paper) - judged.get(paper.arxiv_id, {}).keys()
        labels = {}
        for slug, column in model.column.items():
            value = probabilities[n, column]
            if slug in proposed and (value >= SURE_YES or value <= SURE_NO):
                labels[slug] = "yes" if value >= SURE_YES else "no"
        if labels:
            pseudo.append(dataclasses.replace(paper, labels=labels))
            rows.append(n)
    extra = feature_matrix(model, [fresh[n] for n in rows], len(built.vocabulary))
    features = sparse.vstack([built.features, extra]).tocsr()
    rows_all = training + pseudo
    fitted = train(catalog, rows_all, built.vocabulary, built.idf, features)
    return Built(fitted, built.vocabulary, built.idf, features)


def newest_self_trained(catalog: Catalog, corpus: list[dict], training: list[GoldPaper]) -> Built:
    """The shipped recipe: trained on `training`, then self-trained on the unjudged papers of
    the corpus's newest month, the words the model has seen least."""
    built = build(catalog, corpus, training)
    newest = max((p["published"][:7] for p in corpus), default="")
    unjudged = [p for p in corpus if p["published"][:7] == newest]
    return self_trained(catalog, built, training, unjudged) if unjudged else built


@dataclass
class Forward:
    evaluation: Evaluation  # every judged topic of the reported month
    learned: Evaluation  # the topics the model decides
    tagger: Tagger  # the forward model's
    training_papers: int
    reported_papers: int
    changes: list[dict]  # thresholds chosen again on `--choose`


def forward_built(
    catalog: Catalog,
    corpus_paths: Sequence[Path],
    papers: list[GoldPaper],
    until: str,
    chosen: list[GoldPaper] | None = None,
) -> tuple[Built, list[dict], int]:
    """The recipe trained on `papers` and the corpus listed up to `until`, its thresholds
    chosen again on `chosen` when given; with the moves made and how many papers it read."""
    corpus = [p for p in _corpus(corpus_paths) if p["published"][:7] <= until]
    training = [p for p in papers if month_of(p) <= until]
    built = newest_self_trained(catalog, corpus, training)
    changes: list[dict] = []
    if chosen is not None:
        built.fitted, changes = choose_thresholds(catalog, built, chosen)
    return built, changes, len(training)


def forward_month(args: argparse.Namespace, catalog: Catalog, papers: list[GoldPaper]) -> Forward:
    """Train up to `--until`, choose thresholds on `--choose`, score `--report` (on the
    judged papers of that month, or on `--report-gold`'s alone)."""
    chosen = [p for p in papers if month_of(p) == args.choose] if args.choose else None
    built, changes, trained_on = forward_built(catalog, args.corpus, papers, args.until, chosen)
    reported = [p for p in papers if month_of(p) == args.report]
    if getattr(args, "report_gold", None):  # one judged pool alone, weighed by its design
        reported = [p for p in load_gold(args.report_gold) if month_of(p) == args.report]
    tagger = Tagger(catalog, model=built.model())
    evaluation = evaluate(tagger, reported, worst=0)
    learned = Evaluation([t for t in evaluation.topics if t.slug in tagger.modelled])
    return Forward(evaluation, learned, tagger, trained_on, len(reported), changes)


def forward(args: argparse.Namespace, catalog: Catalog, papers: list[GoldPaper]) -> dict:
    """`forward_month`'s figures, as `digestbot train --until --report` prints them."""
    month = forward_month(args, catalog, papers)
    return {
        "learned_topics": len(month.learned.topics),
        "learned_macro": {
            n: round(month.learned.macro(n) or 0.0, 3) for n in ("precision", "recall")
        },
        "trained_until": args.until,
        "training_papers": month.training_papers,
        "chosen_on": args.choose,
        "thresholds_moved": month.changes,
        "reported_month": args.report,
        "reported_papers": month.reported_papers,
        **month.evaluation.to_json(),
    }


def _corpus(paths: Sequence[Path]) -> list[dict]:
    return [paper for path in paths for paper in load_corpus(path)]


def run(args: argparse.Namespace) -> int:
    """`digestbot train`: the artefact, or cross-validation, or a forward-month report."""
    args.corpus = args.corpus or CORPORA
    args.out = args.out or OUT
    catalog = Catalog.load()
    papers = judged_papers(args.gold or GOLDS)
    if args.until or args.report:
        if not (args.until and args.report):
            raise TrainingError("--until and --report go together (and --choose between them)")
        print(json.dumps(forward(args, catalog, papers), indent=1))
        return 0
    training = [p for p in papers if args.split == "all" or p.split == "dev"]
    corpus = _corpus(args.corpus)
    if args.cv:
        built = build(catalog, corpus, training)
        cross_validate(catalog, training, built.vocabulary, built.idf, built.features)
        return 0
    built = newest_self_trained(catalog, corpus, training)
    for f in built.fitted:
        print(json.dumps(f.report))
    data = built.artefact()
    args.out.write_bytes(data)
    print(f"{len(built.fitted)} topics, {len(data) / 1e6:.1f} MB -> {args.out}")
    return 0
