"""Query follows at scale: a day's new papers against many follows, and one follow's momentum.

    .venv/bin/python bench/bench_query_follows.py [--database-url URL] [--papers 1000000]

1. Momentum: a store of `--papers` papers (real titles and abstracts reused with new ids,
   spread over 1,000 days), then a new query follow: its papers found through the index and
   tagged (`store_filter`), and its momentum line and 12-week histogram read.
2. Matching: 2,000 real new papers (../shared/data/arxiv-real) against 10,000 distinct query
   follows built from their words, three ways: in memory over a word index of the batch (what
   ingest does), and for comparison in a temporary FTS5 table (SQLite) or against tsvectors
   computed once (PostgreSQL). Then the whole ingest step, tags written, into that store.

A PostgreSQL database given by `--database-url` must be empty (the script fills it).
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from itertools import islice
from pathlib import Path

from sqlalchemy import insert, text
from sqlmodel import Session

from digests.follows.filters import FollowFilter, match_new_papers, parse_filter, query_tree
from digests.follows.query import search_text, to_fts5, to_tsquery
from digests.papers.feeds import parse_jsonl
from digests.store import follow_filters, repo
from digests.store.engine import open_engine, upgrade_schema
from digests.store.models import Paper
from digests.store.search_words import stored_search_text
from digests.usecases.follows import store_filter, tag_new_papers
from digests.usecases.reports import topic_momenta

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "arxiv-real" / "ai-2025.jsonl.gz"
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def real_records(count: int) -> list:
    with gzip.open(REAL, "rb") as lines:
        return parse_jsonl(b"".join(islice(lines, count))).records


def distinct_queries(records: list, count: int, seed: int = 7) -> list[FollowFilter]:
    """Queries of one to four words and phrases from the papers' titles, some with OR and NOT."""
    rng = random.Random(seed)
    titles = [search_text(r.title, "").split() for r in records]
    words = sorted({w for title in titles for w in title if len(w) > 3})
    found: dict[str, FollowFilter] = {}
    while len(found) < count:
        title = rng.choice(titles)
        start = rng.randrange(max(1, len(title) - 1))
        phrase = '"' + " ".join(title[start : start + 2]) + '"'
        shape = rng.randrange(4)
        if shape == 0:
            query = phrase
        elif shape == 1:
            query = f"{phrase} AND ({rng.choice(words)} OR {rng.choice(words)})"
        elif shape == 2:
            query = f"{rng.choice(words)} {rng.choice(words)} NOT {rng.choice(words)}"
        else:
            query = f"{phrase} OR {rng.choice(words)}"
        follow = parse_filter(f"query: {query}")
        found.setdefault(follow.definition, follow)
    return list(found.values())


def timed(what: str, job):
    started = time.perf_counter()
    result = job()
    print(f"  {what}: {time.perf_counter() - started:.2f} s", flush=True)
    return result


def bench_matching(engine, papers: int, follows: int, runs: int) -> None:
    records = real_records(papers)
    filters = distinct_queries(records, follows)
    print(f"matching {len(records)} new papers against {len(filters)} distinct query follows")
    matched = timed(
        "in memory (word index of the batch)", lambda: match_new_papers(filters, records)
    )
    print(f"    {sum(map(len, matched))} matches")
    with Session(engine) as session:
        if engine.dialect.name == "sqlite":
            timed(
                "temporary FTS5 table, one MATCH per query",
                lambda: _fts5(session, records, filters),
            )
        else:
            timed(
                "tsvectors computed once, one @@ per query",
                lambda: _tsvector(session, records, filters),
            )
        session.rollback()
    took = []
    for _ in range(runs):  # each run rolled back: the same new papers and follows every time
        with Session(engine) as session:
            for follow in filters:
                follow_filters.save(session, follow, now=NOW)
            stored = repo.upsert_papers(session, records, now=NOW)
            session.flush()
            started = time.perf_counter()
            tag_new_papers(session, stored.new, now=NOW)
            took.append(time.perf_counter() - started)
            session.rollback()
    print(f"  ingest step: match and write tags: {_runs(took)}", flush=True)


def _runs(took: list[float]) -> str:
    each = ", ".join(f"{t:.2f}" for t in took)
    return f"median {statistics.median(took):.2f} s ({each})"


def _fts5(session: Session, records: list, filters: list[FollowFilter]) -> int:
    session.execute(text("CREATE VIRTUAL TABLE temp.day USING fts5(body)"))
    session.execute(
        text("INSERT INTO temp.day(rowid, body) VALUES (:id, :body)"),
        [{"id": n, "body": search_text(r.title, r.abstract)} for n, r in enumerate(records)],
    )
    statement = text("SELECT rowid FROM temp.day WHERE day MATCH :q")
    return sum(len(session.execute(statement, {"q": to_fts5(_tree(f))}).all()) for f in filters)


