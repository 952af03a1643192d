"""Re-tagging stored papers after the tagger changed: in batches, resumable, dates kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, select

from digests.store.models import PaperTopic, Topic
from digests.topics.tagger import Tagger
from digests.usecases.ingest import ingest_records, sync_catalog
from digests.usecases.retag import retag_all, retag_batch, retag_status
from digests.usecases.status import read_status
from tests.papers import paper_record

NOW = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(days=3)

PAPERS = [
    paper_record(
        n,
        datetime(2026, 9, 1 + n, tzinfo=UTC),
        title=title,
        abstract=abstract,
        categories=("cs.CL", "cs.LG"),
        upstream_topics=("Terminal Agents",) if n == 1 else (),
    )
    for n, (title, abstract) in enumerate(
        [
            (
                "Multi-turn reinforcement learning for web agents",
                "We train LLM agents with PPO over multi-turn browsing episodes with rewards.",
            ),
            (
                "Prompting large language models to plan trips",
                "We study exploration of prompt formats with large language models.",
            ),
            (
                "A benchmark for tool use by language models",
                "We release a benchmark of tool calls and evaluate large language models.",
            ),
            (
                "Policy gradients with learned baselines for robot arms",
                "Reinforcement learning trains a manipulator; rewards are sparse.",
            ),
            ("Semantic segmentation of street scenes", "We segment images of streets."),
        ],
        start=1,
    )
]


@pytest.fixture
def stored(engine, catalog):
    """The papers, tagged by the rules alone (an older tagger)."""
    rules = Tagger(catalog, model=None)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=rules, now=NOW)
        ingest_records(session, PAPERS, tagger=rules, catalog=catalog, now=NOW)
        session.commit()
    return engine


def tags_by_paper(engine) -> dict[int, set[tuple[str, str]]]:
    with Session(engine) as session:
        rows = session.exec(
            select(PaperTopic.paper_id, Topic.slug, PaperTopic.source).join(Topic)
        ).all()
    tags: dict[int, set[tuple[str, str]]] = {}
    for paper_id, slug, source in rows:
        tags.setdefault(paper_id, set()).add((slug, source))
    return tags


def test_a_new_tagger_starts_a_run_that_retags_every_paper_in_batches(stored, catalog):
    tagger = Tagger(catalog)
    with Session(stored) as session:
        status = sync_catalog(session, catalog=catalog, tagger=tagger, now=LATER)
        session.commit()
    assert status.pending and status.after_id == 0
    batches = 0
    while True:
        with Session(stored) as session:
            status = retag_batch(session, tagger, now=LATER, limit=2)
            session.commit()
        batches += 1
        if not status.pending:
            break
    assert batches == 3  # five papers, two at a time
    assert status.version == tagger.version
    expected = {
        number: {(t.slug, t.source) for t in tags}
        for number, tags in enumerate(
            tagger.tag_many([(p.title, p.abstract, p.categories) for p in PAPERS]), 1
        )
    }
    stored_tags = tags_by_paper(stored)
    for number in expected:
        machine = {tag for tag in stored_tags.get(number, set()) if tag[1] != "upstream"}
        assert machine == expected[number]


def test_a_run_reports_what_changed_per_topic(stored, catalog):
    tagger = Tagger(catalog)
    before = tags_by_paper(stored)
    status = retag_all(lambda: Session(stored), tagger, now=LATER)
    after = tags_by_paper(stored)
    gained: dict[str, int] = {}
    lost: dict[str, int] = {}
    for paper_id in before.keys() | after.keys():
        old = {slug for slug, source in before.get(paper_id, ()) if source != "upstream"}
        new = {slug for slug, source in after.get(paper_id, ()) if source != "upstream"}
        for slug in new - old:
            gained[slug] = gained.get(slug, 0) + 1
        for slug in old - new:
            lost[slug] = lost.get(slug, 0) + 1
    assert gained or lost
    for slug in gained.keys() | lost.keys():
        assert status.changes[slug] == [gained.get(slug, 0), lost.get(slug, 0)]


def test_a_run_resumes_where_it_stopped(stored, catalog):
    tagger = Tagger(catalog)
    with Session(stored) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=LATER)
        retag_batch(session, tagger, now=LATER, limit=3)
        session.commit()
    with Session(stored) as session:  # as after a restart
        status = retag_status(session)
        assert status.pending and status.after_id == 3
        status = retag_batch(session, tagger, now=LATER, limit=3)
        session.commit()
    assert not status.pending


def test_retagging_keeps_first_tagged_and_first_version_dates(stored, catalog):
    with Session(stored) as session:
        first = {
            (row.paper_id, row.topic_id): row.tagged_at
            for row in session.exec(select(PaperTopic)).all()
        }
    retag_all(lambda: Session(stored), Tagger(catalog), now=LATER)
    with Session(stored) as session:
        rows = session.exec(select(PaperTopic)).all()
        for row in rows:
            expected = first.get((row.paper_id, row.topic_id), LATER)
            assert row.tagged_at == expected
            assert row.published_on == PAPERS[row.paper_id - 1].first_version_date


def test_retagging_leaves_upstream_tags_alone(stored, catalog):
    retag_all(lambda: Session(stored), Tagger(catalog), now=LATER)
    assert ("terminal-agents", "upstream") in tags_by_paper(stored)[1]


def test_the_same_tagger_again_starts_no_run(stored, catalog):
    tagger = Tagger(catalog)
    retag_all(lambda: Session(stored), tagger, now=LATER)
    with Session(stored) as session:
        assert not sync_catalog(session, catalog=catalog, tagger=tagger, now=LATER).pending
        assert retag_batch(session, tagger, now=LATER) is None


def test_an_empty_store_needs_no_run(engine, catalog):
    with Session(engine) as session:
        assert not sync_catalog(session, catalog=catalog, tagger=Tagger(catalog), now=NOW).pending


def test_status_shows_a_run_under_way(stored, catalog):
    tagger = Tagger(catalog)
    with Session(stored) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=LATER)
        retag_batch(session, tagger, now=LATER, limit=2)
        session.commit()
        status = read_status(session, now=LATER)
    assert status.retagging == (2, 5)
    assert "re-tagging after a tagger change: 2 of 5 papers" in status.lines()
    retag_all(lambda: Session(stored), tagger, now=LATER)
    with Session(stored) as session:
        assert read_status(session, now=LATER).retagging is None
