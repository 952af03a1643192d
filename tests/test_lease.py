"""One replica runs the scheduled jobs; another takes over when it dies."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import Session

from digests.store.lease import holder_of, release, try_acquire

NOW = datetime(2026, 9, 28, 9, tzinfo=UTC)
TTL = timedelta(seconds=30)


def test_only_one_replica_holds_the_lease(engine):
    with Session(engine) as a, Session(engine) as b:
        assert try_acquire(a, "scheduler", "replica-a", now=NOW, ttl=TTL)
        assert not try_acquire(b, "scheduler", "replica-b", now=NOW, ttl=TTL)
        assert holder_of(b, "scheduler", now=NOW) == "replica-a"


def test_the_holder_renews_its_lease(engine):
    with Session(engine) as session:
        try_acquire(session, "scheduler", "replica-a", now=NOW, ttl=TTL)
        assert try_acquire(session, "scheduler", "replica-a", now=NOW + TTL / 2, ttl=TTL)
        assert not try_acquire(session, "scheduler", "replica-b", now=NOW + TTL, ttl=TTL)


def test_another_replica_takes_over_once_the_holder_stops_renewing(engine):
    with Session(engine) as session:
        try_acquire(session, "scheduler", "replica-a", now=NOW, ttl=TTL)
        later = NOW + TTL + timedelta(seconds=1)
        assert try_acquire(session, "scheduler", "replica-b", now=later, ttl=TTL)
        assert holder_of(session, "scheduler", now=later) == "replica-b"


def test_a_released_lease_is_free_at_once(engine):
    with Session(engine) as session:
        try_acquire(session, "scheduler", "replica-a", now=NOW, ttl=TTL)
        release(session, "scheduler", "replica-a", now=NOW)
        assert try_acquire(
            session, "scheduler", "replica-b", now=NOW + timedelta(seconds=1), ttl=TTL
        )
