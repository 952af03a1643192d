"""What digestbot does, each use case once: ingest, plan digests and alerts, send a digest now,
chat commands, status.

The scheduler (`bot/runner.py`), the command line (`bot/cli.py`) and the chat adapters
(`bot/platforms/`) translate what they receive, call one of these and present what comes back.
Chat commands (follow, unfollow, schedule, …) are `CommandService.handle`, reached here as
`UseCases.commands`. Every delivery, scheduled or asked for, is rendered for its platform and
stored in one place (`UseCases._store_all`).

Each use case is one unit of work, or a few when it waits on the network in between; a unit of
work commits whole or not at all (`digests.store.unit_of_work`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Protocol

from sqlalchemy.exc import IntegrityError, InternalError, OperationalError
from sqlmodel import Session

from digests.ask.answering import AnswerWriter
from digests.delivery.due import DEFAULT_GRACE
from digests.delivery.sending import ON_DEMAND_WINDOW, Address, Sender
from digests.follows.filters import FollowFilter
from digests.health import STORE_TROUBLE, first_line
from digests.messages.alert import SpikeAlert
from digests.messages.digest import Digest
from digests.messages.layout import period_text
from digests.messages.tags import lineage
from digests.papers.feeds import BATCH_SIZE, ParsedFeed, Skip
from digests.signals.momentum import Momentum
from digests.signals.spike_settings import SpikeSettings
from digests.store import channels, command_sync, deliveries, repo
from digests.store import lease as leases
from digests.store.bulk import chunks
from digests.store.unit_of_work import SessionFactory, unit_of_work
from digests.topics.catalog import Catalog, TopicDef
from digests.topics.tagger import Tagger
from digests.usecases import votes as feedback
from digests.usecases.alert_planning import ALERT_WINDOW, PlannedAlert, plan_alerts
from digests.usecases.chat_updates import UpdateInbox
from digests.usecases.commands import Caller, CommandService, Reply
from digests.usecases.digest_planning import (
    PlannedDigest,
    due_channels,
    followed_topics,
    plan_digests,
    plan_instant,
    record_skipped,
)
from digests.usecases.dispatch import Dispatcher, send_rate_share, withdraw_sender
from digests.usecases.ingest import (
    IngestReport,
    PaperSource,
    SourceUnavailable,
    ingest_parsed,
    listing_ids_to_look_up,
    sync_catalog,
)
from digests.usecases.reports import (
    as_topics,
    build_digest,
    followed_momentum,
)
from digests.usecases.retag import RetagStatus, retag_batch
from digests.usecases.status import Status, read_status
from digests.usecases.vote_export import gold_lines
from digests.usecases.votes import VoteAnswer, Voter

COMMAND_SYNC_TTL = timedelta(minutes=2)  # a replica that dies while syncing blocks no longer
STORE_BATCH = 1_000  # channels whose deliveries and vote offers are written together
INGEST_BATCH = BATCH_SIZE  # papers stored per transaction
# `ingest --file`: each commit writes the full-text index's new words as one more segment,
# which SQLite merges with the others later; a tenth of the storing time less than per batch.
FILE_PAPERS_PER_TRANSACTION = 4 * BATCH_SIZE
CUT_LISTING = (
    "arXiv's answer stayed cut short: the entries after the cut were not read; "
    "the next ingest reads the listing again"
)


class Platform(Protocol):
    """A chat platform as the use cases see it: how it renders, and what sends for it."""

    platform: str
    sender: Sender

    def render_digest(self, digest: Digest, *, title: str) -> list[dict]:
        """The digest as this platform's messages: JSON-able payloads, each within limits."""
        ...

    def render_alert(self, alert: SpikeAlert, *, mention_role_id: str = "") -> list[dict]:
        """A spike alert as this platform's messages (with the chart where it can show one);
        `mention_role_id` is a role to ping, where the platform has roles."""
        ...


@dataclass(frozen=True)
class Outgoing:
    """A delivery to store for one channel; `render` makes its parts for the platform."""

    channel_id: int
    platform: str
    kind: str
    period_key: str
    paper_count: int
    stale_at: datetime
    render: Callable[[Platform], list[dict]]
    offered: tuple[tuple[str, str], ...] = ()  # (arXiv id, topic slug) shown with vote buttons


