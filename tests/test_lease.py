"""One replica runs the scheduled jobs; another takes over when it dies."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import Session

from digests.store.lease import holder_of, release, try_acquire
from digests.store.unit_of_work import unit_of_work

NOW = datetime(2026, 9, 28, 9, tzinfo=UTC)
TTL = timedelta(seconds=30)


def acquire(engine, holder: str, now: datetime) -> bool:
    """One replica's attempt, in a transaction of its own as the runtime makes it."""
    with unit_of_work(lambda: Session(engine)) as session:
        return try_acquire(session, "scheduler", holder, now=now, ttl=TTL)


def holder(engine, now: datetime) -> str | None:
    with Session(engine) as session:
        return holder_of(session, "scheduler", now=now)


def test_only_one_replica_holds_the_lease(engine):
    assert acquire(engine, "replica-a", NOW)
    assert not acquire(engine, "replica-b", NOW)
    assert holder(engine, NOW) == "replica-a"


def test_the_holder_renews_its_lease(engine):
    acquire(engine, "replica-a", NOW)
    assert acquire(engine, "replica-a", NOW + TTL / 2)
    assert not acquire(engine, "replica-b", NOW + TTL)


def test_another_replica_takes_over_once_the_holder_stops_renewing(engine):
    acquire(engine, "replica-a", NOW)
    later = NOW + TTL + timedelta(seconds=1)
    assert acquire(engine, "replica-b", later)
    assert holder(engine, later) == "replica-b"


def test_a_released_lease_is_free_at_once(engine):
    acquire(engine, "replica-a", NOW)
    with unit_of_work(lambda: Session(engine)) as session:
        release(session, "scheduler", "replica-a", now=NOW)
    assert acquire(engine, "replica-b", NOW + timedelta(seconds=1))
