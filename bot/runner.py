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
import socket
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlmodel import Session

from bot.app import App, build_app
from bot.arxiv import ArxivUnavailable
from bot.health import Metrics, health_app, start_health_server
from bot.ingest_jobs import ingest_listing
from bot.logs import configure_logging
from bot.platforms.base import Adapter, BotServices
from bot.platforms.terminal import CHAT_ID as TERMINAL_CHAT
from bot.platforms.terminal import TerminalAdapter
from bot.settings import Settings, SettingsError
from digests.alerting import ALERT_WINDOW, plan_alerts
from digests.catalog import UnknownTopic
from digests.commands import CommandService
from digests.delivery import Dispatcher, Transient, send_rate_share, withdraw_sender
from digests.dispatch import (
    PlannedDigest,
    due_channels,
    plan_digests,
    plan_instant,
    record_skipped,
)
from digests.render import period_text
from digests.render_text import render_text
from digests.reports import build_digest
from digests.retag import retag_batch
from digests.retry import backoff_delay
from digests.store import channels, deliveries, repo
from digests.store import lease as leases
from digests.store.instance import InstanceInUse, hold_instance

log = logging.getLogger("digestbot")

ANNOUNCEMENT = CronTrigger(
    day_of_week="mon-thu,sun", hour=20, minute=30, timezone="America/New_York"
)
LEASE_NAME = "scheduler"
# Failures with a one-line explanation of their own, reported by the command line.
EXPLAINED = (ArxivUnavailable, SettingsError, InstanceInUse)
SHUTDOWN_SECONDS = 8.0
RETAG_SLICE = 5.0  # seconds of re-tagging per scheduler tick
CONNECT_BACKOFF_CAP = 300.0  # seconds between attempts to reach a platform, at most


