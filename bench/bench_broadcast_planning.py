"""Benchmark: planning every channel's weekly digest at once (a broadcast), or instant batches.

    .venv/bin/python bench/bench_broadcast_planning.py [--channels 10000] [--papers 300] [--runs 3]
        [--mode weekly|instant]
    DIGESTBOT_BENCH_POSTGRES_URL=postgresql+psycopg://... \
        .venv/bin/python bench/bench_broadcast_planning.py

Builds a store (a SQLite file in a temporary directory; then, with the variable set, the
PostgreSQL database it names, emptied first) of five catalog topics, a few hundred real papers
(titles and abstracts of ai-2025.jsonl.gz, synthetic when it is missing) tagged into them in
the past week, and N channels, half Telegram, half Discord, each following one to three of the
topics weekly on a schedule that fell in the last hour, nothing stored yet. Then times the
leader's planning step, `UseCases.plan_digests("weekly", every_schedule=True)`, on the app
`bot.app.build_app` wires, with the Telegram and Discord adapters' renderers (no network).
With `--mode instant` the channels follow the topics `instant` since before the papers came,
and the step timed is the one after an ingest, `UseCases.plan_instant()`.
Every run plans from the same state: the deliveries and vote offers of the run before are
deleted first (on PostgreSQL then vacuumed, as autovacuum would).

Prints per backend the median of the runs: total seconds, ms per channel, the seconds spent
recording the papers shown as vote offers (`digests.usecases.votes.offer_many`, timed here only),
and the SQL statements sent (an executemany counts once).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path

from pydantic import SecretStr
from sqlalchemy import Engine, delete, event, func, insert, select, text
from sqlmodel import Session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_dispatch import NOW, due_within_the_hour

from bot.app import App, build_app
from bot.platforms.discord import DiscordAdapter
from bot.platforms.telegram import TelegramAdapter
from bot.settings import Settings
from digests.papers.feeds import parse_jsonl
from digests.papers.records import PaperRecord
from digests.store import repo
from digests.store.engine import open_engine, upgrade_schema
from digests.store.models import (
    Channel,
    Delivery,
    DeliveryPart,
    Follow,
    PaperTopic,
    VoteOffer,
)
from digests.topics.catalog import Catalog
from digests.usecases import votes

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "arxiv-real" / "ai-2025.jsonl.gz"
TOPICS = [
    "rl-for-llm-agents",
    "llm-reasoning",
    "computer-vision",
    "diffusion-models",
    "ai-safety",
]
OFFER = "offer_many"  # the function of digests.usecases.votes that records a delivery's offers


@dataclass(frozen=True)
class Run:
    seconds: float
    offering: float
    statements: int


def real_papers(count: int) -> list[PaperRecord]:
    """`count` papers of the real corpus (synthetic ones without it), first published over the
    week before NOW."""
    if CORPUS.exists():
        with gzip.open(CORPUS) as lines:
            records = parse_jsonl(b"".join(itertools.islice(lines, count))).records
    else:
        records = [
            PaperRecord(
                f"2609.{n:05d}", 1, f"Paper {n}", "An abstract.", ("A. Author",), ("cs.LG",), NOW
            )
            for n in range(count)
        ]
    return [
        replace(record, published=NOW - timedelta(days=2 + n % 6, hours=n % 12), updated=None)
        for n, record in enumerate(records)
    ]


def build(engine: Engine, channels: int, papers: int, mode: str, seed: int = 7) -> None:
    rng = random.Random(seed)
    upgrade_schema(engine)
    with Session(engine) as session:
        repo.sync_topics(session, Catalog.load().topics)
        rows = repo.topic_rows(session)
        topic_ids = [rows[slug].id for slug in TOPICS]
        stored = repo.upsert_papers(session, real_papers(papers), now=NOW).new
        tags = [
            {
                "paper_id": paper_id,
                "topic_id": topic_id,
                "source": "rules",
                "score": 0.5 + rng.random() / 2,
                "published_on": record.published.date(),
                "tagged_at": record.published + timedelta(hours=1),
            }
            for paper_id, record in stored.items()
            for topic_id in rng.sample(topic_ids, rng.randint(1, 2))
        ]
        session.execute(insert(PaperTopic), tags)
        session.execute(
            insert(Channel),
            [
                {
                    "id": n,
                    "platform": "telegram" if n % 2 else "discord",
                    "chat_id": str(n),
                    **due_within_the_hour(rng),
                    "created_at": NOW - timedelta(days=30),
                }
                for n in range(1, channels + 1)
            ],
        )
        # Instant followers follow from before the papers, or they would have nothing new.
        followed_at = NOW if mode == "weekly" else NOW - timedelta(days=9)
        follows = [
            {"channel_id": n, "topic_id": topic, "mode": mode, "created_at": followed_at}
            for n in range(1, channels + 1)
            for topic in rng.sample(topic_ids, rng.randint(1, 3))
        ]
        session.execute(insert(Follow), follows)
        session.commit()


def forget_plans(engine: Engine) -> None:
    """Back to nothing planned: no deliveries, no offers."""
    with engine.begin() as connection:
        for table in (VoteOffer, DeliveryPart, Delivery):
            connection.execute(delete(table))
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))


def broadcast_app(url: str) -> App:
    """The app as `digestbot run` wires it, with both chat platforms' renderers."""
    settings = Settings(
        _env_file=None,
        database_url=url,
        telegram_token=SecretStr("1:bench"),
        discord_token=SecretStr("bench"),
    )
    app = build_app(settings, migrate=False, clock=lambda: NOW)
    app.usecases.add_platform(TelegramAdapter(settings, app.usecases))
    app.usecases.add_platform(DiscordAdapter(settings, app.usecases))
    return app


