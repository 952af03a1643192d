"""Topics' momentum read from the store: the counts of their windows, then `compute_momentum`.

Needs only SQLAlchemy Core (`digests.store.counts`), so that `digestbot momentum` starts
without the ORM.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from digests.signals.momentum import HISTOGRAM_WEEKS, Momentum, compute_momentum, window_bounds
from digests.store import counts
from digests.topics.catalog import TopicDef


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
