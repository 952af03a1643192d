"""Planning scheduled digests: which channels are due, and what each one receives.

The plan is read from the database every time (schedules, follows, the last period stored), so
one job serves any number of channels and a restart or a new leader picks up where it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session

from digests.delivery.due import (
    DEFAULT_GRACE,
    DueDecisions,
    Occurrence,
    period_keys,
    split_due,
    weekdays_due_between,
)
from digests.feedback.ranking import ChannelFeedback
from digests.follows.filters import FollowFilter
from digests.messages.digest import Digest
from digests.messages.tags import lineage
from digests.papers.records import as_utc
from digests.store import channels, deliveries, follow_filters, schedules
from digests.store.bulk import chunks
from digests.topics.catalog import Catalog
from digests.usecases.reports import build_digest
from digests.usecases.votes import feedback_of_channels

PLAN_BATCH = 1_000  # due channels read together: fewer queries, and within every IN's limit


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
    """
    since = None if horizon is None else now - horizon
    # Within a horizon, weekly schedules on a weekday that no zone can place in it are left out.
    weekdays = weekdays_due_between(since, now) if kind == "weekly" and since is not None else None
    in_use = schedules.schedules_in_use(session, weekdays=weekdays)
    keys = period_keys(kind, in_use, now, since=since)
    if not keys:
        return DueDecisions([], [])
    rows = schedules.channels_without_period(session, keys, kind=kind)
    wanted = set(platforms)  # filtered here so the join can start from the schedules
    pending = ((channel_id, index) for channel_id, index, platform in rows if platform in wanted)
    # Occurrences are built for the schedules of the channels returned only.
    return split_due(pending, list(keys), kind=kind, now=now, grace=grace)


def record_skipped(
    session: Session, skipped: Sequence[tuple[int, Occurrence]], *, now: datetime
) -> int:
    """Store missed periods as skipped deliveries, so they are neither sent nor planned again."""
    new = [
        deliveries.NewDelivery(channel_id, occurrence.kind, occurrence.key, parts=[])
        for channel_id, occurrence in skipped
    ]
    return sum(id_ is not None for id_ in deliveries.enqueue_many(session, new, now=now))


def followed_topics(
    session: Session, catalog: Catalog, channel_id: int, kind: str | None = None
) -> list:
    """What a channel follows (as `kind`, when given): catalog topics and follow filters."""
    return _followed_topics_of(session, catalog, [(channel_id, kind)]).get((channel_id, kind), [])


def known_topics(catalog: Catalog, slugs, filters: Mapping[str, FollowFilter] = {}) -> list:
    """The topics for these slugs, in order: the catalog's, and `filters` as topics; slugs
    that left the catalog are skipped."""
    topics = []
    for slug in slugs:
        if slug in filters:
            topics.append(filters[slug].topic())
            continue
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
    """Compose each due channel's digest; channels following the same topics share one.
    Channels are read PLAN_BATCH at a time, a few queries for each batch."""
    composed: dict[tuple, Digest] = {}
    planned = []
    for batch in chunks(due, PLAN_BATCH):
        planned += _plan_batch(session, catalog, batch, composed, per_topic_cap=per_topic_cap)
    return planned


def _plan_batch(
    session: Session,
    catalog: Catalog,
    due: Sequence[tuple[int, Occurrence]],
    composed: dict[tuple, Digest],
    *,
    per_topic_cap: int,
) -> list[PlannedDigest]:
    platforms = channels.platforms_of(session, [channel_id for channel_id, _ in due])
    votes = feedback_of_channels(session, platforms)
    follows = _followed_topics_of(session, catalog, [(c, o.kind) for c, o in due])
    planned = []
    for channel_id, occurrence in due:
        topics = follows.get((channel_id, occurrence.kind))
        if not topics:
            continue
        start, end = occurrence.period_start, occurrence.period_end
        digest = _shared_digest(
            session,
            composed,
            (channel_id, votes.get(channel_id)),
            topics,
            (start, end),
            since=start,
            until=end,
            per_topic_cap=per_topic_cap,
            ancestors=lineage(catalog),
        )
        planned.append(PlannedDigest(channel_id, platforms[channel_id], occurrence, digest))
    return planned


def _shared_digest(
    session: Session,
    composed: dict[tuple, Digest],
    voter: tuple[int, ChannelFeedback | None],
    topics: list,
    window: tuple,
    **build,
) -> Digest:
    """`build_digest(session, topics, **build)` for a channel, shared with every channel
    asking for the same topics and `window` in this planning run; a channel's votes (`voter`
    is its id and feedback) make its digest its own."""
    channel_id, feedback = voter
    key = (tuple(t.slug for t in topics), *window)
    if feedback is not None:
        key += (channel_id,)
    if key not in composed:
        composed[key] = build_digest(session, topics, feedback=feedback, **build)
    return composed[key]


def _followed_topics_of(
    session: Session, catalog: Catalog, wanted: Sequence[tuple[int, str | None]]
) -> dict[tuple[int, str | None], list]:
    """`followed_topics` of each (channel, kind), in a query per kind and one for filters."""
    slugs: dict[tuple[int, str | None], list[str]] = {}
    for kind in {kind for _, kind in wanted}:
        ids = [channel_id for channel_id, wanted_kind in wanted if wanted_kind == kind]
        for channel_id, followed in channels.followed_slugs_of(session, ids, mode=kind).items():
            slugs[channel_id, kind] = followed
    filters = follow_filters.by_slug(session, {s for found in slugs.values() for s in found})
    return {key: known_topics(catalog, found, filters) for key, found in slugs.items()}


def plan_instant(
    session: Session,
    catalog: Catalog,
    *,
    platforms: Sequence[str],
    now: datetime,
    per_topic_cap: int = 5,
) -> list[PlannedDigest]:
    """For channels with `instant` follows: the papers tagged since their last instant batch.
    Channels following the same topics since the same moment share one digest."""
    last_sent = deliveries.last_created(session, kind="instant")
    followers = channels.live_followers(session, "instant", platforms)
    composed: dict[tuple, Digest] = {}
    planned = []
    for batch in chunks(followers, PLAN_BATCH):
        follows = _followed_topics_of(session, catalog, [(c, "instant") for c, _, _ in batch])
        votes = feedback_of_channels(session, [channel_id for channel_id, _, _ in batch])
        for channel_id, platform, followed_at in batch:
            topics = follows.get((channel_id, "instant"))
            if not topics:
                continue
            since = as_utc(last_sent.get(channel_id) or followed_at)
            digest = _shared_digest(
                session,
                composed,
                (channel_id, votes.get(channel_id)),
                topics,
                (since,),
                since=since.date() - timedelta(days=1),
                until=now.date(),
                per_topic_cap=per_topic_cap,
                tagged_after=since,
                ancestors=lineage(catalog),
            )
            if not digest.is_empty:
                occurrence = Occurrence(
                    "instant", now.isoformat(timespec="seconds"), now, since.date(), now.date()
                )
                planned.append(PlannedDigest(channel_id, platform, occurrence, digest))
    return planned
