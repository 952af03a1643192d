"""A spike scan as a use case: the counts and the remembered states are read from the store,
`digests.signals.spikes` decides, and `record` writes what the decisions leave behind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import astuple
from datetime import date, datetime

from sqlmodel import Session

from digests.signals.momentum import window_bounds
from digests.signals.spike_settings import SpikeSettings
from digests.signals.spikes import SpikeDecision, SpikeMemory, TopicCounts, evaluate, next_memory
from digests.store import repo, spike_states
from digests.topics.catalog import TopicDef


def topic_counts(session: Session, topics: Sequence[TopicDef], *, as_of: date) -> list[TopicCounts]:
    """Both windows' counts for each topic (once per slug), from one grouped query for all."""
    if isinstance(as_of, datetime):
        raise TypeError("as_of must be a date, not a datetime")
    current_start, _, previous_start, previous_end = window_bounds(as_of)
    per_topic = repo.daily_topic_counts(session, previous_start, as_of)
    totals = repo.daily_totals(session, previous_start, as_of)
    total = _days_sum(totals, current_start, as_of)
    previous_total = _days_sum(totals, previous_start, previous_end)
    rows = repo.topic_rows(session)
    found: dict[str, TopicCounts] = {}
    for topic in topics:
        row = rows.get(topic.slug)
        daily = per_topic.get(row.id, {}) if row else {}
        found.setdefault(
            topic.slug,
            TopicCounts(
                slug=topic.slug,
                name=topic.name,
                count=_days_sum(daily, current_start, as_of),
                previous=_days_sum(daily, previous_start, previous_end),
                total=total,
                previous_total=previous_total,
            ),
        )
    return list(found.values())


def load_memory(session: Session) -> dict[str, SpikeMemory]:
    return {slug: SpikeMemory(*state) for slug, state in spike_states.read_states(session).items()}


def scan(
    session: Session,
    topics: Sequence[TopicDef],
    *,
    as_of: date,
    settings: SpikeSettings,
    now: datetime,
    filters: Sequence[TopicDef] = (),
) -> list[SpikeDecision]:
    """Decisions for `topics`, then for `filters` (follows of a search, an author or a
    category), as of a day; nothing is written (see `record`).

    The filters are corrected for multiple testing as a family of their own: what chats
    follow never makes a catalog topic's alert harder to get, and the catalog never a
    search's."""
    counts = topic_counts(session, [*topics, *filters], as_of=as_of)
    memory = load_memory(session)
    filter_slugs = {topic.slug for topic in filters}
    families = (
        [topic for topic in counts if topic.slug not in filter_slugs],
        [topic for topic in counts if topic.slug in filter_slugs],
    )
    return [d for family in families for d in evaluate(family, memory, settings, now=now)]


def record(session: Session, decisions: Sequence[SpikeDecision], *, now: datetime) -> None:
    """Write `decisions` to `SpikeState`; a topic never alerted nor elevated gets no row."""
    held = load_memory(session)
    after = {
        decision.slug: next_memory(held.get(decision.slug, SpikeMemory()), decision, now)
        for decision in decisions
        if decision.slug in held or decision.alert or decision.elevated
    }
    spike_states.write_states(
        session, {slug: astuple(memory) for slug, memory in after.items()}, now=now
    )


def _days_sum(daily: Mapping[date, int], first: date, last: date) -> int:
    return sum(count for day, count in daily.items() if first <= day <= last)
