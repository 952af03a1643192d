"""Planning scheduled digests: which channels are due, and what each one receives.

The plan is read from the database every time (schedules, follows, the last period stored), so
one job serves any number of channels and a restart or a new leader picks up where it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import (
    Column,
    Integer,
    MetaData,
    String,
    Table,
    and_,
    exists,
    func,
    insert,
    select,
)
from sqlmodel import Session

from digests.catalog import Catalog
from digests.compose import Digest
from digests.due import (
    DEFAULT_GRACE,
    ChannelClock,
    DueDecisions,
    Occurrence,
    decide,
    last_occurrence,
)
from digests.papers import as_utc
from digests.reports import build_digest
from digests.store import deliveries
from digests.store.models import Channel, Delivery, Follow, Topic


@dataclass(frozen=True)
class PlannedDigest:
    channel_id: int
    platform: str
    occurrence: Occurrence
    digest: Digest


def due_channels(
    session: Session,
    *,
    kind: str,
    platforms: Sequence[str],
    now: datetime,
    grace: timedelta = DEFAULT_GRACE,
    horizon: timedelta | None = None,
) -> DueDecisions:
    """Channels with at least one follow of this mode whose latest period is not stored yet.

    With a `horizon`, only schedules whose latest time falls within it are looked at: a leader
    that ticks every few seconds has recorded everything older already. Without one (the first
    tick of a new leader), every schedule is, so periods missed during downtime get recorded.

    The latest occurrence is computed once per distinct schedule, and the database returns only
    the channels whose last stored period is older, so the cost follows the channels due, not
    the channels that exist.
    """
    # All schedules in use, read from the schedule index alone (a few extra are harmless).
    schedules = session.execute(
        select(Channel.digest_weekday, Channel.digest_time, Channel.timezone).distinct()
    ).all()
    if not schedules:
        return DueDecisions([], [])
    occurrences = {tuple(s): last_occurrence(kind, *s, now) for s in schedules}
    if horizon is not None:
        since = now - horizon
        occurrences = {s: o for s, o in occurrences.items() if o.due_at >= since}
    if not occurrences:
        return DueDecisions([], [])
    current = _current_periods(session, occurrences)
    following = exists().where(Follow.channel_id == Channel.id, Follow.mode == kind)
    # Uses the unique (channel, kind, period) index: one probe per channel of a due schedule.
    done = exists().where(
        Delivery.channel_id == Channel.id,
        Delivery.kind == kind,
        Delivery.period_key >= current.c.key,
    )
    rows = session.execute(
        select(
            Channel.id,
            Channel.digest_weekday,
            Channel.digest_time,
            Channel.timezone,
            Channel.platform,
        )
        .join(
            current,
            and_(
                current.c.weekday == Channel.digest_weekday,
                current.c.at == Channel.digest_time,
                current.c.zone == Channel.timezone,
            ),
        )
        .where(Channel.paused_reason.is_(None), following, ~done)
    ).all()
    current.drop(session.connection())
    wanted = set(platforms)  # filtered here so the join can start from the schedules
    clocks = [ChannelClock(*row[:4]) for row in rows if row[4] in wanted]
    return decide(clocks, {}, kind=kind, now=now, grace=grace, occurrences=occurrences)


def _current_periods(session: Session, occurrences: dict[tuple, Occurrence]) -> Table:
    """A temporary table of each distinct schedule's latest period key, to join channels on."""
    table = Table(
        "current_period",
        MetaData(),
        Column("weekday", Integer, primary_key=True),
        Column("at", String(5), primary_key=True),
        Column("zone", String(64), primary_key=True),
        Column("key", String(64)),
        prefixes=["TEMPORARY"],
    )
    connection = session.connection()
    table.drop(connection, checkfirst=True)
    table.create(connection)
    rows = [
        {"weekday": weekday, "at": at, "zone": zone, "key": occurrence.key}
        for (weekday, at, zone), occurrence in occurrences.items()
    ]
    connection.execute(insert(table), rows)
    if connection.dialect.name == "postgresql":  # no statistics yet: let the planner see it
        connection.exec_driver_sql("ANALYZE current_period")
    return table


