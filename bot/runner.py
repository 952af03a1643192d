"""`digestbot run`: one long-running process — the scheduler and every chat adapter in one loop.

Jobs (times are arXiv's and each channel's own):
- ingest: Sunday–Thursday 20:30 America/New_York, after arXiv's announcement, plus hourly
  catch-up; then instant follows and the spike scan;
- lead (every SCHEDULER_TICK_SECONDS, 15 s by default): renew the scheduler lease; the leader
  plans due digests;
- drain (every tick, on every replica): send stored deliveries;
- retag (every tick, on the leader, while a run is under way): re-tag stored papers after
  the tagger changed, batch by batch for up to 5 s, in a worker thread, never beside an
  ingest;
- housekeeping (daily): forget finished deliveries older than 90 days.
Without a chat token the digests go to the terminal (standard output).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import signal
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.app import App, build_app, instance_name
from bot.arxiv import ArxivUnavailable
from bot.logs import configure_logging
from bot.metrics import OUTCOMES, Metrics
from bot.platforms.base import Adapter
from bot.platforms.terminal import CHAT_ID as TERMINAL_CHAT
from bot.platforms.terminal import TerminalAdapter
from bot.settings import Settings
from digests.delivery.sending import Transient
from digests.errors import DigestbotError
from digests.health import first_line, problems
from digests.messages.plain_text import render_text
from digests.retry import backoff_delay
from digests.store.instance import hold_instance
from digests.topics.catalog import UnknownTopic
from digests.usecases.app import UseCases

if TYPE_CHECKING:
    from aiohttp import web

log = logging.getLogger("digestbot")

ANNOUNCEMENT = CronTrigger(
    day_of_week="mon-thu,sun", hour=20, minute=30, timezone="America/New_York"
)
LEASE_NAME = "scheduler"
SHUTDOWN_SECONDS = 8.0
RETAG_SLICE = 5.0  # seconds of re-tagging per scheduler tick
CONNECT_BACKOFF_CAP = 300.0  # seconds between attempts to reach a platform, at most


class Runtime:
    """The scheduler and the chat platforms of `digestbot run`, around one App: the runtime
    decides when (and which replica) runs a use case; the use cases decide what happens."""

    def __init__(self, app: App, *, adapters: list[Adapter] | None = None) -> None:
        self.app = app
        self.usecases = app.usecases
        self.clock = app.clock
        self.sleep = app.sleep
        self.name = instance_name(app.settings)
        self.dispatcher = app.usecases.dispatcher
        self.adapters = (
            adapters if adapters is not None else build_adapters(app.settings, self.usecases)
        )
        for adapter in self.adapters:
            self.usecases.add_platform(adapter)
        self.is_leader = False
        self.metrics = Metrics()
        self._ingest_lock = asyncio.Lock()
        self._tick_lock = asyncio.Lock()
        self._retag_done = False
        self._swept: set[str] = set()  # kinds whose every schedule this leader has looked at
        self._connecting: list[asyncio.Task] = []  # platforms tried again after a failed start

    @property
    def platforms(self) -> list[str]:
        return [adapter.platform for adapter in self.adapters]

    async def ingest(self) -> None:
        """The scheduled ingest: a failure is logged and retried by the next run."""
        try:
            await self.ingest_now()
        except ArxivUnavailable as exc:
            log.warning("ingest failed, will retry on the next run: %s", exc)

    async def ingest_now(self) -> None:
        """Fetch the latest listings and act on new papers; raises ArxivUnavailable."""
        categories = self.app.settings.arxiv_categories
        async with self._ingest_lock, self.app.arxiv_client() as client:
            try:
                report = await self.usecases.ingest_listing(client, categories)
            finally:
                self.app.release_tagger()
        say = log.warning if report.missing else log.info
        say("ingest: %s", report.summary().replace("\n", ", "))
        self.metrics.papers_ingested += report.new
        if self.is_leader and report.new:
            # Planning for many channels takes seconds: in a thread, so commands and the
            # platforms' heartbeats are answered meanwhile.
            await asyncio.to_thread(self.usecases.plan_instant)
            if alerts := await asyncio.to_thread(self.usecases.plan_alerts):
                log.info("spike alerts: %d queued", alerts)
            await self.drain()

    async def lead(self) -> None:
        """Renew the scheduler lease; the holder plans the due digests. Quick, never sends.
        Every replica also renews its presence as a sender here, so a long broadcast never
        lets it lapse."""
        await self._counted("lead", self._lead)

    async def _counted(self, job: str, run: Callable[[], Awaitable[None]]) -> None:
        """Run a scheduled job; failures are counted for /healthz, then left to the
        scheduler's log."""
        try:
            await run()
        except Exception as exc:
            self.usecases.health.job_failed(job, first_line(exc))
            raise
        self.usecases.health.job_done(job)

    async def _lead(self) -> None:
        async with self._tick_lock:
            ttl = timedelta(seconds=self.app.settings.scheduler_lease_seconds)
            self.is_leader, shares = self.usecases.take_lead(LEASE_NAME, ttl=ttl)
            self.metrics.send_share.update(shares)
            if not self.is_leader:
                self._swept.clear()  # if it leads again, it first looks at every schedule
                return
            for kind in ("weekly", "daily"):
                await self.plan(kind)

    async def plan(self, kind: str) -> int:
        """Store every due digest of this kind as a delivery; returns how many were stored.
        In a thread: a broadcast to thousands of channels takes seconds."""
        # A new leader looks at every schedule once; after that, at the recent ones.
        every_schedule = kind not in self._swept
        self._swept.add(kind)
        plan = self.usecases.plan_digests
        stored, skipped = await asyncio.to_thread(plan, kind, every_schedule=every_schedule)
        if stored or skipped:
            log.info("%s digests: %d stored, %d missed periods skipped", kind, stored, skipped)
        return stored

    async def drain(self) -> None:
        await self._counted("drain", self._drain)

    async def _drain(self) -> None:
        report = await self.dispatcher.drain()
        self.metrics.parts_sent += report.parts_sent
        for outcome in OUTCOMES:
            self.metrics.deliveries[outcome] += getattr(report, outcome)
        if report.parts_sent or report.failed or report.paused:
            log.info("delivery: %s", report)

    async def retag(self) -> None:
        """Batches of a re-tag run (after the tagger changed), for up to RETAG_SLICE seconds;
        the leader's job. Each batch holds the ingest lock alone, so an ingest waits for one
        batch at most."""
        if not self.is_leader or self._retag_done:
            return
        started = time.monotonic()
        while time.monotonic() - started < RETAG_SLICE:
            async with self._ingest_lock:  # one writer of tags at a time
                status = await asyncio.to_thread(self.usecases.retag_batch)
            if status is None or not status.pending:
                self._retag_done = True
                self.app.release_tagger()
                if status is not None:
                    changed = sum(1 for pair in status.changes.values() if any(pair))
                    log.info("re-tagging done: %d topics changed (see digestbot retag)", changed)
                return

    def housekeeping(self) -> None:
        removed = self.usecases.forget_old_deliveries(days=90)
        updates = self.usecases.inbox.forget_handled()
        log.info("housekeeping: %d old deliveries, %d handled updates removed", removed, updates)

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
        every = IntervalTrigger(seconds=self.app.settings.scheduler_tick_seconds)
        first = datetime.now(UTC)
        # Separate jobs, so a long broadcast never delays renewing the lease; a second apart.
        for offset, job in enumerate((self.lead, self.drain, self.retag)):
            scheduler.add_job(
                job,
                every,
                id=job.__name__,
                coalesce=True,
                max_instances=1,
                next_run_time=first + timedelta(seconds=offset),
            )
        scheduler.add_job(
            self.housekeeping,
            CronTrigger(hour=4, minute=17, timezone="UTC"),
            id="housekeeping",
            coalesce=True,
        )

    async def start(self) -> None:
        """Take back this instance's claims and connect every platform. One that cannot be
        reached is tried again in the background, with backoff, while the rest runs."""
        if taken_back := self.dispatcher.release_claims():
            log.info("resuming %d deliveries this instance had started", taken_back)
        for adapter in self.adapters:
            try:
                await adapter.start()
            except Transient as exc:
                self.usecases.platform_down(adapter.platform)
                name = adapter.platform
                self.usecases.health.platform_down(name, str(exc), now=self.clock())
                log.warning("%s: cannot connect (%s); retrying in the background", name, exc)
                self._connecting.append(asyncio.create_task(self._keep_connecting(adapter)))

    async def _keep_connecting(self, adapter: Adapter) -> None:
        for failures in itertools.count(1):
            delay = backoff_delay(failures, base=2.0, cap=CONNECT_BACKOFF_CAP)
            await self.sleep(delay)
            try:
                await adapter.start()
            except Transient as exc:
                self.usecases.health.platform_down(adapter.platform, str(exc), now=self.clock())
                log.warning("%s: still cannot connect (%s)", adapter.platform, exc)
                continue
            except Exception:  # e.g. a token refused meanwhile: no retry mends it
                log.exception("%s: gave up connecting", adapter.platform)
                return
            self.usecases.platform_up(adapter.platform)
            self.usecases.health.platform_up(adapter.platform)
            log.info("%s: connected after %d failed attempts", adapter.platform, failures)
            return

    async def start_servers(self) -> list[web.AppRunner]:
        """The /healthz and /metrics endpoint (HEALTH_PORT) and the topic pages (WEB_PORT);
        one server answers both when the two ports are the same."""
        settings = self.app.settings
        if settings.web_port is None and settings.health_port is None:
            return []
        # Loaded only when served: aiohttp's server, Prometheus' client, Jinja2 and the pages
        # are 4 MiB an idle bot without these ports need not carry.
        from bot.http_server import start_web_server

        apps = []
        if settings.web_port is not None:
            from bot.web import topic_pages_app

            apps.append((topic_pages_app(self.app), settings.web_host, settings.web_port))
            log.info("topic pages on %s:%d", settings.web_host, settings.web_port)
        if settings.health_port is not None:
            from bot.health import health_app

            shared = apps[0][0] if settings.health_port == settings.web_port else None
            app = health_app(
                self.metrics,
                self.usecases.status,
                lambda: self.is_leader,
                shared,
                problems=lambda: problems(self.usecases.health, now=self.clock()),
            )
            if shared is None:
                apps.append((app, settings.health_host, settings.health_port))
            log.info("health endpoint on %s:%d", settings.health_host, settings.health_port)
        return [await start_web_server(app, host, port) for app, host, port in apps]

    async def stop(self) -> None:
        """Stop intake, let in-flight sends finish (bounded), hand the lease over."""
        self.dispatcher.stopping = True
        for connecting in self._connecting:
            connecting.cancel()
        for adapter in self.adapters:
            try:
                await asyncio.wait_for(adapter.stop(), timeout=SHUTDOWN_SECONDS / 2)
            except Exception:  # shutting down: log whatever went wrong and go on
                log.warning("%s adapter did not stop cleanly", adapter.platform, exc_info=True)
        self.usecases.step_down(LEASE_NAME)


