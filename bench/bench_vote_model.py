"""How fast a channel's vote model trains and ranks, and how well it learns a taste.

A simulated channel follows LLM Agents and its readers like the papers that are about RL for
LLM agents and dislike the others: both labels come from the judged gold set
(tests/data/gold/gold.jsonl.gz), so the taste is real readers' judgment, not a keyword. The
model (`digests.feedback.ranking.train`) learns from k votes on dev-split papers and ranks the
test-split papers; the figure is the ranking's AUC (0.5: no better than the digest's own
order, 1.0: every liked paper first), with the time to train and to score 500 papers.

    .venv/bin/python bench/bench_vote_model.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import time
from datetime import date
from pathlib import Path

from digests.feedback.ranking import train
from digests.messages.digest import DigestPaper

GOLD = Path(__file__).resolve().parent.parent / "tests" / "data" / "gold" / "gold.jsonl.gz"
FOLLOWED, TASTE = "llm-agents", "rl-for-llm-agents"
VOTES = (10, 30, 100, 300, 1000)


def candidates() -> tuple[list[tuple[DigestPaper, bool]], list[tuple[DigestPaper, bool]]]:
    """(dev, test) papers judged on both topics, shown to the channel (its topic: yes)."""
    dev, test = [], []
    with gzip.open(GOLD, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            labels = row["labels"]
            if labels.get(FOLLOWED) != "yes" or labels.get(TASTE) not in ("yes", "no"):
                continue
            paper = DigestPaper(
                row["id"],
                row["title"],
                "",
                (),
                date(2025, 1, 1),
                row["categories"][0],
                row["abstract"],
                {},
            )
            (dev if row["split"] == "dev" else test).append((paper, labels[TASTE] == "yes"))
    return dev, test


def auc(scores: list[float], liked: list[bool]) -> float:
    pairs = wins = 0.0
    for score_a, a in zip(scores, liked, strict=True):
        if not a:
            continue
        for score_b, b in zip(scores, liked, strict=True):
            if b:
                continue
            pairs += 1
            wins += 1.0 if score_a > score_b else 0.5 if score_a == score_b else 0.0
    return wins / pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    dev, test = candidates()
    liked_share = sum(liked for _, liked in dev) / len(dev)
    print(f"{len(dev)} dev and {len(test)} test papers; readers like {liked_share:.0%} of them")
    print("votes  AUC (median)  train ms  score 500 papers ms")
    scored = test[:500]
    for k in VOTES:
        figures = []
        for seed in range(args.repeat):
            sample = random.Random(seed).sample(dev, min(k, len(dev)))
            started = time.perf_counter()
            model = train(sample)
            trained = time.perf_counter()
            if model is None:
                continue
            scores = [model.score(paper) for paper, _ in scored]
            done = time.perf_counter()
            quality = auc(scores, [liked for _, liked in scored])
            figures.append((quality, (trained - started) * 1e3, (done - trained) * 1e3))
        if figures:
            quality, train_ms, score_ms = (statistics.median(f) for f in zip(*figures, strict=True))
            print(f"{k:>5}  {quality:>12.3f}  {train_ms:>8.1f}  {score_ms:>19.1f}")


if __name__ == "__main__":
    main()
