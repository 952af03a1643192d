"""A digest from plain data: followed topics, their papers and momentum, a channel's votes."""

from __future__ import annotations

from datetime import date

from digests.messages.digest import Digest, TopicRef, compose_digest
from digests.signals.momentum import compute_momentum
from tests.core.papers import paper

AGENTS, EVALS = TopicRef("agents", "Agents"), TopicRef("evals", "Evaluation")
START, END = date(2026, 9, 21), date(2026, 9, 27)
MOMENTA = {t.slug: compute_momentum(t.name, {}, {}, END) for t in (AGENTS, EVALS)}


def digest(papers, cap: int = 5, **votes) -> Digest:
    return compose_digest([AGENTS, EVALS], papers, MOMENTA, START, END, cap, **votes)


def listed(result: Digest) -> dict[str, list[str]]:
    return {s.topic.slug: [e.paper.arxiv_id for e in s.entries] for s in result.sections}


def test_a_paper_of_two_followed_topics_is_listed_once_under_its_closer_one():
    both = paper("2609.00001", {"agents": 0.4, "evals": 0.9})
    result = digest([both])
    assert listed(result) == {"agents": [], "evals": ["2609.00001"]}
    assert result.sections[1].entries[0].also_in == ("Agents",)


def test_sections_follow_the_follow_order_and_papers_their_tag_score():
    papers = [paper(f"2609.0000{n}", {"agents": score}) for n, score in enumerate([0.5, 0.9, 0.7])]
    result = digest(papers)
    assert [s.topic.slug for s in result.sections] == ["agents", "evals"]
    assert listed(result)["agents"] == ["2609.00001", "2609.00002", "2609.00000"]


def test_papers_past_the_cap_are_counted_not_listed():
    papers = [paper(f"2609.0000{n}", {"agents": 1.0}) for n in range(7)]
    result = digest(papers, cap=5)
    (agents, _) = result.sections
    assert (len(agents.entries), agents.more, result.paper_count) == (5, 2, 7)


def test_a_paper_voted_off_a_topic_leaves_it_but_stays_in_its_other_topic():
    both = paper("2609.00001", {"agents": 0.9, "evals": 0.4})
    result = digest([both], hidden={("2609.00001", "agents")})
    assert listed(result) == {"agents": [], "evals": ["2609.00001"]}


def test_the_channels_taste_ranks_a_topics_papers_before_their_tag_score():
    papers = [paper("2609.00001", {"agents": 0.9}), paper("2609.00002", {"agents": 0.5})]
    result = digest(papers, preference={"2609.00002": 1.5}, note="Ranked by votes")
    assert listed(result)["agents"] == ["2609.00002", "2609.00001"]
    assert result.note == "Ranked by votes"
    assert digest(papers, note="Ranked by votes").note == ""  # no model, no claim
