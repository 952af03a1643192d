"""`digestbot demo`: replay the bundled corpus of generated papers and print a digest.

It runs offline with no configuration. Papers go into a temporary SQLite file that is deleted
afterwards, never into the configured DATABASE_URL, and nothing touches the network.
"""

from __future__ import annotations

import gzip
import tempfile
import time as clock
from collections import defaultdict
from datetime import UTC, date, datetime, time, timedelta
from importlib import resources
from pathlib import Path

from sqlalchemy import func, select

from bot.app import App, build_app
from bot.settings import Settings
from digests.catalog import UnknownTopic
from digests.feeds import parse_jsonl
from digests.ingest import ingest_records
from digests.papers import PaperRecord
from digests.render import long_date, period_text
from digests.render_text import render_text
from digests.reports import build_digest
from digests.store.models import PaperTopic

CORPUS = "demo_corpus.jsonl.gz"
TOPIC = "rl-for-llm-agents"
# Replayed papers are tagged in the evening of their first-version day, like a daily ingest.
INGEST_TIME = time(21, 0)


def load_corpus() -> list[PaperRecord]:
    """The generated papers shipped in the package, oldest first."""
    data = (resources.files("digests") / "data" / CORPUS).read_bytes()
    parsed = parse_jsonl(gzip.decompress(data))
    if parsed.skipped:
        first = parsed.skipped[0]
        raise RuntimeError(f"{CORPUS}: {first.where}: {first.reason}")
    return sorted(parsed.records, key=lambda record: record.published)


def replay(app: App, records: list[PaperRecord]) -> dict[date, int]:
    """Ingest `records` one first-version day at a time; returns papers per day."""
    by_day: dict[date, list[PaperRecord]] = defaultdict(list)
    for record in records:
        by_day[record.first_version_date].append(record)
    with app.session() as session:
        for day, day_records in sorted(by_day.items()):
            now = datetime.combine(day, INGEST_TIME, tzinfo=UTC)
            ingest_records(session, day_records, tagger=app.tagger, catalog=app.catalog, now=now)
            session.commit()
    return {day: len(day_records) for day, day_records in by_day.items()}


def run_demo(settings: Settings) -> int:
    records = load_corpus()
    if not records:
        print("digestbot demo: the bundled corpus is empty")
        return 1
    with tempfile.TemporaryDirectory(prefix="digestbot-demo-") as scratch:
        database = Path(scratch) / "demo.db"
        app = build_app(settings.model_copy(update={"database_url": f"sqlite:///{database}"}))
        try:
            return _run(app, records)
        finally:
            app.close()


def _run(app: App, records: list[PaperRecord]) -> int:
    try:
        topic = app.catalog.resolve(TOPIC)
    except UnknownTopic as exc:
        print(f"digestbot demo: the catalog has no topic for the demo: {exc}")
        return 1
    first_day = records[0].first_version_date
    app.sync_catalog(now=datetime.combine(first_day, time.min, tzinfo=UTC))
    started = clock.perf_counter()
    days = replay(app, records)
    elapsed = clock.perf_counter() - started
    end = max(days)
    with app.session() as session:
        topics_tagged = session.execute(
            select(func.count(func.distinct(PaperTopic.topic_id)))
        ).scalar_one()
        digest = build_digest(
            session,
            [topic],
            since=end - timedelta(days=6),
            until=end,
            per_topic_cap=app.settings.digest_papers_per_topic,
        )
    categories = {category for record in records for category in record.categories}
    print("digestbot demo: GENERATED papers, not real ones (titles, authors and ids are made up)")
    print(
        f"Loaded {len(records):,} papers first published {period_text(first_day, end)} "
        f"({len(days)} days, {len(categories)} arXiv categories), tagged into "
        f"{topics_tagged} topics."
    )
    print(
        f"Replayed day by day into a temporary SQLite database in {elapsed:.1f} s "
        f"({len(records) / elapsed:,.0f} papers/s); it is deleted on exit."
    )
    print(f"\nWhat a channel following {topic.name} gets for the week to {long_date(end)}:\n")
    print(render_text(digest, title=f"Demo digest: {topic.name}", histogram=True), end="")
    return 0
