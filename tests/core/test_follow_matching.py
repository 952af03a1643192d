"""Which new papers a followed search, author or category brings to a channel."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from digests.follows.filters import FilterError, match_new_papers, parse_filter
from digests.papers.records import PaperRecord

PUBLISHED = datetime(2026, 9, 25, tzinfo=UTC)


def record(title: str, categories: tuple[str, ...] = ("cs.LG",), **changes) -> PaperRecord:
    fields = {"arxiv_id": "2609.00001", "version": 1}  # matching goes by position in the batch
    fields |= {"abstract": "", "authors": ("Ada Lovelace",), "published": PUBLISHED}
    return PaperRecord(title=title, categories=categories, **(fields | changes))


def matched(spec: str, papers: list[PaperRecord]) -> list[str]:
    (indexes,) = match_new_papers([parse_filter(spec)], papers)
    return [papers[i].title for i in sorted(indexes)]


def test_a_quoted_phrase_matches_its_words_only_side_by_side_and_in_order():
    papers = [record("A world model for agents"), record("A model of the world")]
    assert matched('query: "world model"', papers) == ["A world model for agents"]
    assert matched("query: world model", papers) == [p.title for p in papers]  # both words


def test_not_leaves_out_papers_with_the_word_whatever_their_case():
    papers = [record("Agents that plan"), record("Agents: a Survey")]
    assert matched("query: agents NOT survey", papers) == ["Agents that plan"]


def test_a_category_follow_brings_cross_listed_papers_too():
    papers = [record("Primary", ("cs.RO",)), record("Cross-listed", ("cs.LG", "cs.RO"))]
    papers.append(record("Elsewhere", ("cs.CL",)))
    assert matched("category: cs.RO", papers) == ["Primary", "Cross-listed"]


def test_the_same_search_typed_twice_differently_is_one_follow():
    assert (
        parse_filter("query: agents  AND  planning").slug
        == parse_filter("Query:agents planning").slug
    )


def test_a_search_that_cannot_be_read_is_refused_and_follows_nothing():
    with pytest.raises(FilterError):
        parse_filter("query: agents AND (tools")
