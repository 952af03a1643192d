"""How right the tags are on real arXiv papers: a month the model never learnt from, the seed
pages, the real corpus and the astro-ph control. A tagger that gets worse fails here.

The floors are the product's (docs/tagging.md has the figures). The shipped model learns from
every judged paper, so its precision and recall are measured forward in time, as
`digestbot train --until 2026-02 --report 2026-03 --report-gold
tests/data/gold/independent/2026-03.jsonl.gz` does: the same recipe trained on the papers listed
up to February 2026 tags March's independent pool (tests/data/gold/independent/: drawn without
the tagger choosing, judged blind), each judged pair weighed by the papers it stands for.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from pathlib import Path

import pytest

from digests.topics.catalog import Catalog
from digests.topics.evaluation import Evaluation, GoldPaper, evaluate, load_gold
from digests.topics.tagger import Tagger
from tests.shared_data import shared_dir

GOLD = Path(__file__).parent / "data" / "gold"
MARCH = GOLD / "independent" / "2026-03.jsonl.gz"
HEADLINE = "rl-for-llm-agents"
# What this release measures (docs/tagging.md), a little under, so that a tagger that gets
# worse fails. The goals are higher: 0.90 / 0.90 macro and for RL for LLM Agents, and no
# learned topic under 0.88 recall; not met yet.
FLOOR_MACRO_P, FLOOR_MACRO_R = 0.87, 0.81  # measured 0.888 / 0.827
FLOOR_RLA_P, FLOOR_RLA_R = 0.80, 0.80  # measured 0.817 / 0.831 (53 judged yes)
FLOOR_TOPIC_R = 0.45  # the weakest, LLM Fine-Tuning, measured 0.469
FLOOR_NAMED_ONCE = 0.25  # measured 22 of 107 (0.21)


@pytest.fixture(scope="module")
def tagger() -> Tagger:
    return Tagger(Catalog.load())


@pytest.fixture(scope="module")
def forward():
    pytest.importorskip("sklearn")
    from digests.topics import training

    shared_dir("data", "arxiv-real", pattern="ai-2026q1.jsonl.gz")
    args = argparse.Namespace(
        corpus=training.CORPORA, until="2026-02", choose=None, report="2026-03", report_gold=MARCH
    )
    papers = training.judged_papers(training.GOLDS)
    return training.forward_month(args, Catalog.load(), papers)


@pytest.fixture(scope="module")
def forward_march(forward) -> Evaluation:
    return forward.learned


def well_judged(evaluation: Evaluation, least: int = 30) -> list:
    """The learned topics with at least `least` judged `yes` in the month."""
    return [t for t in evaluation.topics if t.true_positives + t.false_negatives >= least]


def real(name: str) -> list[dict]:
    path = shared_dir("data", "arxiv-real", pattern=name) / name
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def tag_sets(tagger: Tagger, papers: list[dict]) -> list[set[str]]:
    tagged = tagger.tag_many([(p["title"], p["abstract"], p["categories"]) for p in papers])
    return [{tag.slug for tag in tags} for tags in tagged]


def test_rl_for_llm_agents_is_precise_and_complete_a_month_after_its_training(
    forward_march,
) -> None:
    headline = next(t for t in forward_march.topics if t.slug == HEADLINE)
    assert headline.true_positives + headline.false_negatives >= 50
    assert headline.precision >= FLOOR_RLA_P
    assert headline.recall >= FLOOR_RLA_R


def test_learned_topics_are_precise_and_complete_a_month_after_their_training(
    forward_march,
) -> None:
    judged = well_judged(forward_march)
    assert len(judged) >= 40
    assert sum(t.precision for t in judged) / len(judged) >= FLOOR_MACRO_P
    assert sum(t.recall for t in judged) / len(judged) >= FLOOR_MACRO_R
    assert [t.slug for t in judged if t.recall < FLOOR_TOPIC_R] == []


def test_every_judged_paper_of_a_learned_topic_reaches_its_model(tagger) -> None:
    # Recall is not lost before the model decides: a blind reader's `yes` is a candidate.
    reached = total = 0
    for paper in load_gold(MARCH):
        candidates = tagger.candidates(paper.title, paper.abstract, paper.categories)
        for slug in tagger.modelled:
            if paper.labels.get(slug) == "yes":
                total += 1
                reached += slug in candidates
    assert total > 2_000
    assert reached / total >= 0.98


def named_once(paper: GoldPaper, name: str) -> bool:
    """The topic's name, not in the title and once in the abstract."""
    pattern = re.compile(r"\b" + re.escape(name.lower().rstrip("s")))
    return (
        not pattern.search(paper.title.lower())
        and len(pattern.findall(paper.abstract.lower())) == 1
    )


