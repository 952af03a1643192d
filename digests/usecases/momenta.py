"""Topics' momentum read from the store: the counts of their windows, then `compute_momentum`.

A catalog topic needs only SQLAlchemy Core (`digests.store.counts`), so that `digestbot
momentum` starts without the ORM; a filter's papers are looked up with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from digests.follows.filters import FollowFilter
from digests.signals.momentum import HISTOGRAM_WEEKS, Momentum, compute_momentum, window_bounds
from digests.store import counts
from digests.topics.catalog import TopicDef

if TYPE_CHECKING:
    from sqlmodel import Session


def day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def day_end(day: date) -> datetime:
    return datetime.combine(day, time.max, tzinfo=UTC)


def topic_momenta(
    reader: counts.Executes, topics: Sequence[TopicDef], *, as_of: date
) -> dict[str, Momentum]:
    """Momentum of each topic as of a day, from two grouped queries for all topics at once
    (only the topics asked for are counted)."""
    _, _, previous_start, _ = window_bounds(as_of)
    first_day = min(previous_start, as_of - timedelta(days=7 * HISTOGRAM_WEEKS - 1))
    rows = counts.topic_rows(reader)
    ids = {rows[t.slug].id for t in topics if t.slug in rows}
    per_topic = counts.daily_topic_counts(
        reader, first_day, as_of, topic_ids=ids if len(ids) < len(rows) else None
    )
    totals = counts.daily_totals(reader, first_day, as_of)
    momenta = {}
    for topic in topics:
        row = rows.get(topic.slug)
        daily = per_topic.get(row.id, {}) if row else {}
        momenta[topic.slug] = compute_momentum(topic.name, daily, totals, as_of)
    return momenta



def followed_momentum(
    session: Session, followed: TopicDef | FollowFilter, *, as_of: date
) -> Momentum:
    """A topic's or a filter's momentum line and 12-week histogram as of a day; a filter's
    papers are tagged in `session`, which the caller does not commit."""
    (topic,) = as_topics(session, [followed], as_of=as_of)
    return topic_momenta(session, [topic], as_of=as_of)[topic.slug]


def as_topics(
    session: Session, followed: Sequence[TopicDef | FollowFilter], *, as_of: date
) -> list[TopicDef]:
    """Filters as topics, their papers tagged in `session` when nobody follows them yet."""
    topics = []
    for item in followed:
        if isinstance(item, FollowFilter):
            from digests.usecases.follows import store_filter  # the ORM: filters only

            store_filter(session, item, now=day_end(as_of))
            item = item.topic()
        topics.append(item)
    return topics


def read_momentum(engine: Engine, followed: TopicDef | FollowFilter, *, as_of: date) -> Momentum:
    """One topic's or filter's momentum, read in a connection of its own and never committed
    (`digestbot momentum` reads without building the app; a catalog topic without the ORM)."""
    if isinstance(followed, FollowFilter):
        from sqlmodel import Session

        with Session(engine) as session:  # a filter's papers are looked up, not kept
            return followed_momentum(session, followed, as_of=as_of)
    with engine.connect() as connection:
        return topic_momenta(connection, [followed], as_of=as_of)[followed.slug]
