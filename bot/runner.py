"""`digestbot run`: one long-running process with the scheduler in its event loop.

Without a chat token the digests go to the terminal (standard output).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.app import App, build_app
from bot.arxiv import ArxivUnavailable
from bot.ingest_jobs import ingest_listing
from bot.settings import Settings
from digests.catalog import UnknownTopic
from digests.render_text import render_text
from digests.reports import build_digest

log = logging.getLogger("digestbot")

# arXiv announces Sunday to Thursday at 20:00 New York time; the listing is ready soon after.
ANNOUNCEMENT = CronTrigger(day_of_week="sun-thu", hour=20, minute=30, timezone="America/New_York")
TERMINAL_DIGEST = CronTrigger(day_of_week="mon", hour=9, minute=0, timezone="UTC")


class Runner:
    def __init__(self, app: App) -> None:
        self.app = app
        self._ingest_lock = asyncio.Lock()

    async def ingest(self) -> None:
        """Fetch the latest listings; a failure is logged and retried by the next run."""
        app = self.app
        async with self._ingest_lock, app.arxiv_client() as client:
            try:
                report = await ingest_listing(
                    client,
                    app.session,
                    categories=app.settings.arxiv_categories,
                    tagger=app.tagger,
                    catalog=app.catalog,
                    now=datetime.now(UTC),
                )
            except ArxivUnavailable as exc:
                log.warning("ingest failed, will retry on the next run: %s", exc)
                return
        log.info("ingest: %s", report.summary().replace("\n", ", "))

    def print_digest(self, *, now: datetime | None = None) -> None:
        """Print the weekly digest of the terminal's followed topics."""
        now = now or datetime.now(UTC)
        topics = []
        for query in self.app.settings.terminal_follows:
            try:
                topics.append(self.app.catalog.resolve(query))
            except UnknownTopic as exc:
                log.warning("TERMINAL_FOLLOWS: %s", exc)
        if not topics:
            return
        until = now.date()
        with self.app.session() as session:
            digest = build_digest(
                session,
                topics,
                since=until - timedelta(days=6),
                until=until,
                per_topic_cap=self.app.settings.digest_papers_per_topic,
            )
        print(render_text(digest, histogram=True), flush=True)

    def schedule(self, scheduler: AsyncIOScheduler) -> None:
        scheduler.add_job(
            self.ingest,
            ANNOUNCEMENT,
            id="ingest",
            coalesce=True,
            max_instances=1,
            misfire_grace_time=3600,
        )
        scheduler.add_job(
            self.ingest,
            IntervalTrigger(hours=1),
            id="ingest-catch-up",
            coalesce=True,
            max_instances=1,
        )
        scheduler.add_job(
            self.print_digest,
            TERMINAL_DIGEST,
            id="terminal-digest",
            coalesce=True,
            misfire_grace_time=24 * 3600,
        )


async def serve(app: App, *, once: bool = False) -> None:
    runner = Runner(app)
    if once:
        await runner.ingest()
        runner.print_digest()
        return
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    scheduler = AsyncIOScheduler(timezone=UTC)
    runner.schedule(scheduler)
    scheduler.start()
    log.info(
        "digestbot running: ingest Sun–Thu 20:30 America/New_York and hourly; "
        "terminal digest Mondays 09:00 UTC. Ctrl-C stops."
    )
    try:
        await stop.wait()
    finally:
        scheduler.shutdown(wait=False)
        log.info("digestbot stopped")


def run(settings: Settings, *, once: bool = False) -> int:
    logging.basicConfig(
        level=settings.log_level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    app = build_app(settings)
    app.sync_catalog(now=datetime.now(UTC))
    try:
        asyncio.run(serve(app, once=once))
    finally:
        app.close()
    return 0
