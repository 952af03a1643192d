"""What the spike scan remembers per topic: elevated or not, and its last alert."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from digests.store import repo
from digests.store.models import SpikeState, Topic

# (elevated, alerted at, papers at that alert, share at that alert in percent)
State = tuple[bool, datetime | None, int, float]


def read_states(session: Session) -> dict[str, State]:
    """Every topic's stored state, by slug."""
    statement = select(
        Topic.slug,
        SpikeState.elevated,
        SpikeState.alerted_at,
        SpikeState.alerted_count,
        SpikeState.alerted_share,
    ).join(Topic, Topic.id == SpikeState.topic_id)
    return {
        row.slug: (bool(row.elevated), row.alerted_at, row.alerted_count, row.alerted_share)
        for row in session.execute(statement)
    }


def write_states(session: Session, states: Mapping[str, State], *, now: datetime) -> None:
    """Store each topic's state, by slug; slugs without a stored topic are passed over."""
    topic_ids = {slug: row.id for slug, row in repo.topic_rows(session).items()}
    held = {row.topic_id: row for row in session.execute(select(SpikeState)).scalars()}
    for slug, (elevated, alerted_at, alerted_count, alerted_share) in states.items():
        topic_id = topic_ids.get(slug)
        if topic_id is None:
            continue
        row = held.get(topic_id)
        if row is None:
            row = SpikeState(topic_id=topic_id, updated_at=now)
            session.add(row)
            held[topic_id] = row
        row.elevated, row.alerted_at = elevated, alerted_at
        row.alerted_count, row.alerted_share = alerted_count, alerted_share
        row.updated_at = now
    session.flush()
