"""Which tags a paper shows: its most specific ones, best first, at most four, and the topic it is
listed under always; roll-ups stay in the counts, not beside every paper."""

from __future__ import annotations

from datetime import date, timedelta

from digests.messages.digest import TopicRef, compose_digest
from digests.messages.tags import lineage, shown_tags
from digests.signals.momentum import compute_momentum
from tests.papers import digest_paper

# A small tree: llm > agents > rl-agents > agentic-rl, and llm > reasoning.
ANCESTORS = {
    "llm": set(),
    "agents": {"llm"},
    "rl-agents": {"agents", "llm"},
    "agentic-rl": {"rl-agents", "agents", "llm"},
    "reasoning": {"llm"},
    "world-models": set(),
    "robotics": set(),
    "vision": set(),
}


def test_ancestors_of_a_tag_the_paper_has_are_not_shown():
    scores = {"llm": 0.9, "agents": 0.8, "rl-agents": 0.7, "reasoning": 0.6}
    assert shown_tags(scores, ANCESTORS) == ["rl-agents", "reasoning"]


def test_at_most_four_tags_best_score_first():
    scores = {"rl-agents": 0.5, "reasoning": 0.9, "world-models": 0.7, "robotics": 0.6}
    scores |= {"vision": 0.8, "llm": 1.0}
    assert shown_tags(scores, ANCESTORS) == ["reasoning", "vision", "world-models", "robotics"]


def test_the_topic_a_paper_is_listed_under_is_always_shown_in_its_place_by_score():
    scores = {"reasoning": 0.9, "world-models": 0.7, "robotics": 0.6, "vision": 0.5}
    scores |= {"agents": 0.8, "agentic-rl": 0.95}
    # On the "agents" page: agents shown though its descendant agentic-rl is too.
    shown = shown_tags(scores, ANCESTORS, home="agents")
    assert shown == ["agentic-rl", "reasoning", "agents", "world-models"]


def test_an_unscored_home_topic_comes_first_and_keeps_its_ancestors_out():
    shown = shown_tags({"llm": 0.9, "vision": 0.4}, ANCESTORS, home="rl-agents")
    assert shown == ["rl-agents", "vision"]


def test_the_shipped_catalog_shows_no_roll_up_beside_rl_for_llm_agents(catalog):
    ancestors = lineage(catalog)
    scores = {slug: 0.5 for slug in ["rl-for-llm-agents", *ancestors["rl-for-llm-agents"]]}
    assert shown_tags(scores, ancestors) == ["rl-for-llm-agents"]


def test_a_digest_lists_no_followed_ancestor_as_also_in():
    as_of = date(2026, 9, 27)
    followed = [TopicRef("agents", "Agents"), TopicRef("rl-agents", "RL Agents")]
    followed += [TopicRef("reasoning", "Reasoning")]
    momenta = {t.slug: compute_momentum(t.name, {as_of: 1}, {as_of: 9}, as_of) for t in followed}
    paper = digest_paper(1, scores={"agents": 0.6, "rl-agents": 0.9, "reasoning": 0.5})
    start = as_of - timedelta(days=6)
    plain = compose_digest(followed, [paper], momenta, start, as_of)
    specific = compose_digest(followed, [paper], momenta, start, as_of, ancestors=ANCESTORS)
    assert plain.sections[1].entries[0].also_in == ("Agents", "Reasoning")
    assert specific.sections[1].entries[0].also_in == ("Reasoning",)
