"""Query, author and category follows: the query language, the same papers on every backend,
author names."""

from __future__ import annotations

import gzip
import re
from datetime import UTC, date, datetime
from itertools import islice

import pytest
from sqlmodel import Session

from digests.follows.authors import AuthorError, author_name, parse_author
from digests.follows.filters import FilterError, match_new_papers, parse_filter
from digests.follows.query import QueryError, canonical, parse, search_text
from digests.papers.feeds import parse_jsonl
from digests.store import follow_filters, repo
from tests.papers import paper_record
from tests.shared_data import shared_dir

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "written"),
    [
        (
            '"world model" AND (agent OR agents) NOT survey',
            '"world model" (agent OR agents) NOT survey',
        ),
        ("diffusion  policy", "diffusion policy"),
        ("robot OR robots OR manipulation", "robot OR robots OR manipulation"),
        ("Über-Modell GPT-4o", '"uber modell" "gpt 4o"'),
        ("a NOT (b OR c) d", "a d NOT (b OR c)"),
        ("agents or and not", "agents or and not"),  # lowercase operators are words
        ("<script>alert(1)</script> @everyone", '"script alert" 1 script everyone'),
    ],
)
def test_a_good_query_is_read_into_one_standard_form(query, written):
    assert canonical(parse(query)) == written
    assert canonical(parse(written)) == written


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ('"world model" AND (agent OR agents))', "unexpected ')' at column 36"),
        ("(agents OR tools", "the parenthesis at column 1 is never closed"),
        ('agents "world model', "the quote at column 8 is never closed"),
        ("agents AND", "the query ends too early, at column 11"),
        ("OR agents", "unexpected 'OR' at column 1"),
        ("NOT survey", "NOT at column 1 has nothing to subtract from"),
        ("agents OR NOT survey", "NOT at column 11 has nothing to subtract from"),
        ("agents ()", "unexpected ')' at column 9"),
        ("agents (((((tools)))))", "nests deeper than 4 levels"),
        ("agents -- ", "-- at column 8 has no letters or digits"),
        ("   ", "the query is empty"),
        (" ".join(f"w{n}" for n in range(13)), "more than 12 terms"),
        ("x" * 201, "at most 200 work"),
    ],
)
def test_a_malformed_query_is_refused_saying_what_and_where(query, message):
    with pytest.raises(QueryError, match=re.escape(message)):
        parse(query)


def test_a_follow_is_refused_with_the_reason_when_its_query_is_malformed():
    with pytest.raises(FilterError) as refused:
        parse_filter("query: agents AND (tools")
    assert str(refused.value) == "query: the parenthesis at column 12 is never closed."


@pytest.mark.parametrize(
    "listed",
    [
        "Sergey Levine",
        "S. Levine",
        "Levine, Sergey",
        "Sérgey LEVINE",
        "Sergey V. Levine",
        "S Levine Jr.",
    ],
)
def test_an_author_follow_matches_the_ways_a_name_is_written(listed):
    assert parse_author('"Sergey Levine"').matches(author_name(listed))


@pytest.mark.parametrize(
    ("followed", "listed"),
    [
        ("Sergey Levine", "Samuel Levine"),
        ("Sergey Levine", "Sergey Levin"),
        ("Sergey Levine", "Levine Sergey"),
        ("S. Levine", "J. Levine"),
    ],
)
def test_an_author_follow_does_not_match_someone_else(followed, listed):
    assert not parse_author(followed).matches(author_name(listed))


def test_an_author_follow_needs_more_than_a_surname():
    with pytest.raises(AuthorError, match="no first name or initial"):
        parse_author("Levine")


def test_a_category_follow_takes_arxiv_ids_in_any_case_and_suggests_for_typos():
    assert parse_filter("category: cs.ro").definition == "cs.RO"
    with pytest.raises(FilterError) as refused:
        parse_filter("category: cs.RB")
    assert "category: cs.RO" in refused.value.suggestions


QUERIES = [
    '"large language model"',
    '"world model" AND (agent OR agents) NOT survey',
    "diffusion (image OR video) NOT text",
    "robot OR robots OR robotic",
    '"reinforcement learning" "human feedback"',
    "gpt 4o",
    "benchmark NOT (language OR vision)",
    "3d gaussian splatting",
    "graph neural network",
]


@pytest.fixture(scope="module")
def real_records():
    folder = shared_dir("data", "arxiv-real", pattern="ai-2025.jsonl.gz")
    with gzip.open(folder / "ai-2025.jsonl.gz", "rb") as lines:
        data = b"".join(islice(lines, 400))
    return parse_jsonl(data).records


def test_a_query_finds_the_same_real_papers_in_the_index_as_among_new_papers(engine, real_records):
    # Checked on SQLite (FTS5) and PostgreSQL (GIN tsvector) against the in-memory matcher of
    # new papers: so the two backends agree with each other too.
    with Session(engine) as session:
        stored = repo.upsert_papers(session, real_records, now=NOW)
        ids = {record.arxiv_id: paper_id for paper_id, record in stored.new.items()}
        session.commit()
        filters = [parse_filter(f"query: {query}") for query in QUERIES]
        in_memory = match_new_papers(filters, real_records)
        for follow, found in zip(filters, in_memory, strict=True):
            indexed = follow_filters.matching_papers(
                session, follow, start=date(2000, 1, 1), end=date(2030, 1, 1)
            )
            expected = {ids[real_records[i].arxiv_id] for i in found}
            assert set(indexed) == expected, follow.definition
        assert sum(map(len, in_memory)) > 50  # the queries do find real papers


def test_search_text_drops_accents_case_and_punctuation():
    assert search_text("Über-Modelle: GPT-4o", "naïve") == "uber modelle gpt 4o naive"


def test_ascii_punctuation_and_accents_are_read_alike_by_every_index(engine):
    # ASCII papers' words are computed by each database, the others' stored: both must give
    # what the in-memory matcher of new papers gives.
    texts = [
        ("GPT-4o's_tokens (v2.5) [draft]", "ON-DEVICE.agents; see https://x.org/a_b"),
        ("Über-Modelle: GPT-4o", "naïve ON-DEVICE agents, ﬁne-tuned"),
        ("GPT 4 outscores", "Agents on devices."),
    ]
    records = [
        paper_record(n, title=title, abstract=abstract)
        for n, (title, abstract) in enumerate(texts, 1)
    ]
    queries = ["gpt 4o", '"on device" agents', "tokens OR fine", "v2 OR 5 OR draft", "uber", "x"]
    with Session(engine) as session:
        stored = repo.upsert_papers(session, records, now=NOW)
        ids = list(stored.new)
        session.commit()
        filters = [parse_filter(f"query: {query}") for query in queries]
        for follow, found in zip(filters, match_new_papers(filters, records), strict=True):
            indexed = follow_filters.matching_papers(
                session, follow, start=date(2000, 1, 1), end=date(2030, 1, 1)
            )
            assert sorted(indexed) == sorted(ids[i] for i in found), follow.definition
        assert [len(found) for found in match_new_papers(filters, records)] == [2, 2, 2, 1, 1, 1]


@pytest.mark.parametrize(
    "typed", ['query: "world model" AND agents', 'author: "Levine, Sergey"', "category: cs.ro"]
)
def test_what_a_follow_says_to_type_follows_the_same_thing_again(typed):
    followed = parse_filter(typed)
    assert parse_filter(followed.spec) == followed