class Runtime:
    """Everything `digestbot run` runs, built from one App; tests build it with fakes."""

    def __init__(
        self,
        app: App,
        *,
        clock: Callable[[], datetime] | None = None,
        adapters: list[Adapter] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.app = app
        self.clock = clock or (lambda: datetime.now(UTC))
        self.name = instance_name(app.settings)
        settings = app.settings
        commands = CommandService(
            app.session,
            app.catalog,
            clock=self.clock,
            per_topic_cap=settings.digest_papers_per_topic,
        )
        self.dispatcher = Dispatcher(
            app.session,
            {},
            clock=self.clock,
            sleep=sleep,
            worker=self.name,
            lease=timedelta(seconds=settings.delivery_lease_seconds),
        )
        self.services = BotServices(commands, self.dispatcher, app.session, self.clock)
        self.adapters = (
            adapters if adapters is not None else build_adapters(settings, self.services)
        )
        for adapter in self.adapters:
            self.dispatcher.senders[adapter.platform] = adapter.sender
        self.is_leader = False
        self.metrics = Metrics()
        self._ingest_lock = asyncio.Lock()
        self._tick_lock = asyncio.Lock()
        self._retag_done = False
        self._swept: set[str] = set()  # kinds whose every schedule this leader has looked at
        self._connecting: list[asyncio.Task] = []  # platforms tried again after a failed start
        self.sleep = sleep

    @property
    def platforms(self) -> list[str]:
        return [adapter.platform for adapter in self.adapters]

    def adapter(self, platform: str) -> Adapter:
        return next(a for a in self.adapters if a.platform == platform)

    async def ingest(self) -> None:
        """The scheduled ingest: a failure is logged and retried by the next run."""
        try:
            await self.ingest_now()
        except ArxivUnavailable as exc:
            log.warning("ingest failed, will retry on the next run: %s", exc)

    async def ingest_now(self) -> None:
        """Fetch the latest listings and act on new papers; raises ArxivUnavailable."""
        app = self.app
        async with self._ingest_lock, app.arxiv_client() as client:
            report = await ingest_listing(
                client,
                app.session,
                categories=app.settings.arxiv_categories,
                tagger=app.tagger,
                catalog=app.catalog,
                now=self.clock(),
            )
        say = log.warning if report.missing else log.info
        say("ingest: %s", report.summary().replace("\n", ", "))
        self.metrics.papers_ingested.inc(report.new)
        if self.is_leader and report.new:
            self.plan_instant()
            self.plan_alerts()
            await self.drain()

    async def lead(self) -> None:
        """Renew the scheduler lease; the holder plans the due digests. Quick, never sends.
        Every replica also renews its presence as a sender here, so a long broadcast never
        lets it lapse."""
        async with self._tick_lock:
            ttl = timedelta(seconds=self.app.settings.scheduler_lease_seconds)
            with self.app.session() as session:
                self.share_send_rates(session, ttl)
                self.is_leader = leases.try_acquire(
                    session, LEASE_NAME, self.name, now=self.clock(), ttl=ttl
                )
            self.metrics.is_leader.set(1 if self.is_leader else 0)
            if not self.is_leader:
                self._swept.clear()  # if it leads again, it first looks at every schedule
                return
            for kind in ("weekly", "daily"):
                self.plan(kind)

    def share_send_rates(self, session: Session, ttl: timedelta) -> None:
        """Pace each platform at this replica's share of its per-bot limit."""
        for platform in self.platforms:
            share = send_rate_share(session, platform, self.name, now=self.clock(), ttl=ttl)
            self.dispatcher.share_send_rate(platform, share)
            self.metrics.send_share.labels(platform).set(share)

    def plan(self, kind: str) -> int:
        """Store every due digest of this kind as a delivery; returns how many were stored."""
        now, settings = self.clock(), self.app.settings
        grace = settings.digest_grace_hours
        with self.app.session() as session:
            # A new leader looks at every schedule once; after that, at the recent ones.
            horizon = None if kind not in self._swept else timedelta(hours=grace + 24)
            due = due_channels(
                session,
                kind=kind,
                platforms=self.platforms,
                now=now,
                grace=timedelta(hours=grace),
                horizon=horizon,
            )
            self._swept.add(kind)
            skipped = record_skipped(session, due.skip, now=now)
            planned = plan_digests(
                session, self.app.catalog, due.send, per_topic_cap=settings.digest_papers_per_topic
            )
            stored = self._store(session, planned, now=now)
            session.commit()
        if stored or skipped:
            log.info("%s digests: %d stored, %d missed periods skipped", kind, stored, skipped)
        return stored

    def plan_instant(self) -> int:
        """After an ingest: the new papers of `instant` follows, in one batch per channel."""
        now = self.clock()
        with self.app.session() as session:
            planned = plan_instant(
                session,
                self.app.catalog,
                platforms=self.platforms,
                now=now,
                per_topic_cap=self.app.settings.digest_papers_per_topic,
            )
            stored = self._store(session, planned, now=now)
            session.commit()
        return stored

    def plan_alerts(self) -> int:
        """Scan for spikes and queue an alert for every channel following a spiking topic."""
        now = self.clock()
        with self.app.session() as session:
            _, planned = plan_alerts(
                session,
                self.app.catalog,
                platforms=self.platforms,
                as_of=now.date(),
                settings=self.app.settings.spike,
                now=now,
            )
            stored = 0
            for plan in planned:
                adapter = self.adapter(plan.platform)
                parts = adapter.render_alert(plan.alert, mention_role_id=plan.role_id)
                stored += (
                    deliveries.enqueue(
                        session,
                        channel_id=plan.channel_id,
                        kind="alert",
                        period_key=plan.period_key,
                        parts=parts,
                        paper_count=plan.alert.momentum.count,
                        now=now,
                        stale_at=now + ALERT_WINDOW,
                    )
                    is not None
                )
            session.commit()
        if stored:
            log.info("spike alerts: %d queued", stored)
        return stored

    def _store(self, session, planned: list[PlannedDigest], *, now: datetime) -> int:
        grace = timedelta(hours=self.app.settings.digest_grace_hours)
        stored = 0
        for plan in planned:
            digest, kind = plan.digest, plan.occurrence.kind
            title = f"{kind.title()} digest · {period_text(digest.period_start, digest.period_end)}"
            parts = (
                self.adapter(plan.platform).render_digest(digest, title=title)
                if not digest.is_empty
                else []
            )
            stored += (
                deliveries.enqueue(
                    session,
                    channel_id=plan.channel_id,
                    kind=kind,
                    period_key=plan.occurrence.key,
                    parts=parts,
                    paper_count=digest.paper_count,
                    now=now,
                    stale_at=plan.occurrence.due_at + grace,
                )
                is not None
            )
        return stored

    async def drain(self) -> None:
        report = await self.dispatcher.drain()
        self.metrics.parts_sent.inc(report.parts_sent)
        for outcome in ("delivered", "failed", "paused", "removed", "retried"):
            self.metrics.deliveries.labels(outcome).inc(getattr(report, outcome))
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
                status = await asyncio.to_thread(self._retag_batch)
            if status is None or not status.pending:
                self._retag_done = True
                if status is not None:
                    changed = sum(1 for pair in status.changes.values() if any(pair))
                    log.info("re-tagging done: %d topics changed (see digestbot retag)", changed)
                return

    def _retag_batch(self):
        with self.app.session() as session:
            status = retag_batch(session, self.app.tagger, now=self.clock())
            session.commit()
        return status

    def housekeeping(self) -> None:
        with self.app.session() as session:
            removed = deliveries.forget_finished(session, before=self.clock() - timedelta(days=90))
            session.commit()
        log.info("housekeeping: %d old deliveries removed", removed)

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
        # Separate jobs, so a long broadcast never delays renewing the lease.
        scheduler.add_job(
            self.lead, every, id="lead", coalesce=True, max_instances=1, next_run_time=first
        )
        scheduler.add_job(
            self.drain,
            every,
            id="drain",
            coalesce=True,
            max_instances=1,
            next_run_time=first + timedelta(seconds=1),
        )
        scheduler.add_job(
            self.retag,
            every,
            id="retag",
            coalesce=True,
            max_instances=1,
            next_run_time=first + timedelta(seconds=2),
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
        with self.app.session() as session:
            taken_back = deliveries.release_claims(session, worker=self.name)
        if taken_back:
            log.info("resuming %d deliveries this instance had started", taken_back)
        for adapter in self.adapters:
            try:
                await adapter.start()
            except Transient as exc:
                self.dispatcher.senders.pop(adapter.platform, None)  # nothing to send with yet
                name = adapter.platform
                log.warning("%s: cannot connect (%s); retrying in the background", name, exc)
                self._connecting.append(asyncio.create_task(self._keep_connecting(adapter)))

    async def _keep_connecting(self, adapter: Adapter) -> None:
        for failures in itertools.count(1):
            delay = backoff_delay(failures, base=2.0, cap=CONNECT_BACKOFF_CAP)
            await self.sleep(delay)
            try:
                await adapter.start()
            except Transient as exc:
                log.warning("%s: still cannot connect (%s)", adapter.platform, exc)
                continue
            except Exception:  # e.g. a token refused meanwhile: no retry mends it
                log.exception("%s: gave up connecting", adapter.platform)
                return
            self.dispatcher.senders[adapter.platform] = adapter.sender
            log.info("%s: connected after %d failed attempts", adapter.platform, failures)
            return

    async def start_health(self):
        """The /healthz and /metrics endpoint, when HEALTH_PORT is set."""
        settings = self.app.settings
        if settings.health_port is None:
            return None
        app = health_app(self.metrics, self.app.session, self.clock, lambda: self.is_leader)
        runner = await start_health_server(app, settings.health_host, settings.health_port)
        log.info("health endpoint on %s:%d", settings.health_host, settings.health_port)
        return runner

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
        with self.app.session() as session:
            leases.release(session, LEASE_NAME, self.name, now=self.clock())
            for platform in self.platforms:
                withdraw_sender(session, platform, self.name, now=self.clock())


def instance_name(settings: Settings) -> str:
    return settings.instance_name or socket.gethostname()


def build_adapters(settings: Settings, services: BotServices) -> list[Adapter]:
    """Every platform that has a token; the terminal when there is none."""
    from bot.platforms.discord import build_discord
    from bot.platforms.telegram import build_telegram

    adapters = [
        a
        for a in (build_telegram(settings, services), build_discord(settings, services))
        if a is not None
    ]
    return adapters or [TerminalAdapter()]


async def serve(runtime: Runtime) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await runtime.start()
    health = await runtime.start_health()
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
        if health is not None:
            await health.cleanup()
        log.info("digestbot stopped")


async def run_once(runtime: Runtime) -> None:
    """One ingest, then the terminal's digest of the last seven days, printed."""
    await runtime.ingest_now()
    app, until = runtime.app, runtime.clock().date()
    topics = terminal_topics(app)
    with app.session() as session:
        digest = build_digest(
            session,
            topics,
            since=until - timedelta(days=6),
            until=until,
            per_topic_cap=app.settings.digest_papers_per_topic,
        )
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


def follow_on_terminal(app: App, *, now: datetime) -> None:
    """The terminal is a channel like any other, following TERMINAL_FOLLOWS."""
    with app.session() as session:
        channel = channels.get_or_create_channel(
            session,
            platform="terminal",
            chat_id=TERMINAL_CHAT,
            kind="private",
            title="terminal",
            now=now,
        )
        ids = {slug: row.id for slug, row in repo.topic_rows(session).items()}
        channels.set_follows(session, channel, [ids[t.slug] for t in terminal_topics(app)], now=now)
        session.commit()


def _sync_catalog(app: App) -> None:
    if app.sync_catalog(now=datetime.now(UTC)).pending:
        log.info("the tagger changed: stored papers are re-tagged in the background")


def run(settings: Settings, *, once: bool = False) -> int:
    configure_logging(settings)
    app = build_app(settings)
    try:
        if once:
            _sync_catalog(app)
            runtime = Runtime(app, adapters=[TerminalAdapter()])
            follow_on_terminal(app, now=runtime.clock())
            asyncio.run(run_once(runtime))
            return 0
        with hold_instance(app.engine, instance_name(settings)):
            _sync_catalog(app)
            runtime = Runtime(app)
            if runtime.platforms == ["terminal"]:
                follow_on_terminal(app, now=runtime.clock())
            asyncio.run(serve(runtime))
    except EXPLAINED:
        raise  # the command line says these in one line
    except Exception:
        # Logged, not left to the interpreter: the handler redacts secrets from the traceback.
        log.critical("digestbot stopped on an unexpected error", exc_info=True)
        return 1
    finally:
        app.close()
    return 0
