"""Planning scheduled digests: which channels are due, and what each one receives.

The plan is read from the database every time (schedules, follows, the last period stored), so
one job serves any number of channels and a restart or a new leader picks up where it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import (
    ARRAY,
    Column,
    ColumnElement,
    Connection,
    FromClause,
    Integer,
    MetaData,
    Select,
    String,
    Table,
    and_,
    bindparam,
    cast,
    column,
    exists,
    func,
    literal_column,
    select,
)
from sqlmodel import Session

from digests.catalog import Catalog
from digests.compose import Digest
from digests.due import (
    DEFAULT_GRACE,
    DueDecisions,
    Occurrence,
    Schedule,
    period_keys,
    split_due,
    weekdays_due_between,
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

    Each distinct schedule's current period is worked out once, and the database returns only
    the channels whose last stored period is older, so the cost follows the schedules due and
    their channels, not all the channels that exist.
    """
    since = None if horizon is None else now - horizon
    connection = session.connection()
    schedules = connection.execute(_schedules_in_use(kind, since, now)).all()
    keys = period_keys(kind, schedules, now, since=since)
    if not keys:
        return DueDecisions([], [])
    with _current_periods(connection, keys) as current:
        rows = connection.execute(_not_stored_yet(current, kind)).all()
    wanted = set(platforms)  # filtered here so the join can start from the schedules
    pending = ((channel_id, index) for channel_id, index, platform in rows if platform in wanted)
    # Occurrences are built for the schedules of the channels returned only.
    return split_due(pending, list(keys), kind=kind, now=now, grace=grace)


def _schedules_in_use(kind: str, since: datetime | None, now: datetime) -> Select:
    """Every distinct schedule, read from the schedule index alone (a few extra are harmless).

    Within a horizon, weekly schedules on a weekday that no zone can place in it are left out.
    """
    query = select(Channel.digest_weekday, Channel.digest_time, Channel.timezone).distinct()
    if kind == "weekly" and since is not None:
        query = query.where(Channel.digest_weekday.in_(weekdays_due_between(since, now)))
    return query


def _not_stored_yet(current: FromClause, kind: str) -> Select:
    """Live channels of the current schedules without their period stored, following `kind`.

    The follow check runs last, on the few channels left: most channels of a due schedule
    have their period stored already, which one probe of the unique (channel, kind, period)
    index tells.
    """
    # Selecting an indexed column lets SQLite answer from the index alone.
    done = (
        select(Delivery.period_key)
        .where(
            Delivery.channel_id == Channel.id,
            Delivery.kind == kind,
            Delivery.period_key >= current.c.key,
        )
        .exists()
    )
    # Each channel comes back with its schedule's position in `keys`, not the schedule itself:
    # at 100,000 channels due, reading and hashing three strings apiece took a tenth of a second.
    pending = (
        select(Channel.id, current.c.position, Channel.platform)
        .join(
            current,
            and_(
                current.c.weekday == Channel.digest_weekday,
                current.c.at == Channel.digest_time,
                current.c.zone == Channel.timezone,
            ),
        )
        .where(Channel.paused_reason.is_(None), ~done)
        .cte("pending")
        # Else SQLite looks up the follows of every channel first; PostgreSQL needs no hint,
        # and would spill 100,000 due channels to disk to materialize them.
        .prefix_with("MATERIALIZED", dialect="sqlite")
    )
    following = exists().where(Follow.channel_id == pending.c.id, Follow.mode == kind)
    return select(pending).where(following)


@contextmanager
def _current_periods(connection: Connection, keys: dict[Schedule, str]) -> Iterator[FromClause]:
    """Each current schedule's period key, as rows (weekday, at, zone, key, position) to join
    channels on; `position` is the schedule's place in `keys`.

    PostgreSQL receives them as five arrays, one bound parameter each: no temporary table to
    create, fill and analyze on every tick, and no churn in its system catalogs. SQLite has no
    arrays; a temporary table costs little there, and it looks the key up per channel.
    """
    if connection.dialect.name != "postgresql":
        table = _period_table(connection, keys)
        yield table
        table.drop(connection)
        return
    # With no statistics on the arrays, PostgreSQL would rather sort every channel for a merge
    # join than probe the schedule index once per current schedule, which takes less time.
    connection.exec_driver_sql("SET LOCAL enable_mergejoin = off")
    yield _period_arrays(keys)
    connection.exec_driver_sql("SET LOCAL enable_mergejoin TO DEFAULT")  # rest of the transaction


def _period_arrays(keys: dict[Schedule, str]) -> FromClause:
    weekdays, ats, zones = zip(*keys, strict=True)
    return (
        func.unnest(
            cast(_array("weekdays", weekdays), ARRAY(Integer)),
            _array("ats", ats),
            _array("zones", zones),
            _array("keys", keys.values()),
            cast(_array("positions", range(len(keys))), ARRAY(Integer)),
        )
        .table_valued(
            column("weekday", Integer),
            column("at", String),
            column("zone", String),
            column("key", String),
            column("position", Integer),
        )
        .render_derived(name="current_period")
    )


def _array(name: str, values: Iterable[object]) -> ColumnElement:
    # Sent as one comma-separated text that the server splits: psycopg would quote a list of
    # strings one element at a time, in Python. No weekday, time, zone name or date has a comma.
    return func.string_to_array(bindparam(name, ",".join(map(str, values))), literal_column("','"))


def _period_table(connection: Connection, keys: dict[Schedule, str]) -> Table:
    table = Table(
        "current_period",
        MetaData(),
        Column("weekday", Integer, primary_key=True),
        Column("at", String(5), primary_key=True),
        Column("zone", String(64), primary_key=True),
        Column("key", String(64)),
        Column("position", Integer),
        prefixes=["TEMPORARY"],
        sqlite_with_rowid=False,  # the rows are their key
    )
    table.drop(connection, checkfirst=True)  # left over if the query failed
    table.create(connection)
    rows = [(*schedule, key, n) for n, (schedule, key) in enumerate(keys.items())]
    connection.exec_driver_sql("INSERT INTO current_period VALUES (?, ?, ?, ?, ?)", rows)
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