def build_adapters(settings: Settings, services: UseCases) -> list[Adapter]:
    """Every platform that has a token; the terminal when there is none."""
    from bot.platforms.discord import build_discord
    from bot.platforms.telegram import build_telegram

    adapters = [
        a
        for a in (build_telegram(settings, services), build_discord(settings, services))
        if a is not None
    ]
    if settings.slack_bot_token is not None:  # slack-bolt (and aiohttp's server) load only then
        from bot.platforms.slack import build_slack

        adapters += [a for a in (build_slack(settings, services),) if a is not None]
    return adapters or [TerminalAdapter()]


async def serve(runtime: Runtime) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await runtime.start()
    servers = await runtime.start_servers()
    scheduler = AsyncIOScheduler(timezone=UTC)
    runtime.schedule(scheduler)
    scheduler.start()
    log.info(
        "digestbot running on %s as %s; Ctrl-C stops", ", ".join(runtime.platforms), runtime.name
    )
    try:
        await stop.wait()
    finally:
        scheduler.shutdown(wait=False)
        await runtime.stop()
        for server in servers:
            await server.cleanup()
        log.info("digestbot stopped")


async def run_once(runtime: Runtime) -> None:
    """One ingest, then the terminal's digest of the last seven days, printed."""
    await runtime.ingest_now()
    until = runtime.clock().date()
    topics = terminal_topics(runtime.app)
    digest = runtime.usecases.digest(topics, since=until - timedelta(days=6), until=until)
    print(render_text(digest, histogram=True), flush=True)


