"""A lease on a named role, so that exactly one replica runs the scheduled jobs.

The holder renews it well before it expires; if the holder dies, another replica takes it over
once it has expired. Works the same on SQLite and PostgreSQL (a conditional UPDATE is atomic).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from digests.store.models import Lease

NAME_LIMIT = 64  # characters of `Lease.name`


def try_acquire(session: Session, name: str, holder: str, *, now: datetime, ttl: timedelta) -> bool:
    """Take or renew the lease; True when `holder` holds it until now + ttl, once the caller
    commits."""
    taken = session.execute(
        update(Lease)
        .where(Lease.name == name)
        .where((Lease.holder == holder) | (Lease.expires_at < now))
        .values(holder=holder, expires_at=now + ttl)
    ).rowcount
    if taken:
        return True
    if session.execute(select(Lease.name).where(Lease.name == name)).first():
        return False
    try:
        with session.begin_nested():  # another replica may create it at the same moment
            session.add(Lease(name=name, holder=holder, expires_at=now + ttl))
    except IntegrityError:
        return False
    return True


def release(session: Session, name: str, holder: str, *, now: datetime) -> None:
    """Give the lease up at once (clean shutdown), so another replica need not wait."""
    session.execute(
        update(Lease).where(Lease.name == name, Lease.holder == holder).values(expires_at=now)
    )


def holder_of(session: Session, name: str, *, now: datetime) -> str | None:
    lease = session.get(Lease, name)
    return lease.holder if lease and lease.expires_at > now else None


def count_live(session: Session, prefix: str, *, now: datetime) -> int:
    """How many leases whose name starts with `prefix` are held now."""
    return session.execute(
        select(func.count())
        .select_from(Lease)
        .where(Lease.name.startswith(prefix, autoescape=True), Lease.expires_at > now)
    ).scalar_one()