def _tsvector(session: Session, records: list, filters: list[FollowFilter]) -> int:
    session.execute(text("CREATE TEMP TABLE day (id int, body tsvector)"))
    session.execute(
        text("INSERT INTO day VALUES (:id, to_tsvector('simple', :body))"),
        [{"id": n, "body": search_text(r.title, r.abstract)} for n, r in enumerate(records)],
    )
    session.execute(text("CREATE INDEX ON day USING gin (body)"))
    session.execute(text("ANALYZE day"))
    statement = text("SELECT id FROM day WHERE body @@ CAST(:q AS tsquery)")
    return sum(len(session.execute(statement, {"q": to_tsquery(_tree(f))}).all()) for f in filters)


def _tree(follow: FollowFilter):
    return query_tree(follow.definition)


def fill_store(engine, count: int) -> None:
    """`count` papers: real texts reused under new ids, spread evenly over 1,000 days."""
    source = real_records(40_000)
    texts = [(r.title, r.abstract[:600]) for r in source]
    first_day = NOW.date() - timedelta(days=999)
    started = time.perf_counter()
    with engine.begin() as connection:
        for start in range(0, count, 5000):
            rows = [
                _row(n, texts[n % len(texts)], first_day)
                for n in range(start, min(count, start + 5000))
            ]
            connection.execute(insert(Paper), rows)
    if engine.dialect.name == "postgresql":
        # The statistics autovacuum keeps on a live store (the search index's too): without
        # them the planner does not know how few papers a rare word is in.
        with engine.begin() as connection:
            connection.execute(text("ANALYZE paper"))
    print(f"  stored {count} papers in {time.perf_counter() - started:.0f} s", flush=True)
    print(f"  {database_size(engine)}", flush=True)


def database_size(engine) -> str:
    """The database's size, and the parts of it that hold the papers' words."""
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:
            connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
        sizes = connection.execute(text(_SQLITE_SIZES if sqlite else _POSTGRES_SIZES)).one()
    total, papers, index, words = (value / 1e6 for value in sizes)
    return (
        f"database {total:,.0f} MB: table paper {papers:,.0f} MB (paper.search_text "
        f"{words:,.0f} MB), full-text index {index:,.0f} MB"
    )


_SQLITE_SIZES = """
SELECT (SELECT page_count * page_size FROM pragma_page_count, pragma_page_size),
       (SELECT sum(pgsize) FROM dbstat WHERE name = 'paper'),
       (SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'paper_fts%'),
       (SELECT coalesce(sum(length(CAST(search_text AS BLOB))), 0) FROM paper)
"""
_POSTGRES_SIZES = """
SELECT pg_database_size(current_database()),
       pg_table_size('paper'),
       pg_relation_size('ix_paper_search'),
       (SELECT coalesce(sum(octet_length(search_text)), 0) FROM paper)
"""


def _row(n: int, texts: tuple, first_day: date) -> dict:
    title, abstract = texts
    day = first_day + timedelta(days=n % 1000)
    published = datetime.combine(day, datetime.min.time(), tzinfo=UTC)
    return {
        "arxiv_id": f"b{n:08d}",
        "title": title,
        "abstract": abstract,
        "authors": [],
        "affiliations": [],
        "categories": ["cs.LG"],
        "primary_category": "cs.LG",
        "published": published,
        "published_on": day,
        "abs_url": "",
        "pdf_url": "",
        "ingested_at": published,
        "search_text": stored_search_text(title, abstract),
    }


def bench_momentum(engine, count: int, runs: int) -> None:
    print(f"a new query follow over {count} stored papers")
    fill_store(engine, count)
    for spec in (
        'query: "world model" AND (agent OR agents) NOT survey',
        "query: diffusion",
        "query: language",
    ):
        follow = parse_filter(spec)
        took = []
        for _ in range(runs):
            with Session(engine) as session:
                started = time.perf_counter()
                store_filter(session, follow, now=NOW)
                momentum = topic_momenta(session, [follow.topic()], as_of=NOW.date())
                took.append(time.perf_counter() - started)
                session.rollback()
        line = momentum[follow.slug].line
        print(f"  {spec}: found, tagged and momentum read: {_runs(took)} — {line}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--new", type=int, default=2000)
    parser.add_argument("--follows", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3, help="runs of each measurement")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        url = args.database_url or f"sqlite:///{scratch}/bench.db"
        engine = open_engine(url)
        upgrade_schema(engine)
        print(f"database: {engine.dialect.name}")
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        bench_momentum(engine, args.papers, args.runs)
        bench_matching(engine, args.new, args.follows, args.runs)
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