def test_a_topic_named_once_in_passing_is_rarely_tagged(forward) -> None:
    # Named once is not about (guides.md): March papers judged `no` for a learned topic whose
    # name their abstract says once ("... with applications in robotics"), not in the title,
    # tagged by the forward model (the shipped one learnt from these very papers).
    catalog, tagger = Catalog.load(), forward.tagger
    passing = tagged = 0
    for paper in load_gold(MARCH):
        tags = None
        for slug in tagger.modelled:
            if paper.labels.get(slug) == "no" and named_once(paper, catalog.get(slug).name):
                if tags is None:
                    tags = {
                        t.slug for t in tagger.tag(paper.title, paper.abstract, paper.categories)
                    }
                passing += 1
                tagged += slug in tags
    assert passing >= 80
    assert tagged / passing <= FLOOR_NAMED_ONCE


def test_every_learned_topic_has_a_guide_and_enough_judged_papers(tagger) -> None:
    pytest.importorskip("sklearn")
    from digests.topics import training

    guides = (GOLD / "guides.md").read_text(encoding="utf-8")
    judged: dict[str, list[int]] = {}
    for paper in training.judged_papers(training.GOLDS):
        for slug, label in paper.labels.items():
            counts = judged.setdefault(slug, [0, 0])
            counts[0] += label != "borderline"
            counts[1] += label == "yes"
    for slug in tagger.modelled:
        assert f"### {slug} — " in guides, slug
        pairs, yes = judged[slug]
        assert pairs >= 150 and yes >= 30, (slug, pairs, yes)


def test_papers_listed_first_in_cs_cv_reach_computer_vision(tagger) -> None:
    papers = [p for p in real("ai-2025.jsonl.gz") if p["categories"][0] == "cs.CV"]
    reached = sum("computer-vision" in tags for tags in tag_sets(tagger, papers))
    assert len(papers) > 10_000
    assert reached / len(papers) >= 0.95


@pytest.mark.parametrize("control", ["astro-2025.jsonl.gz", "astro-2026q1.jsonl.gz"])
def test_astrophysics_papers_get_almost_no_topic(tagger, control) -> None:
    papers = real(control)
    tagged = sum(bool(tags) for tags in tag_sets(tagger, papers))
    assert len(papers) > 2_000
    assert tagged / len(papers) <= 0.02  # cross-lists with cs or stat may be AI papers


@pytest.mark.parametrize("control", ["astro-2025.jsonl.gz", "astro-2026q1.jsonl.gz"])
def test_pure_astrophysics_papers_get_no_topic(tagger, control) -> None:
    papers = [p for p in real(control) if all(c.startswith("astro-ph") for c in p["categories"])]
    tagged = sum(bool(tags) for tags in tag_sets(tagger, papers))
    assert len(papers) > 2_000
    assert tagged / len(papers) <= 0.01


def test_the_seed_pages_rl_for_llm_agents_papers_are_found_and_right(tagger) -> None:
    # The seed pages are the product's own, from May 2026: newer than every judged paper and
    # never trained on. Their abstracts were judged by the same guide (seed_pages.jsonl). Tags
    # there must be right, and 18 of the 22 found (20 before this release, whose model reads
    # the blind pools; the goal is 21: docs/tagging.md says which four are missed and why).
    newer = evaluate(tagger, load_gold(GOLD / "seed_pages.jsonl"), worst=0)
    headline = next(t for t in newer.topics if t.slug == HEADLINE)
    assert headline.true_positives + headline.false_negatives >= 20
    assert headline.precision >= 0.95
    assert headline.recall >= 18 / 22