def terminal_topics(app: App) -> list:
    """TERMINAL_FOLLOWS resolved against the catalog; unknown names are reported, not fatal."""
    topics = []
    for query in app.settings.terminal_follows:
        try:
            topics.append(app.catalog.resolve(query))
        except UnknownTopic as exc:
            log.warning("TERMINAL_FOLLOWS: %s", exc)
    return topics


def follow_on_terminal(app: App) -> None:
    """The terminal is a channel like any other, following TERMINAL_FOLLOWS."""
    app.usecases.follow_exactly("terminal", TERMINAL_CHAT, terminal_topics(app), title="terminal")


def _sync_catalog(app: App) -> None:
    if app.usecases.sync_catalog().pending:
        log.info("the tagger changed: stored papers are re-tagged in the background")


def run(settings: Settings, *, once: bool = False) -> int:
    configure_logging(settings)
    app = build_app(settings, tagger_on_demand=True)
    try:
        if once:
            _sync_catalog(app)
            runtime = Runtime(app, adapters=[TerminalAdapter()])
            follow_on_terminal(app)
            asyncio.run(run_once(runtime))
            return 0
        with hold_instance(app.engine, instance_name(settings)):
            _sync_catalog(app)
            runtime = Runtime(app)
            if runtime.platforms == ["terminal"]:
                follow_on_terminal(app)
            asyncio.run(serve(runtime))
    except DigestbotError:
        raise  # the command line says these in one line
    except Exception:
        # Logged, not left to the interpreter: the handler redacts secrets from the traceback.
        log.critical("digestbot stopped on an unexpected error", exc_info=True)
        return 1
    finally:
        app.close()
    return 0