class UseCases:
    """Every use case of digestbot, wired once (`bot.app.build_app`) for the runtime, the
    command line and the tests alike."""

    def __init__(
        self,
        session_factory: SessionFactory,
        catalog: Catalog,
        tagger: Tagger,
        *,
        clock: Callable[[], datetime],
        dispatcher: Dispatcher | None = None,
        per_topic_cap: int = 5,
        grace: timedelta = DEFAULT_GRACE,
        spike_settings: SpikeSettings | None = None,
        public_url: str | None = None,
        answer_writer: AnswerWriter | None = None,
    ) -> None:
        self.session_factory = session_factory
        self.catalog = catalog
        self.tagger = tagger
        self.clock = clock
        self.dispatcher = dispatcher or Dispatcher(session_factory, {}, clock=clock)
        self.per_topic_cap = per_topic_cap
        self.grace = grace
        self.spike_settings = spike_settings or SpikeSettings()
        self.health = self.dispatcher.health  # sends' outcomes tell whether a platform is up
        self.commands = CommandService(
            session_factory,
            catalog,
            clock=clock,
            per_topic_cap=per_topic_cap,
            health=self.health,
            public_url=public_url,
            answer_writer=answer_writer,
        )
        self.platforms: dict[str, Platform] = {}
        self.inbox = UpdateInbox(session_factory, clock=clock, receiver=self.dispatcher.worker)

    def add_platform(self, platform: Platform) -> None:
        """Plan deliveries for this platform, rendered by it, and send them through it."""
        self.platforms[platform.platform] = platform
        self.dispatcher.senders[platform.platform] = platform.sender

    def platform_down(self, platform: str) -> None:
        """Its deliveries wait (unclaimed) until `platform_up`: there is nothing to send with."""
        self.dispatcher.senders.pop(platform, None)

    def platform_up(self, platform: str) -> None:
        self.dispatcher.senders[platform] = self.platforms[platform].sender

    # --- papers ------------------------------------------------------------------------------

    def sync_catalog(self) -> RetagStatus:
        """Store the catalog's topics; when the tagger changed, a re-tag run starts (the
        scheduler works through it, `digestbot retag` finishes it at once)."""
        with unit_of_work(self.session_factory) as session:
            return sync_catalog(session, catalog=self.catalog, tagger=self.tagger, now=self.clock())

    async def ingest_listing(self, source: PaperSource, categories: Sequence[str]) -> IngestReport:
        """Fetch today's listing for `categories` and store it, `INGEST_BATCH` papers per
        transaction; the listing counts as fetched once its last batch is stored.

        Cross-lists and replacements of papers not held are dated by their first version: by
        the source's date for recent ones, by their id when it gives none (for the rest of
        the listing too, once the source failed).
        """
        now = self.clock()
        parsed = await source.fetch_listing(categories)
        report, problem = IngestReport(), ""
        for batch in parsed.batches(INGEST_BATCH):
            looked_up: dict[str, datetime] = {}
            if not problem:
                with self.session_factory() as session:
                    wanted = listing_ids_to_look_up(session, batch.records)
                looked_up, problem = await _first_versions(source, wanted)
                if problem:
                    report.warnings.append(Skip("first-version dates", problem))
            with unit_of_work(self.session_factory) as session:
                report.merge(self._ingest(session, batch, now=now, looked_up=looked_up))
        if parsed.cut_short:
            report.missing.append(Skip("listing", CUT_LISTING))
        with unit_of_work(self.session_factory) as session:
            cursor = {"fetched_at": now.isoformat(), "read": parsed.read, "new": report.new}
            repo.save_state(session, listing_key(categories), cursor, now=now, success=True)
        return report

    def ingest_batches(
        self, batches: Iterable[ParsedFeed], *, tagger: Tagger | None = None
    ) -> IngestReport:
        """Store and tag papers as they are read (`digestbot ingest --file`), a few batches
        per transaction: memory stays flat however long the file, an interrupted run keeps
        the transactions committed, and a re-run finds them unchanged. A fault reading on
        is raised once what came before it is committed. `tagger` may stand in for the app's
        (one that tags ahead elsewhere; it must tag the same)."""
        now, report, faults = self.clock(), IngestReport(), []
        upcoming = _until_fault(batches, faults)
        options = {"now": now, "tagger": tagger or self.tagger}
        more = True
        while more:
            with unit_of_work(self.session_factory) as session:
                more = self._ingest_transaction(session, upcoming, report, **options)
        if faults:
            raise faults[0]
        return report

    def _ingest_transaction(
        self, session: Session, upcoming: Iterator[ParsedFeed], report: IngestReport, **options
    ) -> bool:
        """Ingest batches until a transaction's worth of papers; False when none are left."""
        papers = 0
        for batch in upcoming:
            report.merge(self._ingest(session, batch, **options))
            papers += len(batch.records)
            if papers >= FILE_PAPERS_PER_TRANSACTION:
                return True
        return False

    def _ingest(self, session: Session, parsed: ParsedFeed, **options) -> IngestReport:
        options.setdefault("tagger", self.tagger)
        return ingest_parsed(session, parsed, catalog=self.catalog, **options)

    def retag_batch(self) -> RetagStatus | None:
        """The next batch of the re-tag run under way; None when none is."""
        with unit_of_work(self.session_factory) as session:
            return retag_batch(session, self.tagger, now=self.clock())

    # --- deliveries --------------------------------------------------------------------------

    def plan_digests(self, kind: str, *, every_schedule: bool) -> tuple[int, int]:
        """Store every due digest of this kind (weekly, daily) as a delivery, and the periods
        missed beyond the grace as skipped; returns (stored, skipped). Only schedules due in
        the last grace and a day are looked at, unless `every_schedule`."""
        now = self.clock()
        horizon = None if every_schedule else self.grace + timedelta(hours=24)
        with unit_of_work(self.session_factory) as session:
            due = due_channels(
                session,
                kind=kind,
                platforms=list(self.platforms),
                now=now,
                grace=self.grace,
                horizon=horizon,
            )
            skipped = record_skipped(session, due.skip, now=now)
            planned = plan_digests(
                session, self.catalog, due.send, per_topic_cap=self.per_topic_cap
            )
            stored = self._store_all(session, self._scheduled_all(planned), now=now)
        return len(stored), skipped

    def plan_instant(self) -> int:
        """After an ingest: the new papers of `instant` follows, in one batch per channel."""
        now = self.clock()
        with unit_of_work(self.session_factory) as session:
            planned = plan_instant(
                session,
                self.catalog,
                platforms=list(self.platforms),
                now=now,
                per_topic_cap=self.per_topic_cap,
            )
            return len(self._store_all(session, self._scheduled_all(planned), now=now))

    def plan_alerts(self) -> int:
        """Scan for spikes and queue an alert for every channel following a spiking topic; the
        scan is remembered in the same transaction, so an alert is never lost nor doubled."""
        now = self.clock()
        with unit_of_work(self.session_factory) as session:
            _, planned = plan_alerts(
                session,
                self.catalog,
                platforms=list(self.platforms),
                as_of=now.date(),
                settings=self.spike_settings,
                now=now,
            )
            outgoing = (_alert(plan, stale_at=now + ALERT_WINDOW) for plan in planned)
            return len(self._store_all(session, outgoing, now=now))

    async def send_digest_now(self, caller: Caller, digest: Digest) -> int:
        """Store this chat's digest as a `manual` delivery and send it; returns parts stored."""
        now = self.clock()
        with unit_of_work(self.session_factory) as session:
            channel = channels.get_or_create_channel(
                session,
                platform=caller.platform,
                chat_id=caller.chat_id,
                thread_id=caller.thread_id,
                now=now,
            )
            outgoing = Outgoing(
                channel.id,
                caller.platform,
                "manual",
                f"manual:{now.isoformat(timespec='microseconds')}",
                digest.paper_count,
                now + ON_DEMAND_WINDOW,
                lambda platform: platform.render_digest(digest, title="Your digest"),
                digest_offers(digest),
            )
            stored = self._store_all(session, [outgoing], now=now)
        if not stored:
            return 0
        await self.dispatcher.drain()
        return stored[0]

    def manual_digest_outcome(self, caller: Caller) -> str:
        """What the chat's latest `manual` digest came to: "sent", "paused: REASON", its
        delivery's status, "none" or "gone" (the chat was forgotten)."""
        with self.session_factory() as session:
            channel = channels.find_channel(session, caller.platform, caller.chat_id)
            if channel is None:
                return "gone"
            if channel.paused_reason:
                return f"paused: {channel.paused_reason}"
            return deliveries.latest_status(session, channel.id, kind="manual") or "none"

    def _scheduled_all(self, planned: list[PlannedDigest]) -> Iterator[Outgoing]:
        """The planned digests as deliveries. Channels that share a digest share its rendering
        for their platform: at a broadcast, rendering was most of the planning's time."""
        rendered: dict[tuple[int, str, str], list[dict]] = {}
        return (self._scheduled(plan, rendered) for plan in planned)

    def _scheduled(
        self, plan: PlannedDigest, rendered: dict[tuple[int, str, str], list[dict]]
    ) -> Outgoing:
        """A planned digest as a delivery; an empty digest is stored without parts (skipped)."""
        digest, occurrence = plan.digest, plan.occurrence
        period = period_text(digest.period_start, digest.period_end)
        title = f"{occurrence.kind.title()} digest · {period}"

        def render(platform: Platform) -> list[dict]:
            key = (id(digest), plan.platform, title)
            if key not in rendered:
                rendered[key] = platform.render_digest(digest, title=title)
            return rendered[key]

        return Outgoing(
            plan.channel_id,
            plan.platform,
            occurrence.kind,
            occurrence.key,
            digest.paper_count,
            occurrence.due_at + self.grace,
            render if not digest.is_empty else lambda _: [],
            digest_offers(digest),
        )

    def _store_all(self, session: Session, outgoing, *, now: datetime) -> list[int]:
        """Render each delivery for its platform and store it, and offer the papers of those
        with parts for votes, STORE_BATCH channels at a time (a broadcast is never all held at
        once); the number of parts of each delivery stored, leaving out the periods a channel
        has already."""
        stored = []
        for batch in chunks(outgoing, STORE_BATCH):
            new = [
                deliveries.NewDelivery(
                    item.channel_id,
                    item.kind,
                    item.period_key,
                    item.render(self.platforms[item.platform]),
                    item.paper_count,
                    item.stale_at,
                )
                for item in batch
            ]
            ids = deliveries.enqueue_many(session, new, now=now)
            written = [
                (item, delivery)
                for item, delivery, delivery_id in zip(batch, new, ids, strict=True)
                if delivery_id is not None
            ]
            stored += [len(delivery.parts) for _, delivery in written]
            shown = [(i.channel_id, i.offered) for i, delivery in written if delivery.parts]
            feedback.offer_many(session, shown, now=now)
        return stored

    def retry_failed(self, *, since: datetime | None, window: timedelta) -> int:
        """Send the deliveries that ended failed (since a time) again; returns how many."""
        with unit_of_work(self.session_factory) as session:
            return deliveries.requeue_failed(session, since=since, now=self.clock(), window=window)

    def forget_old_deliveries(self, *, days: int = 90) -> int:
        """Delete finished deliveries older than `days`; returns how many."""
        before = self.clock() - timedelta(days=days)
        with unit_of_work(self.session_factory) as session:
            return deliveries.forget_finished(session, before=before)

    # --- channels ----------------------------------------------------------------------------

    def follow_exactly(
        self, platform: str, chat_id: str, topics: Sequence[TopicDef], *, title: str
    ) -> None:
        """Make a configured channel (the terminal) follow exactly `topics`."""
        now = self.clock()
        with unit_of_work(self.session_factory) as session:
            channel = channels.get_or_create_channel(
                session, platform=platform, chat_id=chat_id, kind="private", title=title, now=now
            )
            ids = {slug: row.id for slug, row in repo.topic_rows(session).items()}
            channels.set_follows(session, channel, [ids[t.slug] for t in topics], now=now)

    def vote(self, voter: Voter, data: str) -> VoteAnswer:
        """A vote button pressed: counted, changed or withdrawn, or refused; the toast."""
        try:
            with unit_of_work(self.session_factory) as session:
                return feedback.cast_vote(session, voter, data, now=self.clock())
        except IntegrityError:  # the same person pressing twice at once, on two replicas
            return VoteAnswer("Your vote crossed another one; press again.", ok=False)
        except (OperationalError, InternalError) as error:  # a full disk, a read-only store
            self.health.store_failed(first_line(error))
            return VoteAnswer(f"Sorry: {STORE_TROUBLE}.", ok=False)

    def export_votes(self, slug: str) -> list[dict]:
        """The topic's voted papers as gold-set lines (`digests.usecases.vote_export`)."""
        with self.session_factory() as session:
            return list(gold_lines(session, slug))

    def move_chat(self, platform: str, old_chat_id: str, new_chat_id: str) -> None:
        """A chat has a new id (a Telegram group became a supergroup): keep everything."""
        with unit_of_work(self.session_factory) as session:
            channels.move_chat(session, platform, old_chat_id, new_chat_id)

    # --- presence: the bot removed from a chat or server, and back --------------------------

    def chat_left(
        self, platform: str, *, chat_id: str = "", guild_id: str = "", reason: str
    ) -> int:
        """The bot was removed from a chat (each forum topic of it) or a server (each channel
        in it), or blocked: pause them, follows kept, their waiting deliveries held with the
        reason (`digestbot status` shows both). Returns how many channels were paused."""
        now = self.clock()
        with unit_of_work(self.session_factory) as session:
            found = channels.channels_in(session, platform, chat_id=chat_id, guild_id=guild_id)
            for channel in found:
                channels.pause(session, channel.id, reason, now=now, cause=channels.REMOVED)
            deliveries.hold_pending(session, [channel.id for channel in found], reason)
        return len(found)

    def chat_returned(
        self, platform: str, *, chat_id: str = "", guild_id: str = ""
    ) -> list[tuple[Address, Reply]]:
        """The bot is back in a chat or server: resume its paused channels and welcome each,
        naming what it follows. A chat (its own event) resumes whatever paused it; a server
        only what its removal paused, since Discord announces every server at each start."""
        cause = channels.REMOVED if guild_id else None
        welcomes = []
        with unit_of_work(self.session_factory) as session:
            found = channels.channels_in(
                session, platform, chat_id=chat_id, guild_id=guild_id, paused_cause=cause
            )
            for channel in (c for c in found if c.paused_reason is not None):
                channels.resume(session, channel)
                followed = followed_topics(session, self.catalog, channel.id)
                address = Address(platform, channel.chat_id, channel.thread_id)
                welcomes.append((address, Reply(welcome_back([t.name for t in followed]))))
        return welcomes

    # --- slash commands ------------------------------------------------------------------

    async def sync_commands(
        self,
        scope: str,
        definition: list[dict],
        sync: Callable[[], Awaitable[dict[str, str]]],
        *,
        ttl: timedelta = COMMAND_SYNC_TTL,
    ) -> str:
        """Run `sync` (it uploads `definition` to the platform and returns the command ids by
        name) only when the definition changed since the last sync to `scope`, and on one
        replica: the one holding the scope's lease. Returns "synced", "unchanged" or "busy"
        (another replica is syncing it); `sync`'s error propagates and nothing is recorded."""
        digest = hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()
        lease, me = f"command-sync:{scope}"[: leases.NAME_LIMIT], self.dispatcher.worker
        with unit_of_work(self.session_factory) as session:
            # The lease first: a replica that gets it after another synced sees the new hash.
            if not leases.try_acquire(session, lease, me, now=self.clock(), ttl=ttl):
                return "busy"
            if command_sync.synced_hash(session, scope) == digest:
                leases.release(session, lease, me, now=self.clock())
                return "unchanged"
        try:
            command_ids = await sync()
        except BaseException:
            with unit_of_work(self.session_factory) as session:
                leases.release(session, lease, me, now=self.clock())
            raise
        with unit_of_work(self.session_factory) as session:  # the hash and the lease at once
            command_sync.record(session, scope, digest, command_ids, now=self.clock())
            leases.release(session, lease, me, now=self.clock())
        return "synced"

    # --- replicas ----------------------------------------------------------------------------

    def take_lead(self, lease: str, *, ttl: timedelta) -> tuple[bool, dict[str, float]]:
        """Renew this replica's presence as a sender of each platform and try to hold `lease`,
        in one unit of work: whether it leads, and its share of each platform's send rate."""
        me, now = self.dispatcher.worker, self.clock()
        with unit_of_work(self.session_factory) as session:
            shares = {
                platform: send_rate_share(session, platform, me, now=now, ttl=ttl)
                for platform in self.platforms
            }
            leads = leases.try_acquire(session, lease, me, now=now, ttl=ttl)
        for platform, share in shares.items():
            self.dispatcher.share_send_rate(platform, share)
        return leads, shares

    def step_down(self, lease: str) -> None:
        """Hand `lease` over and stop counting as a sender, as a replica that stops does."""
        me, now = self.dispatcher.worker, self.clock()
        with unit_of_work(self.session_factory) as session:
            leases.release(session, lease, me, now=now)
            for platform in self.platforms:
                withdraw_sender(session, platform, me, now=now)

    def status(self, *, upcoming: int = 5, try_writing: bool = False) -> Status:
        """Last ingest, papers, delivery queue and failures, paused channels, next digests;
        with `try_writing`, whether a write is taken (one small row, `status:probe`)."""
        with self.session_factory() as session:
            found = read_status(session, now=self.clock(), upcoming=upcoming)
        if try_writing:
            try:
                with unit_of_work(self.session_factory) as session:
                    repo.save_state(session, "status:probe", {}, now=self.clock())
            except (OperationalError, InternalError) as error:
                found.store_problem = first_line(error)
        return found

    def digest(
        self, followed: Sequence[TopicDef | FollowFilter], *, since: date, until: date
    ) -> Digest:
        """The digest a channel following `followed` gets for the days since..until."""
        with self.session_factory() as session:  # never committed: filters are looked up only
            topics = as_topics(session, followed, as_of=until)
            return build_digest(
                session,
                topics,
                since=since,
                until=until,
                per_topic_cap=self.per_topic_cap,
                ancestors=lineage(self.catalog),
            )

    def momentum(self, followed: TopicDef | FollowFilter, *, as_of: date) -> Momentum:
        """A topic's or a filter's momentum line and 12-week histogram as of a day."""
        with self.session_factory() as session:  # never committed, as above
            return followed_momentum(session, followed, as_of=as_of)


