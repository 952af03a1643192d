"""`digestbot demo`: replay real arXiv papers of late 2025 and print the week's digest.

The bundled corpus (`digests/data/real_corpus.jsonl.xz`, provenance in `real_corpus.md`) holds
the metadata of every paper arXiv listed in cs.AI, cs.CL, cs.CV and cs.GR in the last 16 weeks
of 2025. The demo replays it a week at a time, as a weekly ingest would have tagged it, and
prints the digest of RL for LLM Agents for the week to 2025-12-28, with its momentum line and
12-week chart. It runs offline with no configuration. Papers go into a temporary SQLite file
that is deleted afterwards, never into the configured DATABASE_URL, and nothing touches the
network. (The generated corpus, `demo_corpus.jsonl.gz`, stays for tests and scale benches.)
"""

from __future__ import annotations

import argparse
import lzma
import tempfile
import time as clock
from collections import defaultdict
from datetime import UTC, date, datetime, time, timedelta
from importlib import resources
from pathlib import Path

from bot.app import App, build_app
from bot.settings import Settings
from digests.messages.layout import long_date, period_text
from digests.messages.plain_text import render_text
from digests.papers.feeds import parse_jsonl
from digests.papers.records import PaperRecord
from digests.store import repo
from digests.store.unit_of_work import unit_of_work
from digests.topics.catalog import UnknownTopic
from digests.usecases.ingest import ingest_records

CORPUS = "real_corpus.jsonl.xz"
TOPIC = "rl-for-llm-agents"
WEEK_END = date(2025, 12, 28)  # the Sunday ending the demo's digest week
# Replayed papers are tagged on the evening of their week's last day, like a weekly ingest.
INGEST_TIME = time(21, 0)


def load_corpus() -> list[PaperRecord]:
    """The real papers shipped in the package, oldest first."""
    data = (resources.files("digests") / "data" / CORPUS).read_bytes()
    parsed = parse_jsonl(lzma.decompress(data))
    if parsed.skipped:
        first = parsed.skipped[0]
        raise RuntimeError(f"{CORPUS}: {first.where}: {first.reason}")
    return sorted(parsed.records, key=lambda record: record.published)


def replay(app: App, records: list[PaperRecord]) -> dict[date, int]:
    """Ingest `records` a week (Monday to Sunday) at a time, each on its week's last day;
    returns papers per first-version day."""
    last = max(record.first_version_date for record in records)
    by_week: dict[date, list[PaperRecord]] = defaultdict(list)
    for record in records:
        day = record.first_version_date
        by_week[min(day + timedelta(days=6 - day.weekday()), last)].append(record)
    for sunday, week in sorted(by_week.items()):
        now = datetime.combine(sunday, INGEST_TIME, tzinfo=UTC)
        with unit_of_work(app.session) as session:
            ingest_records(session, week, tagger=app.tagger, catalog=app.catalog, now=now)
    days: dict[date, int] = defaultdict(int)
    for record in records:
        days[record.first_version_date] += 1
    return dict(days)


def run_demo(settings: Settings) -> int:
    records = load_corpus()
    if not records:
        print("digestbot demo: the bundled corpus is empty")
        return 1
    with tempfile.TemporaryDirectory(prefix="digestbot-demo-") as scratch:
        database = Path(scratch) / "demo.db"
        # The catalog is stored as of the corpus' first day, before any paper of it.
        start = datetime.combine(records[0].first_version_date, time.min, tzinfo=UTC)
        demo = settings.model_copy(update={"database_url": f"sqlite:///{database}"})
        app = build_app(demo, clock=lambda: start)
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
    app.usecases.sync_catalog()
    started = clock.perf_counter()
    days = replay(app, records)
    elapsed = clock.perf_counter() - started
    end = WEEK_END
    with app.session() as session:
        topics_tagged = repo.tagged_topic_count(session)
    digest = app.usecases.digest([topic], since=end - timedelta(days=6), until=end)
    categories = {category for record in records for category in record.categories}
    print(
        "digestbot demo: real arXiv papers (metadata of arXiv's daily listings, CC0; "
        "provenance in digests/data/real_corpus.md)"
    )
    print(
        f"Loaded {len(records):,} papers first published {period_text(first_day, max(days))} "
        f"({len(days)} days, {len(categories)} arXiv categories), tagged into "
        f"{topics_tagged} topics."
    )
    print(
        f"Replayed week by week into a temporary SQLite database in {elapsed:.1f} s "
        f"({len(records) / elapsed:,.0f} papers/s); it is deleted on exit."
    )
    print(f"\nWhat a channel following {topic.name} gets for the week to {long_date(end)}:\n")
    print(render_text(digest, title=f"Demo digest: {topic.name}", histogram=True), end="")
    return 0


def cmd_demo(settings: Settings, args: argparse.Namespace) -> int:
    return run_demo(settings)