class Stopwatch:
    """Time spent inside a wrapped function, summed over its calls."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, function: Callable) -> Callable:
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        return timed


class StatementCount:
    """The statements sent on an engine so far (an executemany counts once)."""

    def __init__(self, engine: Engine) -> None:
        self.sent = 0
        event.listen(engine, "before_cursor_execute", self._count)

    def _count(self, *_args) -> None:
        self.sent += 1


def measure(url: str, channels: int, runs: int, mode: str) -> tuple[list[Run], int]:
    app = broadcast_app(url)
    stopwatch = Stopwatch()
    original = getattr(votes, OFFER)
    setattr(votes, OFFER, stopwatch.wrap(original))
    statements = StatementCount(app.engine)
    timings = []
    try:
        for _ in range(runs):
            forget_plans(app.engine)
            stopwatch.seconds, before = 0.0, statements.sent
            started = time.perf_counter()
            if mode == "weekly":
                stored, _ = app.usecases.plan_digests("weekly", every_schedule=True)
            else:
                stored = app.usecases.plan_instant()
            seconds = time.perf_counter() - started
            if stored != channels:
                raise SystemExit(f"planned {stored:,} digests for {channels:,} channels")
            timings.append(Run(seconds, stopwatch.seconds, statements.sent - before))
        with Session(app.engine) as session:
            offers = session.execute(select(func.count()).select_from(VoteOffer)).scalar_one()
    finally:
        setattr(votes, OFFER, original)
        app.close()
    return timings, offers


def report(label: str, url: str, channels: int, runs: int, mode: str) -> None:
    timings, offers = measure(url, channels, runs, mode)
    seconds = [run.seconds for run in timings]
    median = statistics.median(seconds)
    offering = statistics.median(run.offering for run in timings)
    statements = statistics.median(run.statements for run in timings)
    print(
        f"{label}, {mode}: {channels:,} channels, {offers:,} offers: median {median:.2f} s, "
        f"{1000 * median / channels:.3f} ms per channel (min {min(seconds):.2f}, "
        f"max {max(seconds):.2f}); recording offers {offering:.2f} s "
        f"({100 * offering / median:.0f}%); {statements:,.0f} statements; {runs} runs",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=10_000)
    parser.add_argument("--papers", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mode", choices=["weekly", "instant"], default="weekly")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        url = f"sqlite:///{scratch}/broadcast.db"
        built = open_engine(url)
        build(built, args.channels, args.papers, args.mode)
        built.dispose()
        report("sqlite", url, args.channels, args.runs, args.mode)
    postgres = os.environ.get("DIGESTBOT_BENCH_POSTGRES_URL")
    if postgres:
        built = open_engine(postgres)
        with built.begin() as connection:
            connection.execute(text("DROP SCHEMA public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
        build(built, args.channels, args.papers, args.mode)
        built.dispose()
        report("postgresql", postgres, args.channels, args.runs, args.mode)


if __name__ == "__main__":
    main()
