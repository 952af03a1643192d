"""Momentum's counts, read with SQLAlchemy Core alone.

`digestbot momentum` and the spike scan need only three grouped reads. They name their tables
with `sqlalchemy.table` instead of the ORM models so that a command which only counts does
not load SQLModel and the mapped classes (a fifth of its start-up). They take a `Session` or a
`Connection`: anything with `execute`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from sqlalchemy import Date, Integer, String, column, func, select, table


class Executes(Protocol):
    def execute(self, statement: Any) -> Any: ...


@dataclass(frozen=True)
class TopicRow:
    id: int
    slug: str
    name: str


_topic = table("topic", column("id", Integer), column("slug", String), column("name", String))
_paper = table("paper", column("published_on", Date))
_paper_topic = table(
    "paper_topic",
    column("paper_id", Integer),
    column("topic_id", Integer),
    column("published_on", Date),
)


def topic_rows(session: Executes) -> dict[str, TopicRow]:
    rows = session.execute(select(_topic.c.id, _topic.c.slug, _topic.c.name))
    return {row.slug: TopicRow(row.id, row.slug, row.name) for row in rows}


def daily_topic_counts(
    session: Executes, start: date, end: date, *, topic_ids: Collection[int] | None = None
) -> dict[int, dict[date, int]]:
    """Distinct papers per topic per first-version day, days start..end, for `topic_ids`
    (every topic when None)."""
    pt = _paper_topic.c
    statement = (
        select(pt.topic_id, pt.published_on, func.count(func.distinct(pt.paper_id)))
        .where(pt.published_on >= start, pt.published_on <= end)
        # In the order of ix_paper_topic_day, so PostgreSQL needs no sort.
        .group_by(pt.published_on, pt.topic_id)
    )
    if topic_ids is not None:
        statement = statement.where(pt.topic_id.in_(list(topic_ids)))
    counts: dict[int, dict[date, int]] = defaultdict(dict)
    for topic_id, day, count in session.execute(statement):
        counts[topic_id][_as_date(day)] = count
    return counts


def daily_totals(session: Executes, start: date, end: date) -> dict[date, int]:
    """All stored papers per first-version day, days start..end."""
    p = _paper.c
    statement = (
        select(p.published_on, func.count())
        .where(p.published_on >= start, p.published_on <= end)
        .group_by(p.published_on)
    )
    return {_as_date(day): count for day, count in session.execute(statement)}


def _as_date(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))