def record_skipped(
    session: Session, skipped: Sequence[tuple[int, Occurrence]], *, now: datetime
) -> int:
    """Store missed periods as skipped deliveries, so they are neither sent nor planned again."""
    stored = 0
    for channel_id, occurrence in skipped:
        stored += (
            deliveries.enqueue(
                session,
                channel_id=channel_id,
                kind=occurrence.kind,
                period_key=occurrence.key,
                parts=[],
                now=now,
            )
            is not None
        )
    return stored


def followed_topics(session: Session, catalog: Catalog, channel_id: int, kind: str) -> list:
    slugs = session.execute(
        select(Topic.slug)
        .join(Follow, Follow.topic_id == Topic.id)
        .where(Follow.channel_id == channel_id, Follow.mode == kind)
        .order_by(Follow.created_at, Topic.slug)
    ).scalars()
    return known_topics(catalog, slugs)


def known_topics(catalog: Catalog, slugs) -> list:
    """The catalog's topics for these slugs, in order; slugs that left the catalog are skipped."""
    topics = []
    for slug in slugs:
        try:
            topics.append(catalog.get(slug))
        except KeyError:
            continue
    return topics


def plan_digests(
    session: Session,
    catalog: Catalog,
    due: Sequence[tuple[int, Occurrence]],
    *,
    per_topic_cap: int = 5,
) -> list[PlannedDigest]:
    """Compose each due channel's digest; channels following the same topics share one."""
    platforms = dict(
        session.execute(
            select(Channel.id, Channel.platform).where(Channel.id.in_([c for c, _ in due]))
        ).all()
    )
    composed: dict[tuple, Digest] = {}
    planned = []
    for channel_id, occurrence in due:
        topics = followed_topics(session, catalog, channel_id, occurrence.kind)
        if not topics:
            continue
        key = (tuple(t.slug for t in topics), occurrence.period_start, occurrence.period_end)
        if key not in composed:
            composed[key] = build_digest(
                session,
                topics,
                since=occurrence.period_start,
                until=occurrence.period_end,
                per_topic_cap=per_topic_cap,
            )
        planned.append(PlannedDigest(channel_id, platforms[channel_id], occurrence, composed[key]))
    return planned


def plan_instant(
    session: Session,
    catalog: Catalog,
    *,
    platforms: Sequence[str],
    now: datetime,
    per_topic_cap: int = 5,
) -> list[PlannedDigest]:
    """For channels with `instant` follows: the papers tagged since their last instant batch."""
    last_sent = dict(
        session.execute(
            select(Delivery.channel_id, func.max(Delivery.created_at))
            .where(Delivery.kind == "instant")
            .group_by(Delivery.channel_id)
        ).all()
    )
    rows = session.execute(
        select(Channel.id, Channel.platform, func.min(Follow.created_at))
        .join(Follow, Follow.channel_id == Channel.id)
        .where(Follow.mode == "instant", Channel.paused_reason.is_(None))
        .where(Channel.platform.in_(platforms))
        .group_by(Channel.id, Channel.platform)
    ).all()
    planned = []
    for channel_id, platform, followed_at in rows:
        since = as_utc(last_sent.get(channel_id) or followed_at)
        topics = followed_topics(session, catalog, channel_id, "instant")
        digest = build_digest(
            session,
            topics,
            since=since.date() - timedelta(days=1),
            until=now.date(),
            per_topic_cap=per_topic_cap,
            tagged_after=since,
        )
        if not digest.is_empty:
            occurrence = Occurrence(
                "instant", now.isoformat(timespec="seconds"), now, since.date(), now.date()
            )
            planned.append(PlannedDigest(channel_id, platform, occurrence, digest))
    return planned
