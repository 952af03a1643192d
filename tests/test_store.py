"""Storage behaviour, run against SQLite and a real PostgreSQL server."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta, timezone
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import select, text
from sqlmodel import Session, SQLModel

from digests.store import follow_filters, repo
from digests.store.engine import (
    MIGRATIONS_DIR,
    newest_migration,
    open_engine,
    upgrade_schema,
)
from digests.store.models import IngestState, Paper, PaperTopic, Topic
from tests.papers import paper_record

NOW = datetime(2026, 9, 28, 21, 0, tzinfo=UTC)


def add_topic(session: Session, slug: str) -> int:
    topic = Topic(slug=slug, name=slug.title())
    session.add(topic)
    session.flush()
    return topic.id


def test_migrations_apply_twice_without_error(engine):
    assert upgrade_schema(engine) == upgrade_schema(engine) == newest_migration()


def upgrade_together(url: str, start: Barrier, revisions: Queue) -> None:
    """One replica starting: connect, wait for the others, then migrate."""
    engine = open_engine(url)
    start.wait()
    try:
        revisions.put(upgrade_schema(engine))
    except Exception as exc:
        revisions.put(repr(exc))
    finally:
        engine.dispose()


def test_replicas_migrating_a_fresh_database_together_take_turns(database_url):
    processes = multiprocessing.get_context("spawn")
    start, revisions = processes.Barrier(3), processes.Queue()
    replicas = [
        processes.Process(target=upgrade_together, args=(database_url, start, revisions))
        for _ in range(3)
    ]
    for replica in replicas:
        replica.start()
    outcomes = [revisions.get(timeout=120) for _ in replicas]
    for replica in replicas:
        replica.join()

    head = ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head()
    assert outcomes == [head] * 3
    engine = open_engine(database_url)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
            (head,)
        ]
    engine.dispose()


def test_migration_files_are_named_after_their_revision_so_the_head_is_known_without_alembic():
    assert newest_migration() == ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head()


def test_starting_on_a_database_already_at_head_does_not_load_alembic(engine, database_url):
    # Alembic's modules cost an idle bot 11 MiB; they are only needed when there is work.
    check = (
        "import sys\n"
        "from digests.store.engine import open_engine, upgrade_schema\n"
        f"print(upgrade_schema(open_engine({database_url!r})), 'alembic' in sys.modules)\n"
    )
    started = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, timeout=60, check=True
    )
    assert started.stdout.split() == [newest_migration(), "False"]


def _not_full_text(name, kind, parents) -> bool:
    # The full-text index of migration 0003 (FTS5 table and its shadow tables, GIN expression
    # index) is not a model.
    return not (name or "").startswith(follow_filters.FULL_TEXT_OBJECTS)


def test_the_migrated_schema_is_exactly_the_models(engine):
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"include_name": _not_full_text})
        assert compare_metadata(context, SQLModel.metadata) == []


def test_ingesting_the_same_paper_twice_stores_one_row(engine):
    with Session(engine) as session:
        first = repo.upsert_papers(session, [paper_record()], now=NOW)
        second = repo.upsert_papers(session, [paper_record()], now=NOW)
        session.commit()
        assert (len(first.new), len(second.new), second.unchanged) == (1, 0, 1)
        assert repo.paper_count(session) == 1


def test_a_new_version_updates_the_row_and_keeps_the_first_version_date(engine):
    v2 = paper_record(version=2, title="Revised title", published=datetime(2026, 9, 25, tzinfo=UTC))
    with Session(engine) as session:
        repo.upsert_papers(session, [paper_record()], now=NOW)
        result = repo.upsert_papers(session, [v2], now=NOW)
        session.commit()
        paper = session.exec(select(Paper)).scalars().one()
    assert len(result.updated) == 1
    assert (paper.version, paper.title, paper.published_on) == (
        2,
        "Revised title",
        date(2026, 9, 20),
    )


def test_an_older_version_never_overwrites_a_newer_one(engine):
    with Session(engine) as session:
        repo.upsert_papers(session, [paper_record(version=3, title="v3")], now=NOW)
        result = repo.upsert_papers(session, [paper_record(version=1, title="v1")], now=NOW)
        paper = session.exec(select(Paper)).scalars().one()
    assert (result.unchanged, paper.title) == (1, "v3")


def test_a_newer_version_without_a_doi_or_journal_reference_keeps_the_stored_ones(engine):
    published = paper_record(
        doi="10.1093/bioinformatics/btac431",
        journal_ref="Bioinformatics 38 (2022)",
        comment="12 pages",
        affiliations=("Duke University",),
    )
    bare_v2 = paper_record(version=2, title="Revised title")  # as a listing's replacement reads
    with Session(engine) as session:
        repo.upsert_papers(session, [published], now=NOW)
        repo.upsert_papers(session, [bare_v2], now=NOW)
        session.commit()
        paper = session.exec(select(Paper)).scalars().one()
    assert (paper.version, paper.title) == (2, "Revised title")
    assert (paper.doi, paper.journal_ref, paper.comment, paper.affiliations) == (
        "10.1093/bioinformatics/btac431",
        "Bioinformatics 38 (2022)",
        "12 pages",
        ["Duke University"],
    )


def test_a_newer_version_with_its_own_doi_replaces_the_stored_one(engine):
    with Session(engine) as session:
        repo.upsert_papers(session, [paper_record(doi="10.1000/preprint")], now=NOW)
        repo.upsert_papers(session, [paper_record(version=2, doi="10.1000/journal")], now=NOW)
        session.commit()
        assert session.exec(select(Paper.doi)).scalars().one() == "10.1000/journal"


def test_hostile_and_huge_text_is_stored_unchanged(engine):
    title = "<script>alert(1)</script> @everyone &amp; $\\pi$ 🚀 " + "x" * 10_000
    with Session(engine) as session:
        repo.upsert_papers(session, [paper_record(title=title)], now=NOW)
        session.commit()
        assert session.exec(select(Paper.title)).scalars().one() == title


def test_a_thousand_new_papers_and_their_tags_read_back_exactly_as_given(engine):
    # More papers than one INSERT statement holds; times given in another zone come back UTC.
    zone = timezone(timedelta(hours=-5))
    records = [
        paper_record(
            n,
            published=datetime(2026, 9, 20, 23, 30, 15, 123456, tzinfo=zone),
            updated=datetime(2026, 9, 22, 8, tzinfo=UTC) if n % 2 else None,
            title=f"Über {n} agents" if n % 3 == 0 else f"Agents {n}",
            authors=("Ada Lovelace", f"Author {n}"),
            affiliations=(f"Lab {n}",) if n % 5 == 0 else (),
            categories=("cs.LG", "cs.AI"),
            doi=f"10.1000/{n}" if n % 7 == 0 else None,
        )
        for n in range(1, 1_101)
    ]
    with Session(engine) as session:
        new = repo.upsert_papers(session, records, now=NOW).new
        topic_id = add_topic(session, "agentic-rl")
        tags = {paper_id: [(topic_id, 0.6389, "rules")] for paper_id in new}
        days = {paper_id: record.first_version_date for paper_id, record in new.items()}
        assert repo.write_tags(session, tags, days, now=NOW) == len(records)
        session.commit()
    with Session(engine) as session:
        papers = {p.arxiv_id: p for p in session.exec(select(Paper)).scalars()}
        stored_tags = session.exec(select(PaperTopic)).scalars().all()
    assert sorted(r.arxiv_id for r in new.values()) == sorted(papers)
    for record in records:
        paper = papers[record.arxiv_id]
        assert (paper.title, paper.authors, paper.affiliations, paper.categories, paper.doi) == (
            record.title,
            list(record.authors),
            list(record.affiliations),
            list(record.categories),
            record.doi,
        )
        assert (paper.published, paper.updated, paper.ingested_at) == (
            record.published,
            record.updated,
            NOW,
        )
        assert paper.published_on == record.first_version_date
    assert {(t.score, t.source, t.published_on, t.tagged_at) for t in stored_tags} == {
        (0.6389, "rules", records[0].first_version_date, NOW)
    }
    assert len(stored_tags) == len(records)


def test_retagging_keeps_the_time_a_paper_was_first_tagged(engine):
    later = NOW + timedelta(days=30)
    with Session(engine) as session:
        paper_id = next(iter(repo.upsert_papers(session, [paper_record()], now=NOW).new))
        topic_id = add_topic(session, "agentic-rl")
        day = {paper_id: date(2026, 9, 20)}
        assert repo.write_tags(session, {paper_id: [(topic_id, 0.5, "rules")]}, day, now=NOW) == 1
        assert repo.write_tags(session, {paper_id: [(topic_id, 0.9, "rules")]}, day, now=later) == 0
        tag = session.exec(select(PaperTopic)).scalars().one()
    assert (tag.score, tag.tagged_at) == (0.9, NOW)


def test_retagging_removes_rule_tags_but_keeps_upstream_tags(engine):
    with Session(engine) as session:
        paper_id = next(iter(repo.upsert_papers(session, [paper_record()], now=NOW).new))
        rl, agents = add_topic(session, "rl"), add_topic(session, "agents")
        day = {paper_id: date(2026, 9, 20)}
        repo.write_tags(
            session, {paper_id: [(rl, 0.5, "rules"), (agents, 1.0, "upstream")]}, day, now=NOW
        )
        repo.write_tags(session, {paper_id: []}, day, now=NOW)
        left = session.exec(select(PaperTopic.topic_id, PaperTopic.source)).all()
    assert [tuple(row) for row in left] == [(agents, "upstream")]


def test_daily_counts_count_a_paper_once_per_topic_whatever_the_sources(engine):
    with Session(engine) as session:
        paper_id = next(iter(repo.upsert_papers(session, [paper_record()], now=NOW).new))
        topic_id = add_topic(session, "rl")
        tags = {paper_id: [(topic_id, 0.5, "rules"), (topic_id, 1.0, "upstream")]}
        repo.write_tags(session, tags, {paper_id: date(2026, 9, 20)}, now=NOW)
        counts = repo.daily_topic_counts(session, date(2026, 9, 1), date(2026, 9, 28))
        totals = repo.daily_totals(session, date(2026, 9, 1), date(2026, 9, 28))
    assert counts == {topic_id: {date(2026, 9, 20): 1}}
    assert totals == {date(2026, 9, 20): 1}


def test_tagged_papers_skips_old_papers_swept_in_by_a_later_tagging(engine):
    old = paper_record(arxiv_id="2601.00001", published=datetime(2026, 1, 5, tzinfo=UTC))
    with Session(engine) as session:
        result = repo.upsert_papers(session, [paper_record(), old], now=NOW)
        topic_id = add_topic(session, "rl")
        tags = {pid: [(topic_id, 0.7, "rules")] for pid in result.new}
        days = {pid: rec.first_version_date for pid, rec in result.new.items()}
        repo.write_tags(session, tags, days, now=NOW)
        found = repo.tagged_papers(
            session,
            [topic_id],
            tagged_from=NOW - timedelta(days=7),
            tagged_to=NOW,
            published_from=date(2026, 9, 14),
        )
    assert [paper.arxiv_id for paper, _ in found] == ["2609.00001"]


def test_an_ingest_cursor_survives_a_new_session(engine):
    with Session(engine) as session:
        repo.save_state(session, "backfill", {"start": 4000}, now=NOW, success=True)
        session.commit()
    with Session(engine) as session:
        assert repo.load_state(session, "backfill") == {"start": 4000}
        assert session.get(IngestState, "backfill").last_success_at == NOW