def welcome_back(followed: Sequence[str]) -> str:
    """The short word a chat gets when the bot is added back."""
    if not followed:
        return "Hello again! This chat follows no topics yet; try /follow RL for LLM Agents."
    names = ", ".join(followed[:-1]) + " and " + followed[-1] if len(followed) > 1 else followed[0]
    return f"Hello again! Digests here resume: this chat follows {names}."


def _alert(plan: PlannedAlert, *, stale_at: datetime) -> Outgoing:
    alert, role = plan.alert, plan.role_id
    return Outgoing(
        plan.channel_id,
        plan.platform,
        "alert",
        plan.period_key,
        alert.momentum.count,
        stale_at,
        lambda platform: platform.render_alert(alert, mention_role_id=role),
        tuple((entry.paper.arxiv_id, alert.topic.slug) for entry in alert.papers),
    )


def digest_offers(digest: Digest) -> tuple[tuple[str, str], ...]:
    """The (arXiv id, topic slug) of every paper the digest shows, each with vote buttons."""
    return tuple(
        (entry.paper.arxiv_id, section.topic.slug)
        for section in digest.sections
        for entry in section.entries
    )


def listing_key(categories: Sequence[str]) -> str:
    return "rss:" + "+".join(categories)


async def _first_versions(source: PaperSource, ids: list[str]) -> tuple[dict, str]:
    """The source's dates for `ids`, or none and why: the listing is stored either way."""
    if not ids:
        return {}, ""
    try:
        return await source.first_versions(ids), ""
    except SourceUnavailable as exc:
        return {}, f"none from the arXiv API ({exc}); {len(ids)} dated by their id instead"


def _until_fault(batches: Iterable[ParsedFeed], faults: list[Exception]) -> Iterator[ParsedFeed]:
    """`batches` until one cannot be read; that fault goes to `faults`, for the caller to raise
    once the papers read before it are stored."""
    try:
        yield from batches
    except Exception as exc:
        faults.append(exc)
