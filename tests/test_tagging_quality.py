"""How right the tags are on real arXiv papers: the gold set's test split, the real corpus and
the astro-ph control. A tagger that gets worse fails here.

The floors are the product's (docs/tagging.md has the figures). One is held below its goal:
RL for LLM Agents' precision measures 0.847 on the test split against a goal of 0.85; the
floor guards what holds today.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from digests.topics.catalog import Catalog
from digests.topics.evaluation import Evaluation, evaluate, load_gold
from digests.topics.tagger import Tagger
from tests.shared_data import shared_dir

GOLD = Path(__file__).parent / "data" / "gold"
HEADLINE = "rl-for-llm-agents"


@pytest.fixture(scope="module")
def tagger() -> Tagger:
    return Tagger(Catalog.load())


@pytest.fixture(scope="module")
def test_split(tagger: Tagger) -> Evaluation:
    return evaluate(tagger, load_gold(GOLD / "gold.jsonl.gz"), split="test", worst=0)


def real(name: str) -> list[dict]:
    path = shared_dir("data", "arxiv-real", pattern=name) / name
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def tag_sets(tagger: Tagger, papers: list[dict]) -> list[set[str]]:
    tagged = tagger.tag_many([(p["title"], p["abstract"], p["categories"]) for p in papers])
    return [{tag.slug for tag in tags} for tags in tagged]


def test_rl_for_llm_agents_is_precise_and_complete_on_judged_papers(test_split) -> None:
    headline = next(t for t in test_split.topics if t.slug == HEADLINE)
    assert headline.true_positives + headline.false_negatives >= 100
    assert headline.recall >= 0.85
    assert headline.precision >= 0.84  # goal 0.85, see the module's docstring


def test_gold_topics_are_precise_and_complete_on_average(test_split) -> None:
    assert len(test_split.topics) >= 20
    assert test_split.macro("precision") >= 0.85
    assert test_split.macro("recall") >= 0.80


def test_papers_listed_first_in_cs_cv_reach_computer_vision(tagger) -> None:
    papers = [p for p in real("ai-2025.jsonl.gz") if p["categories"][0] == "cs.CV"]
    reached = sum("computer-vision" in tags for tags in tag_sets(tagger, papers))
    assert len(papers) > 10_000
    assert reached / len(papers) >= 0.90


def test_astrophysics_papers_get_almost_no_topic(tagger) -> None:
    papers = real("astro-2025.jsonl.gz")
    tagged = sum(bool(tags) for tags in tag_sets(tagger, papers))
    assert len(papers) > 5_000
    assert tagged / len(papers) <= 0.02


def test_the_seed_pages_rl_for_llm_agents_papers_are_right_when_tagged(tagger) -> None:
    # The seed pages are the product's own, from 2026: newer than every judged paper and never
    # trained on. Their abstracts were judged by the same guide (seed_pages.jsonl). Tags there
    # must be right; recall is lower than on 2025 papers (topics drift) and is guarded, not
    # yet good.
    newer = evaluate(tagger, load_gold(GOLD / "seed_pages.jsonl"), worst=0)
    headline = next(t for t in newer.topics if t.slug == HEADLINE)
    assert headline.true_positives + headline.false_negatives >= 20
    assert headline.precision >= 0.9
    assert headline.recall >= 0.45
