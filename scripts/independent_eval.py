"""Score a tagger on an independent pool (`scripts/independent_pool.py`), forward in time.

    .venv/bin/python scripts/independent_eval.py GOLD [--until 2026-01] [--model FILE]
        [--save FILE] [--json] [--misses TOPIC]

Builds the forward model the way `digestbot train --until` does (trained on the judged papers
and the corpus up to `--until`), or loads `--model`, and prints per learned topic the judged
`yes`, the weighted precision and recall (each judged pair standing for 1 / its inclusion
probability of the month's papers) and the macro averages over the topics with at least
`--min-yes` judged `yes`. `--misses TOPIC` lists that topic's judged `yes` the tagger misses
and its wrong tags, with the weight of each.
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

from digests.topics import tagger as tagger_module
from digests.topics import training
from digests.topics.catalog import Catalog
from digests.topics.evaluation import evaluate, load_gold
from digests.topics.tagger import Tagger
from digests.topics.topic_model import TopicModel
from digests.topics.training import CORPORA, GOLD, judged_papers

SEEDS = GOLD.parent / "seed_pages.jsonl"


def forward_model(
    until: str, golds: list[Path], choose: Path | None = None, save: Path | None = None
) -> TopicModel:
    """Trained on the judged papers of `golds` and the corpus up to `until`; thresholds chosen
    again on the judged papers of `choose` (a later month's pool), when given."""
    chosen = load_gold(choose) if choose is not None else None
    built, changes, _ = training.forward_built(
        Catalog.load(), CORPORA, judged_papers(golds), until, chosen
    )
    for change in changes:
        print(json.dumps(change))
    if save:
        save.write_bytes(built.artefact())
    return built.model()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", type=Path)
    parser.add_argument("--until", default="2026-01")
    parser.add_argument("--model", type=Path, help="a saved artefact instead of training")
    parser.add_argument("--save", type=Path, help="write the forward model here")
    parser.add_argument(
        "--train-gold",
        type=Path,
        action="append",
        help="judged papers to learn from (repeatable; default the gold set)",
    )
    parser.add_argument("--choose", type=Path, help="choose thresholds on this judged pool")
    parser.add_argument("--min-yes", type=int, default=30)
    parser.add_argument("--misses", help="list this topic's misses and wrong tags")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="experiment: override a constant of digests.topics.training (C=8, BETA=1.5...)",
    )
    parser.add_argument("--no-self-training", action="store_true")
    parser.add_argument(
        "--evidence-only",
        action="store_true",
        help="the model decides only where the rules find evidence (the tagger before 2026-12-06)",
    )
    args = parser.parse_args()
    for setting in args.set:
        name, value = setting.split("=", 1)
        setattr(training, name, type(getattr(training, name))(ast.literal_eval(value)))
    if args.evidence_only:
        tagger_module.MODEL_EVERYWHERE = False
    if args.no_self_training:
        training.newest_self_trained = training.build
    model = (
        TopicModel.load(args.model)
        if args.model
        else forward_model(args.until, args.train_gold or [GOLD], args.choose, args.save)
    )
    tagger = Tagger(Catalog.load(), model=model, everywhere=not args.evidence_only)
    papers = load_gold(args.gold)
    evaluation = evaluate(tagger, papers, worst=0)
    learned = [t for t in evaluation.topics if t.slug in tagger.modelled]
    if args.json:
        print(json.dumps(evaluation.to_json(), indent=1))
        return
    print(f"{'topic':40} {'yes':>4} {'P':>6} {'R':>6}  (tp fp fn judged)")
    for t in sorted(learned, key=lambda t: -(t.true_positives + t.false_negatives)):
        yes = t.true_positives + t.false_negatives
        p, r = t.precision, t.recall
        print(
            f"{t.slug:40} {yes:4} {p if p is not None else float('nan'):6.3f}"
            f" {r if r is not None else float('nan'):6.3f}"
            f"  ({t.true_positives} {t.false_positives} {t.false_negatives} {t.judged})"
        )
    big = [t for t in learned if t.true_positives + t.false_negatives >= args.min_yes]
    for name in ("precision", "recall"):
        values = [getattr(t, name) for t in big if getattr(t, name) is not None]
        print(
            f"macro {name} over {len(values)} topics with >= {args.min_yes} yes:"
            f" {sum(values) / max(1, len(values)):.3f}"
        )
    seeds = evaluate(tagger, load_gold(SEEDS), worst=0)
    headline = next(t for t in seeds.topics if t.slug == "rl-for-llm-agents")
    print(
        f"seed pages, RL for LLM Agents: {headline.true_positives} of"
        f" {headline.true_positives + headline.false_negatives} found,"
        f" {headline.false_positives} wrong"
    )
    if args.misses:
        for paper in papers:
            label = paper.labels.get(args.misses)
            tags = {t.slug for t in tagger.tag(paper.title, paper.abstract, paper.categories)}
            hit = args.misses in tags
            if (label == "yes" and not hit) or (label == "no" and hit):
                kind = "MISS" if label == "yes" else "WRONG"
                weight = paper.weights.get(args.misses, 1.0)
                seen = tagger.explain(paper.title, paper.abstract, paper.categories, args.misses)
                print(
                    f"{kind} w={weight:6.1f} p={seen.probability} {paper.arxiv_id}"
                    f" {paper.title[:100]} [{' '.join(paper.categories)}]"
                )


if __name__ == "__main__":
    main()
