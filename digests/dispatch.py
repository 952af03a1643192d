"""Planning scheduled digests: which channels are due, and what each one receives.

The plan is read from the database every time (schedules, follows, the last period stored), so
one job serves any number of channels and a restart or a new leader picks up where it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlmodel import Session

from digests.catalog import Catalog
from digests.compose import Digest
from digests.due import DEFAULT_GRACE, ChannelClock, DueDecisions, Occurrence, decide
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
) -> DueDecisions:
    """Channels with at least one follow of this mode whose latest period is not stored yet."""
    following = select(Follow.channel_id).where(Follow.mode == kind).distinct().scalar_subquery()
    clocks = [
        ChannelClock(row.id, row.digest_weekday, row.digest_time, row.timezone)
        for row in session.execute(
            select(Channel.id, Channel.digest_weekday, Channel.digest_time, Channel.timezone)
            .where(Channel.platform.in_(platforms), Channel.paused_reason.is_(None))
            .where(Channel.id.in_(following))
        )
    ]
    last_keys = dict(
        session.execute(
            select(Delivery.channel_id, func.max(Delivery.period_key))
            .where(Delivery.kind == kind)
            .group_by(Delivery.channel_id)
        ).all()
    )
    return decide(clocks, last_keys, kind=kind, now=now, grace=grace)


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
