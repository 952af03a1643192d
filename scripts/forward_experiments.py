"""Variants of the learned tagger, trained on judged papers up to a month, compared on the next
month and reported on the month after (docs/tagging.md, "Robust to new words").

    .venv/bin/pip install -e ".[train]"
    .venv/bin/python scripts/forward_experiments.py --gold GOLD [--gold MORE ...]
        [--until 2026-01 --choose 2026-02 --report 2026-03]

Every variant is scored the same way, outside the running tagger (whose decisions it follows:
the rules must propose the topic, the probability reach the threshold and the gates theirs, and
a topic is also predicted when a modelled descendant is), so variants whose features the
running tagger cannot compute yet can be compared with the one it ships:
- base: the shipped recipe (word and word-pair TF-IDF, C = 4, thresholds from cross-validation);
- C=2, C=8: weaker and stronger fits;
- self-training: base, then refitted with its confident calls (>= 0.9 yes, <= 0.1 no) on the
  unjudged papers of the last training month added as labels (`training.self_trained`);
- F1 thresholds: thresholds and gates chosen for F1 instead of F0.8;
- char n-grams: character 3-5-grams within words (hashed) beside the word terms, for new
  compounds ("agentic", "RLVR-style");
- parents: each topic's learned ancestors' probabilities as extra features.
The variant with the best macro F1 on the choosing month is the one to keep.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import HashingVectorizer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from digests.topics import training as T  # noqa: E402
from digests.topics.catalog import Catalog  # noqa: E402
from digests.topics.evaluation import GoldPaper  # noqa: E402
from digests.topics.tagger import Tagger  # noqa: E402

CORPORA = [
    ROOT.parent / "shared/data/arxiv-real" / n for n in ("ai-2025.jsonl.gz", "ai-2026q1.jsonl.gz")
]
CHARS = HashingVectorizer(
    analyzer="char_wb", ngram_range=(3, 5), n_features=2**18, alternate_sign=False, norm="l2"
)
CHAR_WEIGHT = 0.5
PARENT_SCALE = 3.0


@dataclasses.dataclass
class Slice:
    papers: list[GoldPaper]
    words: sparse.csr_matrix
    proposed: dict[str, np.ndarray]


def make_slice(catalog: Catalog, papers: list[GoldPaper], built: T.Built) -> Slice:
    empty = np.zeros((len(built.vocabulary), 0), dtype=np.float32)
    model = T.TopicModel(built.vocabulary, built.idf, empty, [])
    words = T.feature_matrix(model, papers, len(built.vocabulary))
    rules = Tagger(catalog, model=None)
    found = [T._proposed(rules, p) for p in papers]
    slugs = [t.slug for t in catalog.topics]
    proposed = {s: np.array([s in f for f in found]) for s in slugs}
    return Slice(papers, words, proposed)


def chars(papers: list[GoldPaper]) -> sparse.csr_matrix:
    return CHARS.transform([f"{p.title} {p.title} {p.abstract}" for p in papers]) * CHAR_WEIGHT


def probabilities(fitted: list[T.Fitted], features: sparse.csr_matrix) -> dict[str, np.ndarray]:
    out = {}
    for f in fitted:
        c = f.calibration
        width = len(f.weights)
        decision = features[:, :width] @ f.weights.astype(np.float64) + c.bias
        out[c.slug] = 1.0 / (1.0 + np.exp(-(c.platt[0] * decision + c.platt[1])))
    return out


def predict(catalog: Catalog, fitted, probs, proposed) -> dict[str, np.ndarray]:
    own = {}
    for f in fitted:
        c = f.calibration
        ok = proposed[c.slug] & (probs[c.slug] >= c.threshold)
        for gate, level in c.gates:
            ok &= probs[gate] >= level
        own[c.slug] = ok
    return {
        s: own[s] | np.any([own[d] for d in catalog.descendants(s) if d in own] or [own[s]], axis=0)
        for s in own
    }


def score(papers: list[GoldPaper], predicted: dict[str, np.ndarray]) -> dict:
    topics = {}
    for slug, guess in predicted.items():
        tp = fp = fn = 0
        for paper, yes in zip(papers, guess, strict=True):
            label = paper.labels.get(slug)
            tp += label == "yes" and yes
            fp += label == "no" and yes
            fn += label == "yes" and not yes
        if tp + fn:
            p = tp / (tp + fp) if tp + fp else 0.0
            topics[slug] = (p, tp / (tp + fn), tp + fn)
    precision = float(np.mean([v[0] for v in topics.values()]))
    recall = float(np.mean([v[1] for v in topics.values()]))
    f1 = 2 * precision * recall / (precision + recall)
    return {"macro": (round(precision, 3), round(recall, 3), round(f1, 3)), "topics": topics}


def with_parents(catalog, training, built, base, features, extra_for):
    """Refit each topic that has learned ancestors with their probabilities as features."""
    slugs = {f.calibration.slug for f in base}
    fitted = []
    for f in base:
        ancestors = [a for a in catalog.ancestors(f.calibration.slug) if a in slugs]
        if not ancestors:
            fitted.append(f)
            continue
        augmented = sparse.hstack([features, extra_for(ancestors)]).tocsr()
        keep = {f.calibration.slug, *ancestors}  # only this topic and its gates are refitted
        narrowed = [
            dataclasses.replace(p, labels={k: v for k, v in p.labels.items() if k in keep})
            for p in training
        ]
        refit = T.train(catalog, narrowed, built.vocabulary, built.idf, augmented)
        fitted.append(next(r for r in refit if r.calibration.slug == f.calibration.slug))
        fitted[-1].report["parents"] = ancestors
    return fitted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", type=Path, action="append", required=True)
    parser.add_argument("--until", default="2026-01")
    parser.add_argument("--choose", default="2026-02")
    parser.add_argument("--report", default="2026-03")
    parser.add_argument("--only", nargs="*", help="variants to run")
    args = parser.parse_args()
    beta = T.BETA = 0.8  # the recipe the variants start from
    catalog = Catalog.load()
    papers = T.judged_papers(args.gold)
    corpus = [p for p in T._corpus(CORPORA) if p["published"][:7] <= args.until]
    training = [p for p in papers if T.month_of(p) <= args.until]
    months = {m: [p for p in papers if T.month_of(p) == m] for m in (args.choose, args.report)}
    built = T.build(catalog, corpus, training)
    slices = {m: make_slice(catalog, ps, built) for m, ps in months.items()}
    results = {}

    def report(name: str, fitted, feature_of) -> None:
        row = {}
        for month, piece in slices.items():
            probs = probabilities(fitted, feature_of(piece))
            row[month] = score(piece.papers, predict(catalog, fitted, probs, piece.proposed))
        results[name] = row
        head = row[args.report]["topics"].get("rl-for-llm-agents")
        print(
            f"{name:14} choose {row[args.choose]['macro']}  report {row[args.report]['macro']}"
            f"  RL for LLM Agents (report) P {head[0]:.3f} R {head[1]:.3f}",
            flush=True,
        )

    variants = ["base", "C=2", "C=8", "self-training", "F1 thresholds", "char n-grams", "parents"]
    wanted = set(args.only or variants)
    if "base" in wanted:
        report("base", built.fitted, lambda s: s.words)
    for c in (2.0, 8.0):
        if f"C={c:g}" in wanted:
            T.C = c
            fitted = T.train(catalog, training, built.vocabulary, built.idf, built.features)
            T.C = 4.0
            report(f"C={c:g}", fitted, lambda s: s.words)
    if "self-training" in wanted:
        unjudged = [p for p in corpus if p["published"][:7] == args.until]
        fitted = T.self_trained(catalog, built, training, unjudged).fitted
        report("self-training", fitted, lambda s: s.words)
    if "F1 thresholds" in wanted:
        T.BETA = 1.0
        fitted = T.train(catalog, training, built.vocabulary, built.idf, built.features)
        T.BETA = beta
        report("F1 thresholds", fitted, lambda s: s.words)
    if "char n-grams" in wanted:
        features = sparse.hstack([built.features, chars(training)]).tocsr()
        fitted = T.train(catalog, training, built.vocabulary, built.idf, features)
        report("char n-grams", fitted, lambda s: sparse.hstack([s.words, chars(s.papers)]).tocsr())
    if "parents" in wanted:
        base = built.fitted
        train_probs = probabilities(base, built.features)  # in-sample for training rows

        def train_extra(ancestors):
            return sparse.csr_matrix(
                np.column_stack([train_probs[a] for a in ancestors]) * PARENT_SCALE
            )

        fitted = with_parents(catalog, training, built, base, built.features, train_extra)

        # Each topic reads its own ancestors' columns: score topic by topic.
        for month, piece in slices.items():
            probs_base = probabilities(base, piece.words)
            probs = {}
            for f in fitted:
                ancestors = f.report.get("parents", [])
                extra = (
                    np.column_stack([probs_base[a] for a in ancestors]) * PARENT_SCALE
                    if ancestors
                    else None
                )
                x = (
                    piece.words
                    if extra is None
                    else sparse.hstack([piece.words, sparse.csr_matrix(extra)]).tocsr()
                )
                probs.update(probabilities([f], x))
            results.setdefault("parents", {})[month] = score(
                piece.papers, predict(catalog, fitted, probs, piece.proposed)
            )
        row = results["parents"]
        head = row[args.report]["topics"].get("rl-for-llm-agents")
        print(
            f"{'parents':14} choose {row[args.choose]['macro']}  report {row[args.report]['macro']}"
            f"  RL for LLM Agents (report) P {head[0]:.3f} R {head[1]:.3f}"
        )
    print(json.dumps(results, default=float))  # NumPy counts among the figures


if __name__ == "__main__":
    main()
